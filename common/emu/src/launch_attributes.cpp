// launch_attributes.cpp - what each attribute of a cudaLaunchKernelEx launch
// does here (cuemu/launch_attributes.h; common/emu/README.md, "Launches with
// attributes"). The emulator runs one kernel at a time, each after the work
// before it on its stream, so the attributes that only allow a GPU to start
// work earlier, or tune how it places and caches, change nothing and are
// accepted; cooperative launches are emulated; clusters are not.
#include <cstdio>
#include <cstring>

#include "cuemu/launch_attributes.h"
#include "cuemu/runtime.h"
#include "internal.h"

using namespace cuemu::detail;

namespace cuemu {
namespace {

[[gnu::cold]] cudaError_t refuse_attribute(const char* what, const char* file, int line) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "cuemu: cudaLaunchKernelEx at %s:%d: %s is not emulated "
                 "(cudaErrorNotSupported); build this program with nvcc for a GPU\n",
                 file, line, what);
    return record(cudaErrorNotSupported);
}

// The attribute's id read as an int: a program may pass a value the
// enumeration lacks, which loading it as the enumeration would not allow.
int attribute_id(const cudaLaunchAttribute& a) {
    int id;
    std::memcpy(&id, &a.id, sizeof id);
    return id;
}

// A cluster of 1 x 1 x 1 blocks (or 0, "none") is an ordinary launch.
template <class Dim>
bool one_block_cluster(const Dim& d) {
    return d.x <= 1 && d.y <= 1 && d.z <= 1;
}

}  // namespace

cudaError_t launch_config_with_attributes(const cudaLaunchConfig_t* config, launch_config* out,
                                          const char* file, int line) {
    if (!config || (config->numAttrs > 0 && !config->attrs)) return record(cudaErrorInvalidValue);
    *out = launch_config(config->grid_dim_member, config->block_dim_member, config->dynamicSmemBytes,
                         config->stream);
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const cudaLaunchAttribute& a = config->attrs[i];
        switch (attribute_id(a)) {
            case cudaLaunchAttributeIgnore:
            // Hints about caching, placement, priority and memory ordering
            // domains; and permissions to overlap with the work before it,
            // which a launch here never does (cudaGridDependencySynchronize
            // has nothing to wait for).
            case cudaLaunchAttributeAccessPolicyWindow:
            case cudaLaunchAttributeSynchronizationPolicy:
            case cudaLaunchAttributeClusterSchedulingPolicyPreference:
            case cudaLaunchAttributeProgrammaticStreamSerialization:
            case cudaLaunchAttributePriority:
            case cudaLaunchAttributeMemSyncDomainMap:
            case cudaLaunchAttributeMemSyncDomain:
            case cudaLaunchAttributePreferredSharedMemoryCarveout:
            case cudaLaunchAttributeNvlinkUtilCentricScheduling:
            // Events recorded after the launch (record_attribute_events).
            case cudaLaunchAttributeProgrammaticEvent:
            case cudaLaunchAttributeLaunchCompletionEvent:
                break;
            case cudaLaunchAttributeCooperative:
                out->cooperative = a.val.cooperative != 0;
                break;
            case cudaLaunchAttributeClusterDimension:
                if (!one_block_cluster(a.val.clusterDim))
                    return refuse_attribute("a thread block cluster (cudaLaunchAttributeClusterDimension)",
                                            file, line);
                break;
            case cudaLaunchAttributePreferredClusterDimension:
                if (!one_block_cluster(a.val.preferredClusterDim))
                    return refuse_attribute(
                        "a thread block cluster (cudaLaunchAttributePreferredClusterDimension)", file, line);
                break;
            case cudaLaunchAttributeDeviceUpdatableKernelNode:
                return refuse_attribute("a device-updatable kernel node "
                                        "(cudaLaunchAttributeDeviceUpdatableKernelNode)",
                                        file, line);
            default:
                return record(cudaErrorInvalidValue);  // not an attribute CUDA 13 has
        }
    }
    return cudaSuccess;
}

// The programmatic event fires, on a GPU, once every block has triggered or
// finished, and the completion event once every block has begun; both are
// no earlier than the kernel's end here, which only makes what waits for
// them start later.
cudaError_t record_attribute_events(const cudaLaunchConfig_t* config) {
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const cudaLaunchAttribute& a = config->attrs[i];
        cudaEvent_t event = nullptr;
        const int id = attribute_id(a);
        if (id == cudaLaunchAttributeProgrammaticEvent) event = a.val.programmaticEvent.event;
        if (id == cudaLaunchAttributeLaunchCompletionEvent) event = a.val.launchCompletionEvent.event;
        if (event)
            if (cudaError_t e = cudaEventRecord(event, config->stream)) return e;
    }
    return cudaSuccess;
}

}  // namespace cuemu
