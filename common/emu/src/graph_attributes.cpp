// graph_attributes.cpp - kernel node attributes: cudaGraphKernelNodeGetAttribute,
// cudaGraphKernelNodeSetAttribute and cudaGraphKernelNodeCopyAttributes. The
// node keeps what was set (CUgraphNode_st::attributes, copied with the graph).
//
// Attributes that only tune speed (the L2 access policy window, priority,
// memory sync domains, the shared memory carveout, cluster scheduling and
// NVLink preferences, the host's synchronization policy) are checked, kept
// and read back; they change nothing the emulator does. Attributes whose
// effect it does not have (a cooperative launch, thread block clusters,
// programmatic launches and their events, device-updatable nodes) are refused
// when set to anything but their default, with cudaErrorNotSupported and a
// line, so a program never runs with one silently ignored.
#include <cstdio>

#include "cuemu/runtime.h"
#include "graph_internal.h"

using namespace cuemu::detail;

namespace {

bool known_attribute(int attr) {
    return attr >= cudaLaunchAttributeIgnore && attr <= cudaLaunchAttributeNvlinkUtilCentricScheduling &&
           attr != 15;
}

cudaError_t not_emulated(const char* what) {
    std::fprintf(stderr, "cuemu: cudaGraphKernelNodeSetAttribute: %s is not emulated\n", what);
    return cudaErrorNotSupported;
}

bool property_valid(cudaAccessProperty p) {
    return p == cudaAccessPropertyNormal || p == cudaAccessPropertyStreaming ||
           p == cudaAccessPropertyPersisting;
}

// cudaSuccess when the value may be kept; the refusal otherwise.
cudaError_t check_value(int attr, const cudaLaunchAttributeValue& v) {
    switch (attr) {
        case cudaLaunchAttributeAccessPolicyWindow: {
            const cudaAccessPolicyWindow& w = v.accessPolicyWindow;
            if (!(w.hitRatio >= 0.0f && w.hitRatio <= 1.0f) || !property_valid(w.hitProp) ||
                !property_valid(w.missProp))
                return cudaErrorInvalidValue;
            return cudaSuccess;
        }
        case cudaLaunchAttributeCooperative:
            return v.cooperative ? not_emulated("a cooperative kernel node (use "
                                                "cudaLaunchCooperativeKernel in a stream capture)")
                                 : cudaSuccess;
        case cudaLaunchAttributeSynchronizationPolicy:
            return v.syncPolicy >= cudaSyncPolicyAuto && v.syncPolicy <= cudaSyncPolicyBlockingSync
                       ? cudaSuccess
                       : cudaErrorInvalidValue;
        case cudaLaunchAttributeClusterDimension:
        case cudaLaunchAttributePreferredClusterDimension: {
            const bool cluster = attr == cudaLaunchAttributeClusterDimension;
            const unsigned x = cluster ? v.clusterDim.x : v.preferredClusterDim.x;
            const unsigned y = cluster ? v.clusterDim.y : v.preferredClusterDim.y;
            const unsigned z = cluster ? v.clusterDim.z : v.preferredClusterDim.z;
            const bool none = (x == 0 && y == 0 && z == 0) || (x == 1 && y == 1 && z == 1);
            return none ? cudaSuccess : not_emulated("a thread block cluster of more than one block");
        }
        case cudaLaunchAttributeClusterSchedulingPolicyPreference:
            return v.clusterSchedulingPolicyPreference >= cudaClusterSchedulingPolicyDefault &&
                           v.clusterSchedulingPolicyPreference <= cudaClusterSchedulingPolicyLoadBalancing
                       ? cudaSuccess
                       : cudaErrorInvalidValue;
        case cudaLaunchAttributeProgrammaticStreamSerialization:
            return v.programmaticStreamSerializationAllowed
                       ? not_emulated("programmatic stream serialization (programmatic dependent launch)")
                       : cudaSuccess;
        case cudaLaunchAttributeProgrammaticEvent:
            return v.programmaticEvent.event ? not_emulated("a programmatic event") : cudaSuccess;
        case cudaLaunchAttributeLaunchCompletionEvent:
            return v.launchCompletionEvent.event ? not_emulated("a launch completion event") : cudaSuccess;
        case cudaLaunchAttributeDeviceUpdatableKernelNode:
            return v.deviceUpdatableKernelNode.deviceUpdatable
                       ? not_emulated("a device-updatable kernel node")
                       : cudaSuccess;
        case cudaLaunchAttributeMemSyncDomain:
            return v.memSyncDomain == cudaLaunchMemSyncDomainDefault ||
                           v.memSyncDomain == cudaLaunchMemSyncDomainRemote
                       ? cudaSuccess
                       : cudaErrorInvalidValue;
        case cudaLaunchAttributePreferredSharedMemoryCarveout:
            // A percentage, or -1 (cudaSharedmemCarveoutDefault) as an unsigned value.
            return v.sharedMemCarveout <= 100 || v.sharedMemCarveout == ~0u ? cudaSuccess
                                                                             : cudaErrorInvalidValue;
        default:  // priority, memory sync domain map, NVLink preference: hints
            return cudaSuccess;
    }
}

bool is_kernel_node_locked(cudaGraphNode_t node) {
    return is_live_node_locked(node) && node->type == cudaGraphNodeTypeKernel;
}

}  // namespace

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                            cudaKernelNodeAttrValue* value_out) {
    if (!value_out || !known_attribute(attr)) return record(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_kernel_node_locked(hNode)) return record(cudaErrorInvalidValue);
    auto it = hNode->attributes.find(attr);
    *value_out = it != hNode->attributes.end() ? it->second : cudaLaunchAttributeValue{};  // unset: zero
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                            const cudaKernelNodeAttrValue* value) {
    if (!value || !known_attribute(attr)) return record(cudaErrorInvalidValue);
    {
        std::lock_guard<std::mutex> lock(graph_mutex());
        if (!is_kernel_node_locked(hNode)) return record(cudaErrorInvalidValue);
    }
    if (cudaError_t e = check_value(attr, *value)) return record(e);
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_kernel_node_locked(hNode)) return record(cudaErrorInvalidValue);
    if (attr != cudaLaunchAttributeIgnore) hNode->attributes[attr] = *value;
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc) {
    std::lock_guard<std::mutex> lock(graph_mutex());
    if (!is_kernel_node_locked(hDst) || !is_kernel_node_locked(hSrc)) return record(cudaErrorInvalidValue);
    hDst->attributes = hSrc->attributes;
    return cudaSuccess;
}
