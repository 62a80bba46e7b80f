// nccl_internal.h - what the emulator's NCCL files share (src/nccl/):
// communicators and the group of ranks behind them (communicators.cpp), one
// rank's part of an operation (operations.cpp), the meeting of the ranks on
// the device threads (meetings.cpp), ranks that are processes
// (processes.cpp) and the arithmetic of the reductions (reductions.cpp).
#ifndef CUEMU_NCCL_INTERNAL_H
#define CUEMU_NCCL_INTERNAL_H

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "nccl.h"

namespace cuemu::nccl_detail {

struct call_site {
    const char* call = "";  // "ncclAllReduce": the name the program wrote
    const char* file = "";
    int line = 0;
};

enum class op_kind { all_reduce, broadcast, reduce, all_gather, reduce_scatter, send, recv };
const char* call_name(op_kind kind);
bool is_point_to_point(op_kind kind);

// One rank's part of a collective, a send or a receive, as the call gave it.
struct operation {
    op_kind kind = op_kind::all_reduce;
    const void* send = nullptr;
    void* recv = nullptr;
    std::size_t count = 0;  // per rank: sendcount of an all-gather, recvcount of a reduce-scatter
    ncclDataType_t type = ncclFloat;
    ncclRedOp_t op = ncclSum;
    int root = 0;
    int peer = -1;  // send and receive
    call_site at;
    // Its place: the rank's n-th collective of the communicator, or its n-th
    // transfer to (from) peer.
    std::uint64_t seq = 0;
};

// The ranks of a collective with the same seq, and what each brought.
struct collective_meeting {
    std::vector<bool> issued;          // the rank called it, at issued_at
    std::vector<call_site> issued_at;
    std::vector<bool> arrived;         // the rank's stream reached it
    std::vector<operation> parts;
    int arrived_count = 0;
    int seen_count = 0;                // ranks that woke to its end: erased at nranks
    bool done = false, failed = false;
    cudaError_t failure = cudaSuccess;  // what a failed one ends each rank's work with
};
// A send and the receive it matches: from -> to, the n-th between them.
struct transfer_meeting {
    bool send_issued = false, recv_issued = false;
    call_site send_at, recv_at;
    bool send_arrived = false, recv_arrived = false;
    operation send, recv;
    int seen_count = 0;
    bool done = false, failed = false;
    cudaError_t failure = cudaSuccess;
};
using transfer_key = std::tuple<int, int, std::uint64_t>;  // from, to, seq

// Every rank of one communicator (one unique id) shares this.
struct clique {
    std::uint64_t id_number = 0;
    int nranks = 0;
    std::mutex mutex;
    std::condition_variable changed;
    // Forming: ncclCommInitRank of each rank.
    std::vector<bool> joined;
    std::vector<int> devices;  // -1 until the rank joined
    std::vector<call_site> joined_at;
    int joined_count = 0;
    bool complete = false;
    bool failed = false;  // a rank's join was refused, or the wait timed out
    bool aborted = false;
    // Issued so far, per rank (and per peer for transfers).
    std::vector<std::uint64_t> collectives_issued;
    std::vector<std::vector<std::uint64_t>> sends_issued, recvs_issued;
    std::map<std::uint64_t, collective_meeting> collectives;
    std::map<transfer_key, transfer_meeting> transfers;
    std::vector<ncclResult_t> async_error;  // per rank
};

}  // namespace cuemu::nccl_detail

namespace cuemu::nccl_detail {
struct shared_board;  // processes.cpp
}

struct ncclComm {
    std::shared_ptr<cuemu::nccl_detail::clique> ranks;  // this process's ranks
    int rank = 0;
    int device = 0;
    // ncclCommInitRank's communicators: where ranks of every process meet
    // (null for ncclCommInitAll's); across_processes once ranks of other
    // processes joined it.
    cuemu::nccl_detail::shared_board* board = nullptr;
    bool across_processes = false;
    bool saw_formed = false;  // told the board (board_formed)
};

namespace cuemu::nccl_detail {

// communicators.cpp
// ncclSuccess for a live communicator; otherwise a line on stderr and
// ncclInvalidArgument.
ncclResult_t check_comm(ncclComm_t comm, const call_site& at);
// Waits until every rank of comm's clique joined; a report and
// ncclInvalidUsage when one never does (the watchdog) or a join was refused.
ncclResult_t wait_until_formed(ncclComm_t comm, const call_site& at);
// Remembers the report for ncclGetLastError and prints it.
void report(const std::string& text);

// operations.cpp: whether the calling thread is between ncclGroupStart and ncclGroupEnd.
bool in_group();
// A communicator ncclCommInitRank made inside a group: ncclGroupEnd waits for it.
void defer_formation(ncclComm_t comm, const call_site& at);

// meetings.cpp: the work the rank's stream runs for its operations, issued
// together (one call, or one group's calls of this rank on this stream). The
// clique's issued counters and meetings are updated before it is queued.
void note_issued(clique& c, int rank, std::vector<operation>& ops);
cudaError_t run_operations(const std::shared_ptr<clique>& c, int rank,
                           const std::vector<operation>& ops);

// meetings.cpp: what both kinds of meeting (ranks of one process, ranks in
// separate processes) share. do_collective does the collective whose parts
// (one per rank, in rank order, each with its send buffer readable) are
// given, writing each part's recv that is not null.
std::string describe(const operation& op);
bool parts_agree(const operation& a, const operation& b);
void do_collective(const std::vector<operation>& parts);

// processes.cpp: ranks in separate processes on one machine (mpirun). Every
// ncclCommInitRank also joins the id's board, a shared-memory segment: null
// and a report (the result in *result) when the board refuses the rank; null
// and ncclSuccess when there is no shared memory (ranks of one process only).
shared_board* join_board(long long creator, std::uint64_t number, int nranks, int rank,
                         const call_site& at, ncclResult_t* result);
struct board_view {
    int nranks = 0;
    bool failed = false;
    std::vector<long long> process;  // per rank: its process id, 0 while not joined
};
board_view look_at(shared_board* board);
void fail_board(shared_board* board);
// Every rank saw the communicator formed: the board's name can go.
void board_formed(shared_board* board);
// One rank's operations (collectives only) with the ranks of the other processes.
cudaError_t run_across_processes(shared_board* board, const std::shared_ptr<clique>& local,
                                 int rank, const std::vector<operation>& ops);

// reductions.cpp
std::size_t type_size(ncclDataType_t type);  // 0 for a type the emulator lacks
const char* type_name(ncclDataType_t type);
const char* op_name(ncclRedOp_t op);
// acc[i] = acc[i] op x[i], rounded to the type after each step.
void combine(void* acc, const void* x, std::size_t count, ncclDataType_t type, ncclRedOp_t op);
// acc[i] /= divisor (ncclAvg's last step).
void divide(void* acc, std::size_t count, ncclDataType_t type, int divisor);

}  // namespace cuemu::nccl_detail

#endif
