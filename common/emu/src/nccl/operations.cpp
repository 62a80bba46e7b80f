// operations.cpp - the emulator's NCCL calls that move data (ncclAllReduce,
// ncclBroadcast, ncclReduce, ncclAllGather, ncclReduceScatter, ncclSend,
// ncclRecv) and group calls: each call's arguments checked as NCCL checks
// them, then queued on the stream as one piece of device work
// (meetings.cpp does it when the stream gets there).
//
// Decisions:
//   - Between ncclGroupStart and ncclGroupEnd the calls are kept, and
//     ncclGroupEnd queues each rank's calls on a stream as one piece of work,
//     so that a rank's sends and receives of a group wait for their peers
//     together (a ring of sends and receives then cannot wait on itself).
//   - A buffer must be live device memory of the communicator's device
//     (cudaMalloc, cudaMallocManaged on that device) holding every element
//     the call touches; anything else is a report and ncclInvalidArgument
//     (NCCL's pointer check answers the same).
//   - The stream must belong to the communicator's device; 0 is that
//     device's default stream, whichever device is current.
//   - A call with count 0 does nothing and queues nothing, as in NCCL.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "../internal.h"
#include "nccl_internal.h"

using namespace cuemu::nccl_detail;

namespace {

struct kept_call {
    ncclComm_t comm;
    cudaStream_t stream;
    operation op;
};
thread_local int group_depth = 0;
thread_local std::vector<kept_call> kept_calls;
thread_local std::vector<std::pair<ncclComm_t, call_site>> forming_in_group;

std::string where(const call_site& at) {
    return std::string(at.call) + " at " + at.file + ":" + std::to_string(at.line);
}

ncclResult_t refuse(const call_site& at, ncclResult_t result, const std::string& why) {
    report("cuemu: " + where(at) + ": " + why + "\n  " + at.call + " returns " +
           (result == ncclInvalidUsage ? "ncclInvalidUsage" : "ncclInvalidArgument") + "\n");
    return result;
}

// A buffer of `count` elements that the call reads or writes.
ncclResult_t check_buffer(const call_site& at, ncclComm_t comm, const char* name, const void* p,
                          std::size_t count, std::size_t element) {
    const std::size_t bytes = count * element;
    if (!p) return refuse(at, ncclInvalidArgument, std::string(name) + " is NULL");
    const int owner = cuemu::detail::device_of_pointer(p);
    char text[400];
    if (owner < 0) {
        std::snprintf(text, sizeof text,
                      "%s %p is not device memory (NCCL moves data between devices: allocate it "
                      "with cudaMalloc on device %d, rank %d's device)",
                      name, p, comm->device, comm->rank);
        return refuse(at, ncclInvalidArgument, text);
    }
    if (owner != comm->device) {
        std::snprintf(text, sizeof text,
                      "%s %p is memory of device %d, but the communicator's rank %d uses device %d",
                      name, p, owner, comm->rank, comm->device);
        return refuse(at, ncclInvalidArgument, text);
    }
    if (!cuemu::detail::is_device_range(p, bytes)) {
        std::snprintf(text, sizeof text,
                      "%s %p does not hold the %zu bytes the call touches (its allocation ends "
                      "before that)",
                      name, p, bytes);
        return refuse(at, ncclInvalidArgument, text);
    }
    return ncclSuccess;
}

ncclResult_t check_operation(ncclComm_t comm, const operation& op) {
    const call_site& at = op.at;
    const int nranks = comm->ranks->nranks;
    const std::size_t element = type_size(op.type);
    if (element == 0)
        return refuse(at, ncclInvalidArgument,
                      std::string("datatype ") + type_name(op.type) + " (" + std::to_string(op.type) +
                          ") is not one the emulator's NCCL has (8-bit floats are not emulated)");
    const bool reduces = op.kind == op_kind::all_reduce || op.kind == op_kind::reduce ||
                         op.kind == op_kind::reduce_scatter;
    if (reduces && (op.op < ncclSum || op.op > ncclAvg))
        return refuse(at, ncclInvalidArgument,
                      "op " + std::to_string(op.op) + " is not ncclSum, ncclProd, ncclMax, ncclMin or ncclAvg");
    const bool rooted = op.kind == op_kind::broadcast || op.kind == op_kind::reduce;
    if (rooted && (op.root < 0 || op.root >= nranks))
        return refuse(at, ncclInvalidArgument,
                      "root " + std::to_string(op.root) + " is not a rank of this communicator (0 to " +
                          std::to_string(nranks - 1) + ")");
    if (is_point_to_point(op.kind) && (op.peer < 0 || op.peer >= nranks))
        return refuse(at, ncclInvalidArgument,
                      "peer " + std::to_string(op.peer) + " is not a rank of this communicator (0 to " +
                          std::to_string(nranks - 1) + ")");
    const bool is_root = op.root == comm->rank;
    const std::size_t all = op.count * static_cast<std::size_t>(nranks);
    switch (op.kind) {
        case op_kind::all_reduce:
            if (ncclResult_t r = check_buffer(at, comm, "sendbuff", op.send, op.count, element)) return r;
            return check_buffer(at, comm, "recvbuff", op.recv, op.count, element);
        case op_kind::broadcast:
            if (is_root)
                if (ncclResult_t r = check_buffer(at, comm, "sendbuff", op.send, op.count, element)) return r;
            return check_buffer(at, comm, "recvbuff", op.recv, op.count, element);
        case op_kind::reduce:
            if (ncclResult_t r = check_buffer(at, comm, "sendbuff", op.send, op.count, element)) return r;
            return is_root ? check_buffer(at, comm, "recvbuff", op.recv, op.count, element) : ncclSuccess;
        case op_kind::all_gather:
            if (ncclResult_t r = check_buffer(at, comm, "sendbuff", op.send, op.count, element)) return r;
            return check_buffer(at, comm, "recvbuff", op.recv, all, element);
        case op_kind::reduce_scatter:
            if (ncclResult_t r = check_buffer(at, comm, "sendbuff", op.send, all, element)) return r;
            return check_buffer(at, comm, "recvbuff", op.recv, op.count, element);
        case op_kind::send:
            return check_buffer(at, comm, "sendbuff", op.send, op.count, element);
        case op_kind::recv:
            return check_buffer(at, comm, "recvbuff", op.recv, op.count, element);
    }
    return ncclSuccess;
}

// Queues one rank's operations on its stream, as one piece of device work.
ncclResult_t submit(ncclComm_t comm, cudaStream_t stream, std::vector<operation> ops) {
    using namespace cuemu::detail;
    const call_site& at = ops.front().at;
    // 0 and the other default handles name the current device's default
    // stream; the rank's is meant, so the rank's device is made current meanwhile.
    const int previous = current_device();
    set_current_device(comm->device);
    struct restore_device {
        int device;
        ~restore_device() { set_current_device(device); }
    } restore{previous};
    if (!is_valid_stream(stream))
        return refuse(at, ncclInvalidArgument, "the stream was destroyed (or never created)");
    if (stream_device(stream) != comm->device)
        return refuse(at, ncclInvalidArgument,
                      "the stream belongs to device " + std::to_string(stream_device(stream)) +
                          ", but rank " + std::to_string(comm->rank) + " uses device " +
                          std::to_string(comm->device));
    if (context_status() != cudaSuccess) return ncclUnhandledCudaError;
    if (ncclResult_t r = wait_until_formed(comm, at)) return r;
    work_label label;
    label.category = "nccl";
    label.name = ops.size() == 1 ? call_name(ops.front().kind) : "NCCL group";
    if (comm->across_processes) {
        // Numbered only: these ranks meet on the board (processes.cpp), not in
        // this process's meetings.
        {
            std::lock_guard<std::mutex> lock(comm->ranks->mutex);
            clique& c = *comm->ranks;
            for (operation& op : ops) {
                if (op.kind == op_kind::send) op.seq = c.sends_issued[comm->rank][op.peer]++;
                else if (op.kind == op_kind::recv) op.seq = c.recvs_issued[comm->rank][op.peer]++;
                else op.seq = c.collectives_issued[comm->rank]++;
            }
        }
        enqueue(stream,
                [board = comm->board, ranks = comm->ranks, rank = comm->rank,
                 ops = std::move(ops)](std::uint64_t) {
                    return run_across_processes(board, ranks, rank, ops);
                },
                std::move(label));
        return ncclSuccess;
    }
    note_issued(*comm->ranks, comm->rank, ops);
    enqueue(stream,
            [ranks = comm->ranks, rank = comm->rank, ops = std::move(ops)](std::uint64_t) {
                return run_operations(ranks, rank, ops);
            },
            std::move(label));
    return ncclSuccess;
}

ncclResult_t issue(ncclComm_t comm, cudaStream_t stream, const operation& op) {
    if (ncclResult_t r = check_comm(comm, op.at)) return r;
    if (op.count == 0) return ncclSuccess;
    if (ncclResult_t r = check_operation(comm, op)) return r;
    if (group_depth > 0) {
        kept_calls.push_back({comm, stream, op});
        return ncclSuccess;
    }
    return submit(comm, stream, {op});
}

// What one call asks for; `settings` sets the fields only some calls have
// (the reduction's op, the root, the peer).
template <class Settings>
ncclResult_t issue_call(const char* call, const char* file, int line, op_kind kind, const void* send,
                        void* recv, std::size_t count, ncclDataType_t type, ncclComm_t comm,
                        cudaStream_t stream, Settings settings) {
    operation op;
    op.kind = kind;
    op.send = send;
    op.recv = recv;
    op.count = count;
    op.type = type;
    op.at = call_site{call, file, line};
    settings(op);
    return issue(comm, stream, op);
}

}  // namespace

namespace cuemu::nccl_detail {

const char* call_name(op_kind kind) {
    switch (kind) {
        case op_kind::all_reduce: return "ncclAllReduce";
        case op_kind::broadcast: return "ncclBroadcast";
        case op_kind::reduce: return "ncclReduce";
        case op_kind::all_gather: return "ncclAllGather";
        case op_kind::reduce_scatter: return "ncclReduceScatter";
        case op_kind::send: return "ncclSend";
        case op_kind::recv: return "ncclRecv";
    }
    return "";
}

bool is_point_to_point(op_kind kind) { return kind == op_kind::send || kind == op_kind::recv; }

bool in_group() { return group_depth > 0; }

void defer_formation(ncclComm_t comm, const call_site& at) { forming_in_group.emplace_back(comm, at); }

}  // namespace cuemu::nccl_detail

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream, const char* cuemu_file, int cuemu_line) {
    return issue_call("ncclAllReduce", cuemu_file, cuemu_line, op_kind::all_reduce, sendbuff, recvbuff,
                      count, datatype, comm, stream, [&](operation& o) { o.op = op; });
}

ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream,
                           const char* cuemu_file, int cuemu_line) {
    return issue_call("ncclBroadcast", cuemu_file, cuemu_line, op_kind::broadcast, sendbuff, recvbuff,
                      count, datatype, comm, stream, [&](operation& o) { o.root = root; });
}

// The in-place form of ncclBroadcast.
ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root,
                       ncclComm_t comm, cudaStream_t stream, const char* cuemu_file,
                       int cuemu_line) {
    return issue_call("ncclBcast", cuemu_file, cuemu_line, op_kind::broadcast, buff, buff, count,
                      datatype, comm, stream, [&](operation& o) { o.root = root; });
}

ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                        cudaStream_t stream, const char* cuemu_file, int cuemu_line) {
    return issue_call("ncclReduce", cuemu_file, cuemu_line, op_kind::reduce, sendbuff, recvbuff, count,
                      datatype, comm, stream, [&](operation& o) {
                          o.op = op;
                          o.root = root;
                      });
}

ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream,
                           const char* cuemu_file, int cuemu_line) {
    return issue_call("ncclAllGather", cuemu_file, cuemu_line, op_kind::all_gather, sendbuff, recvbuff,
                      sendcount, datatype, comm, stream, [](operation&) {});
}

ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream, const char* cuemu_file, int cuemu_line) {
    return issue_call("ncclReduceScatter", cuemu_file, cuemu_line, op_kind::reduce_scatter, sendbuff,
                      recvbuff, recvcount, datatype, comm, stream, [&](operation& o) { o.op = op; });
}

ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream, const char* cuemu_file,
                      int cuemu_line) {
    return issue_call("ncclSend", cuemu_file, cuemu_line, op_kind::send, sendbuff, nullptr, count,
                      datatype, comm, stream, [&](operation& o) { o.peer = peer; });
}

ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream, const char* cuemu_file,
                      int cuemu_line) {
    return issue_call("ncclRecv", cuemu_file, cuemu_line, op_kind::recv, nullptr, recvbuff, count,
                      datatype, comm, stream, [&](operation& o) { o.peer = peer; });
}

ncclResult_t ncclGroupStart(const char*, int) {
    ++group_depth;
    return ncclSuccess;
}

// The kept calls of each (communicator, stream), in call order, become one
// piece of work on that stream.
ncclResult_t ncclGroupEnd(const char* cuemu_file, int cuemu_line) {
    if (group_depth == 0) {
        report(std::string("cuemu: ncclGroupEnd at ") + cuemu_file + ":" + std::to_string(cuemu_line) +
               ": no ncclGroupStart before it\n  ncclGroupEnd returns ncclInvalidUsage\n");
        return ncclInvalidUsage;
    }
    if (--group_depth > 0) return ncclSuccess;
    std::vector<kept_call> calls = std::move(kept_calls);
    std::vector<std::pair<ncclComm_t, call_site>> forming = std::move(forming_in_group);
    kept_calls.clear();
    forming_in_group.clear();
    ncclResult_t result = ncclSuccess;
    for (auto& [comm, at] : forming)
        if (ncclResult_t r = wait_until_formed(comm, at); r && !result) result = r;
    if (result) return result;
    std::vector<bool> taken(calls.size(), false);
    for (std::size_t k = 0; k < calls.size(); ++k) {
        if (taken[k]) continue;
        std::vector<operation> ops;
        for (std::size_t j = k; j < calls.size(); ++j) {
            if (taken[j] || calls[j].comm != calls[k].comm || calls[j].stream != calls[k].stream) continue;
            taken[j] = true;
            ops.push_back(calls[j].op);
        }
        if (ncclResult_t r = submit(calls[k].comm, calls[k].stream, std::move(ops)); r && !result) result = r;
    }
    return result;
}
