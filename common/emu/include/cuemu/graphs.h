// cuemu/graphs.h - CUDA graphs: stream capture, explicit graphs, executable
// graphs (src/graphs.cpp, src/graph_capture.cpp, src/graph_nodes.cpp,
// src/graph_memory.cpp, src/graph_exec.cpp, src/graph_generic.cpp,
// src/graph_conditional.cpp, src/graph_attributes.cpp,
// src/graph_user_objects.cpp). Types, numbers and
// signatures are CUDA 13.0's. The graph calls the emulator does not have are
// declared at the end so that a program using one stops at build time with
// a line naming it.
//
// A graph node is a piece of device work made ready in advance: a captured
// launch, copy, fill or host function is recorded (not run) and each launch
// of the executable graph queues the recorded work again on the stream. A
// kernel node made with cudaGraphAddKernelNode names its kernel by address
// (cudaKernelNodeParams::func is a void*); the emulator finds the kernel's
// parameter types in a registry (kernel_registry.h).
#ifndef CUEMU_GRAPHS_H
#define CUEMU_GRAPHS_H

#include <cstddef>

#include "external_semaphores.h"
#include "kernel_registry.h"
#include "runtime_extra.h"
#include "textures.h"
#include "types.h"

// ---- handles and enumerations ------------------------------------------------------
typedef struct CUgraph_st* cudaGraph_t;
typedef struct CUgraphNode_st* cudaGraphNode_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;

enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamUpdateCaptureDependenciesFlags {
    cudaStreamAddCaptureDependencies = 0x0,
    cudaStreamSetCaptureDependencies = 0x1
};
enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0x00,
    cudaGraphNodeTypeMemcpy = 0x01,
    cudaGraphNodeTypeMemset = 0x02,
    cudaGraphNodeTypeHost = 0x03,
    cudaGraphNodeTypeGraph = 0x04,
    cudaGraphNodeTypeEmpty = 0x05,
    cudaGraphNodeTypeWaitEvent = 0x06,
    cudaGraphNodeTypeEventRecord = 0x07,
    cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
    cudaGraphNodeTypeExtSemaphoreWait = 0x09,
    cudaGraphNodeTypeMemAlloc = 0x0a,
    cudaGraphNodeTypeMemFree = 0x0b,
    cudaGraphNodeTypeConditional = 0x0d,
    cudaGraphNodeTypeCount
};
enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0x0,
    cudaGraphExecUpdateError = 0x1,
    cudaGraphExecUpdateErrorTopologyChanged = 0x2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
    cudaGraphExecUpdateErrorFunctionChanged = 0x4,
    cudaGraphExecUpdateErrorParametersChanged = 0x5,
    cudaGraphExecUpdateErrorNotSupported = 0x6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    cudaGraphExecUpdateErrorAttributesChanged = 0x8
};
enum cudaGraphInstantiateFlags {
    cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
    cudaGraphInstantiateFlagUpload = 2,
    cudaGraphInstantiateFlagDeviceLaunch = 4,
    cudaGraphInstantiateFlagUseNodePriority = 8
};
typedef enum cudaGraphInstantiateResult {
    cudaGraphInstantiateSuccess = 0,
    cudaGraphInstantiateError = 1,
    cudaGraphInstantiateInvalidStructure = 2,
    cudaGraphInstantiateNodeOperationNotSupported = 3,
    cudaGraphInstantiateMultipleDevicesNotSupported = 4,
    cudaGraphInstantiateConditionalHandleUnused = 5
} cudaGraphInstantiateResult;
enum cudaGraphMemAttributeType {
    cudaGraphMemAttrUsedMemCurrent = 0x0,
    cudaGraphMemAttrUsedMemHigh = 0x1,
    cudaGraphMemAttrReservedMemCurrent = 0x2,
    cudaGraphMemAttrReservedMemHigh = 0x3
};
enum cudaGraphDebugDotFlags {
    cudaGraphDebugDotFlagsVerbose = 1 << 0,
    cudaGraphDebugDotFlagsKernelNodeParams = 1 << 2,
    cudaGraphDebugDotFlagsMemcpyNodeParams = 1 << 3,
    cudaGraphDebugDotFlagsMemsetNodeParams = 1 << 4,
    cudaGraphDebugDotFlagsHostNodeParams = 1 << 5,
    cudaGraphDebugDotFlagsEventNodeParams = 1 << 6,
    cudaGraphDebugDotFlagsExtSemasSignalNodeParams = 1 << 7,
    cudaGraphDebugDotFlagsExtSemasWaitNodeParams = 1 << 8,
    cudaGraphDebugDotFlagsKernelNodeAttributes = 1 << 9,
    cudaGraphDebugDotFlagsHandles = 1 << 10,
    cudaGraphDebugDotFlagsConditionalNodeParams = 1 << 15
};
typedef enum cudaGraphDependencyType_enum {
    cudaGraphDependencyTypeDefault = 0,
    cudaGraphDependencyTypeProgrammatic = 1
} cudaGraphDependencyType;

// ---- node parameters ---------------------------------------------------------------
// In a program built for the emulator, gridDim and blockDim are macros for
// calls of __cuemu_grid_dim() and __cuemu_block_dim() (builtins.h): params.gridDim
// becomes params.__cuemu_grid_dim(), which these member functions answer with
// the members themselves. The layout is CUDA's.
struct cudaKernelNodeParams {
    void* func;  // the kernel's address: (void*)kernel
    dim3 grid_dim_member;   // gridDim
    dim3 block_dim_member;  // blockDim
    unsigned int sharedMemBytes;
    void** kernelParams;  // kernelParams[i] points at the i-th argument
    void** extra;         // the driver's packed form: not emulated (must be null)

    dim3& __cuemu_grid_dim() { return grid_dim_member; }
    const dim3& __cuemu_grid_dim() const { return grid_dim_member; }
    dim3& __cuemu_block_dim() { return block_dim_member; }
    const dim3& __cuemu_block_dim() const { return block_dim_member; }
};
struct cudaMemsetParams {
    void* dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;  // 1, 2 or 4 bytes
    size_t width;              // in elements
    size_t height;             // rows, pitch bytes apart
};
struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void* userData;
};
// An allocation node's: poolProps, accessDescs and bytesize in; dptr out.
struct cudaMemAllocNodeParams {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc* accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void* dptr;
};
struct cudaMemFreeNodeParams {
    void* dptr;
};
typedef struct cudaGraphEdgeData_st {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;  // a cudaGraphDependencyType
    unsigned char reserved[5];
} cudaGraphEdgeData;
typedef struct cudaGraphExecUpdateResultInfo_st {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;

// ---- stream capture (src/graph_capture.cpp) ----------------------------------------
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
// Captures into `graph` (a graph of the caller's, a conditional node's body)
// after `dependencies`; cudaStreamEndCapture hands back that graph.
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* dependencies,
                                          const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                                          enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out = 0, cudaGraph_t* graph_out = 0,
                                     const cudaGraphNode_t** dependencies_out = 0,
                                     const cudaGraphEdgeData** edgeData_out = 0,
                                     size_t* numDependencies_out = 0);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const cudaGraphEdgeData* dependencyData,
                                                size_t numDependencies, unsigned int flags = 0);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode* mode);

// ---- graphs and their nodes (src/graphs.cpp) ---------------------------------------
cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams* pNodeParams,
                                   const char* cuemu_file = __builtin_FILE(),
                                   int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                         struct cudaKernelNodeParams* pNodeParams);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaKernelNodeParams* pNodeParams,
                                         const char* cuemu_file = __builtin_FILE(),
                                         int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     void* dst, const void* src, size_t count,
                                     enum cudaMemcpyKind kind,
                                     const char* cuemu_file = __builtin_FILE(),
                                     int cuemu_line = __builtin_LINE());
// Between pitched pointers only (a CUDA array is not emulated here; textures.h
// has the parameters' type).
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const struct cudaMemcpy3DParms* pCopyParams);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams* pMemsetParams);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams* pNodeParams);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t* pDependencies, size_t numDependencies);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                                     size_t numDependencies);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* pRootNodes,
                                  size_t* pNumRootNodes);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType* pType);
// The graph's edges and a node's neighbours, as CUDA 13 gives them (edge data,
// where asked for, is every edge's default: all zero). With a null array,
// the count; else up to *count of them, the rest of the array nulled.
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* edgeData, size_t* numEdges);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* pDependencies,
                                         cudaGraphEdgeData* edgeData, size_t* pNumDependencies);
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* pDependentNodes,
                                           cudaGraphEdgeData* edgeData, size_t* pNumDependentNodes);
// Removes the node and its edges; executable graphs made before keep their copy.
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node);
// The node of a cudaGraphClone copy that stands for originalNode.
cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* pNode, cudaGraphNode_t originalNode,
                                     cudaGraph_t clonedGraph);

// ---- executable graphs (src/graphs.cpp) --------------------------------------------
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams* pNodeParams,
                                             const char* cuemu_file = __builtin_FILE(),
                                             int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo* resultInfo);
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long* flags);

// ---- node parameters, event and child graph nodes (src/graph_nodes.cpp) --------------
// GetParams answers for nodes added by hand (a captured node keeps its work,
// not its parameters: cudaErrorNotSupported with a line). The Exec forms
// change one executable graph's next launches, one-row copies and fills only.
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms* pNodeParams);
cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms* pNodeParams);
cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src, size_t count,
                                           enum cudaMemcpyKind kind,
                                           const char* cuemu_file = __builtin_FILE(),
                                           int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams* pNodeParams);
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams* pNodeParams);
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams* pNodeParams);
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams* pNodeParams);
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms* pNodeParams);
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst,
                                               const void* src, size_t count, enum cudaMemcpyKind kind,
                                               const char* cuemu_file = __builtin_FILE(),
                                               int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams* pNodeParams);
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams* pNodeParams);
// Event nodes record or wait for their event at each launch, in stream order.
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                        cudaEvent_t event);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                      cudaEvent_t event);
cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out);
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out);
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                 cudaEvent_t event);
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               cudaEvent_t event);
// The child graph is copied into the node, as CUDA clones it.
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph);
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* pGraph);
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                 cudaGraph_t childGraph);
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                                        size_t numDependencies);
// Kernel, memcpy and memset nodes of an executable graph may be disabled.
cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int* isEnabled);
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int isEnabled);
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int flags);

// ---- memory nodes (src/graph_memory.cpp) ---------------------------------------------
// An allocation node's memory is device memory made when the node is added:
// its address (nodeParams->dptr) is the same at every launch.
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams* nodeParams,
                                     const char* cuemu_file = __builtin_FILE(),
                                     int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dptr);
cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams* params_out);
cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out);
cudaError_t cudaDeviceGraphMemTrim(int device);
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value);
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value);

// ---- the generic node calls of CUDA 12.2+ (src/graph_generic.cpp) -------------------
// cudaGraphAddNode, cudaGraphNodeSetParams and cudaGraphExecNodeSetParams take
// a tagged union and do what the per-type call does (kernel, memcpy, memset,
// host, child graph, empty, event record and wait, memory alloc and free,
// conditional nodes); external semaphore nodes are refused with
// cudaErrorNotSupported and a line. Layouts are CUDA 13.0's.
typedef unsigned long long cudaGraphConditionalHandle;
enum cudaGraphConditionalHandleFlags { cudaGraphCondAssignDefault = 1 };
enum cudaGraphConditionalNodeType {
    cudaGraphCondTypeIf = 0,
    cudaGraphCondTypeWhile = 1,
    cudaGraphCondTypeSwitch = 2
};
struct cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    enum cudaGraphConditionalNodeType type;
    unsigned int size;          // bodies: 1 for while, 1 or 2 for if, any for switch
    cudaGraph_t* phGraph_out;   // the bodies, made by the call and owned by the node
};
struct cudaKernelNodeParamsV2 {  // cudaKernelNodeParams's layout (gridDim: see there)
    void* func;
    dim3 grid_dim_member;
    dim3 block_dim_member;
    unsigned int sharedMemBytes;
    void** kernelParams;
    void** extra;

    dim3& __cuemu_grid_dim() { return grid_dim_member; }
    const dim3& __cuemu_grid_dim() const { return grid_dim_member; }
    dim3& __cuemu_block_dim() { return block_dim_member; }
    const dim3& __cuemu_block_dim() const { return block_dim_member; }
};
struct cudaMemcpyNodeParams {
    int flags;  // must be 0
    int reserved[3];
    struct cudaMemcpy3DParms copyParams;
};
struct cudaMemsetParamsV2 {
    void* dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
};
struct cudaHostNodeParamsV2 {
    cudaHostFn_t fn;
    void* userData;
};
enum cudaGraphChildGraphNodeOwnership {
    cudaGraphChildGraphOwnershipClone = 0,  // the node holds a copy (as cudaGraphAddChildGraphNode)
    cudaGraphChildGraphOwnershipMove = 1    // the node takes the graph itself
};
struct cudaChildGraphNodeParams {
    cudaGraph_t graph;
    enum cudaGraphChildGraphNodeOwnership ownership;
};
struct cudaEventRecordNodeParams {
    cudaEvent_t event;
};
struct cudaEventWaitNodeParams {
    cudaEvent_t event;
};
struct cudaMemAllocNodeParamsV2 {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc* accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void* dptr;  // out
};
struct cudaGraphNodeParams {
    enum cudaGraphNodeType type;
    int reserved0[3];  // must be zero
    union {
        long long reserved1[29];
        struct cudaKernelNodeParamsV2 kernel;
        struct cudaMemcpyNodeParams memcpy;
        struct cudaMemsetParamsV2 memset;
        struct cudaHostNodeParamsV2 host;
        struct cudaChildGraphNodeParams graph;
        struct cudaEventWaitNodeParams eventWait;
        struct cudaEventRecordNodeParams eventRecord;
        struct cudaExternalSemaphoreSignalNodeParamsV2 extSemSignal;  // refused: not emulated
        struct cudaExternalSemaphoreWaitNodeParamsV2 extSemWait;      // refused: not emulated
        struct cudaMemAllocNodeParamsV2 alloc;
        struct cudaMemFreeNodeParams free;
        struct cudaConditionalNodeParams conditional;
    };
    long long reserved2;  // must be zero
};
typedef struct cudaGraphInstantiateParams_st {
    unsigned long long flags;
    cudaStream_t uploadStream;
    cudaGraphNode_t errNode_out;
    cudaGraphInstantiateResult result_out;
} cudaGraphInstantiateParams;
cudaError_t cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData,
                             size_t numDependencies, struct cudaGraphNodeParams* nodeParams,
                             const char* cuemu_file = __builtin_FILE(), int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams* nodeParams,
                                   const char* cuemu_file = __builtin_FILE(),
                                   int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                       struct cudaGraphNodeParams* nodeParams,
                                       const char* cuemu_file = __builtin_FILE(),
                                       int cuemu_line = __builtin_LINE());
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* instantiateParams);

// ---- conditional nodes (src/graph_conditional.cpp) ------------------------------------
// A handle is made for a graph; a conditional node (cudaGraphAddNode with
// cudaGraphNodeTypeConditional) of that graph or of a body inside it reads
// its value when it runs: IF runs body 0 when it is not zero (body 1, where
// size is 2, when it is), WHILE runs body 0 while it is not zero, SWITCH runs
// body n for the value n (none when n >= size). Kernels set the value with
// cudaGraphSetConditional; with cudaGraphCondAssignDefault each launch of the
// graph first sets it to defaultLaunchValue.
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* pHandle_out, cudaGraph_t graph,
                                             unsigned int defaultLaunchValue = 0, unsigned int flags = 0);
namespace cuemu {
void set_conditional(cudaGraphConditionalHandle handle, unsigned int value);
}  // namespace cuemu
// Device code: the handle's value from now on (CUDA: racing calls are undefined).
inline void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value) {
    ::cuemu::set_conditional(handle, value);
}

// ---- kernel node attributes (src/graph_attributes.cpp) -------------------------------
// CUDA's launch attribute types (the kernel node's names are macros for them,
// as in CUDA). Performance hints are kept and read back; an attribute whose
// effect the emulator does not have is refused when set (cudaErrorNotSupported
// and a line), never kept and ignored.
enum cudaAccessProperty {
    cudaAccessPropertyNormal = 0,
    cudaAccessPropertyStreaming = 1,
    cudaAccessPropertyPersisting = 2
};
struct cudaAccessPolicyWindow {
    void* base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp;
    enum cudaAccessProperty missProp;
};
enum cudaSynchronizationPolicy {
    cudaSyncPolicyAuto = 1,
    cudaSyncPolicySpin = 2,
    cudaSyncPolicyYield = 3,
    cudaSyncPolicyBlockingSync = 4
};
enum cudaClusterSchedulingPolicy {
    cudaClusterSchedulingPolicyDefault = 0,
    cudaClusterSchedulingPolicySpread = 1,
    cudaClusterSchedulingPolicyLoadBalancing = 2
};
typedef enum cudaLaunchMemSyncDomain {
    cudaLaunchMemSyncDomainDefault = 0,
    cudaLaunchMemSyncDomainRemote = 1
} cudaLaunchMemSyncDomain;
typedef struct cudaLaunchMemSyncDomainMap_st {
    unsigned char default_;
    unsigned char remote;
} cudaLaunchMemSyncDomainMap;
typedef struct CUgraphDeviceUpdatableNode_st* cudaGraphDeviceNode_t;
typedef enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8,
    cudaLaunchAttributeMemSyncDomainMap = 9,
    cudaLaunchAttributeMemSyncDomain = 10,
    cudaLaunchAttributePreferredClusterDimension = 11,
    cudaLaunchAttributeLaunchCompletionEvent = 12,
    cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
    cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
    cudaLaunchAttributeNvlinkUtilCentricScheduling = 16
} cudaLaunchAttributeID;
typedef union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    enum cudaSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } clusterDim;
    enum cudaClusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct {
        cudaEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
    cudaLaunchMemSyncDomainMap memSyncDomainMap;
    cudaLaunchMemSyncDomain memSyncDomain;
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } preferredClusterDim;
    struct {
        cudaEvent_t event;
        int flags;
    } launchCompletionEvent;
    struct {
        int deviceUpdatable;
        cudaGraphDeviceNode_t devNode;
    } deviceUpdatableKernelNode;
    unsigned int sharedMemCarveout;
    unsigned int nvlinkUtilCentricScheduling;
} cudaLaunchAttributeValue;
#define cudaKernelNodeAttrID cudaLaunchAttributeID
#define cudaKernelNodeAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaKernelNodeAttributeCooperative cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority cudaLaunchAttributePriority
#define cudaKernelNodeAttributeClusterDimension cudaLaunchAttributeClusterDimension
#define cudaKernelNodeAttributeClusterSchedulingPolicyPreference \
    cudaLaunchAttributeClusterSchedulingPolicyPreference
#define cudaKernelNodeAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaKernelNodeAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaKernelNodeAttributePreferredSharedMemoryCarveout cudaLaunchAttributePreferredSharedMemoryCarveout
#define cudaKernelNodeAttributeDeviceUpdatableKernelNode cudaLaunchAttributeDeviceUpdatableKernelNode
#define cudaKernelNodeAttributeNvlinkUtilCentricScheduling cudaLaunchAttributeNvlinkUtilCentricScheduling
#define cudaKernelNodeAttrValue cudaLaunchAttributeValue
cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                            cudaKernelNodeAttrValue* value_out);
cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                            const cudaKernelNodeAttrValue* value);
cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc);

// ---- user objects (src/graph_user_objects.cpp) -----------------------------------------
// A user object is a destructor and a reference count: references are owned by
// the caller, by graphs (cudaGraphRetainUserObject, cloned with the graph) and
// by executable graphs (those of the graph and its child graphs, taken at
// instantiation). The destructor runs once, when the last reference goes; an
// executable graph's references go after its last launch's work is done.
typedef struct CUuserObject_st* cudaUserObject_t;
enum cudaUserObjectFlags { cudaUserObjectNoDestructorSync = 0x1 };
enum cudaUserObjectRetainFlags { cudaGraphUserObjectMove = 0x1 };
cudaError_t cudaUserObjectCreate(cudaUserObject_t* object_out, void* ptr, cudaHostFn_t destroy,
                                 unsigned int initialRefcount, unsigned int flags);
cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count = 1);
cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count = 1);
cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                      unsigned int count = 1, unsigned int flags = 0);
cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                       unsigned int count = 1);

// ---- memcpy nodes to and from symbols (src/graph_nodes.cpp) ---------------------------
// As cudaMemcpyToSymbol (runtime.h): the symbol is passed by reference, its
// size bounds offset + count. The node is an ordinary 1D memcpy node.
namespace cuemu {
// Checks a copy to or from a symbol as cudaMemcpyToSymbol does and gives the
// copy's ends (*dst, *src).
cudaError_t symbol_copy_ends(void* symbol, std::size_t symbol_size, std::size_t offset, void* other,
                             std::size_t count, cudaMemcpyKind kind, bool to_symbol, void** dst,
                             const void** src);
// node/exec null: a new node (Add); node set, exec null: SetParams; both: Exec SetParams.
cudaError_t graph_symbol_copy(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                              const cudaGraphNode_t* pDependencies, size_t numDependencies,
                              cudaGraphExec_t exec, cudaGraphNode_t node, void* symbol,
                              std::size_t symbol_size, std::size_t offset, void* other,
                              std::size_t count, cudaMemcpyKind kind, bool to_symbol);
}  // namespace cuemu
template <class T>
inline cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t* pDependencies,
                                                  size_t numDependencies, const T& symbol,
                                                  const void* src, size_t count, size_t offset = 0,
                                                  cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return ::cuemu::graph_symbol_copy(pGraphNode, graph, pDependencies, numDependencies, nullptr,
                                      nullptr, const_cast<T*>(&symbol), sizeof(T), offset,
                                      const_cast<void*>(src), count, kind, true);
}
template <class T>
inline cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                                    const cudaGraphNode_t* pDependencies,
                                                    size_t numDependencies, void* dst, const T& symbol,
                                                    size_t count, size_t offset = 0,
                                                    cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return ::cuemu::graph_symbol_copy(pGraphNode, graph, pDependencies, numDependencies, nullptr,
                                      nullptr, const_cast<T*>(&symbol), sizeof(T), offset, dst,
                                      count, kind, false);
}
template <class T>
inline cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const T& symbol,
                                                        const void* src, size_t count,
                                                        size_t offset = 0,
                                                        cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return ::cuemu::graph_symbol_copy(nullptr, nullptr, nullptr, 0, nullptr, node,
                                      const_cast<T*>(&symbol), sizeof(T), offset,
                                      const_cast<void*>(src), count, kind, true);
}
template <class T>
inline cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void* dst,
                                                          const T& symbol, size_t count,
                                                          size_t offset = 0,
                                                          cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return ::cuemu::graph_symbol_copy(nullptr, nullptr, nullptr, 0, nullptr, node,
                                      const_cast<T*>(&symbol), sizeof(T), offset, dst, count, kind,
                                      false);
}
template <class T>
inline cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
                                                            cudaGraphNode_t node, const T& symbol,
                                                            const void* src, size_t count,
                                                            size_t offset = 0,
                                                            cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return ::cuemu::graph_symbol_copy(nullptr, nullptr, nullptr, 0, hGraphExec, node,
                                      const_cast<T*>(&symbol), sizeof(T), offset,
                                      const_cast<void*>(src), count, kind, true);
}
template <class T>
inline cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                              cudaGraphNode_t node, void* dst,
                                                              const T& symbol, size_t count,
                                                              size_t offset = 0,
                                                              cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return ::cuemu::graph_symbol_copy(nullptr, nullptr, nullptr, 0, hGraphExec, node,
                                      const_cast<T*>(&symbol), sizeof(T), offset, dst, count, kind,
                                      false);
}

// ---- not emulated ------------------------------------------------------------------
// Each fails to build with a line naming it (the pattern of not_emulated.h).
#define CUEMU_GRAPH_CALL_NOT_EMULATED(name)                                               \
    template <class... A>                                                                 \
    cudaError_t name(A&&...) {                                                            \
        static_assert(::cuemu::graph_call_refused<A...>,                                  \
                      "cuemu does not emulate " #name " (CUDA graphs: the emulator has "  \
                      "stream capture and every node type but external semaphores); "  \
                      "build this program with nvcc for a GPU");                          \
        return cudaErrorNotSupported;                                                     \
    }
namespace cuemu {
template <class...>
constexpr bool graph_call_refused = false;
}  // namespace cuemu
CUEMU_GRAPH_CALL_NOT_EMULATED(cudaGraphAddExternalSemaphoresSignalNode)
CUEMU_GRAPH_CALL_NOT_EMULATED(cudaGraphAddExternalSemaphoresWaitNode)
CUEMU_GRAPH_CALL_NOT_EMULATED(cudaGraphExternalSemaphoresSignalNodeGetParams)
CUEMU_GRAPH_CALL_NOT_EMULATED(cudaGraphExternalSemaphoresSignalNodeSetParams)
CUEMU_GRAPH_CALL_NOT_EMULATED(cudaGraphExternalSemaphoresWaitNodeGetParams)
CUEMU_GRAPH_CALL_NOT_EMULATED(cudaGraphExternalSemaphoresWaitNodeSetParams)
CUEMU_GRAPH_CALL_NOT_EMULATED(cudaGraphExecExternalSemaphoresSignalNodeSetParams)
CUEMU_GRAPH_CALL_NOT_EMULATED(cudaGraphExecExternalSemaphoresWaitNodeSetParams)
#undef CUEMU_GRAPH_CALL_NOT_EMULATED

#endif
