// communicators.cpp - the emulator's NCCL communicators: unique ids, the
// ranks joining one (ncclCommInitRank, ncclCommInitAll), what a communicator
// tells (rank, count, device, asynchronous error), its end (ncclCommDestroy,
// ncclCommFinalize, ncclCommAbort), and the library's version and result strings.
//
// Decisions:
//   - A rank is an emulated device of this process: the calling thread's
//     current device when it joins. Two ranks of one communicator on one
//     device are refused with ncclInvalidUsage, as NCCL refuses them.
//   - A unique id holds the id of the process that made it and a number.
//     Ranks of other processes (started by mpirun) join through the id's
//     board in shared memory (processes.cpp), one rank per process.
//   - A rank that never joins: the others wait CUEMU_WATCHDOG_SECONDS, then
//     a report names the ranks that joined and the call returns
//     ncclInvalidUsage (NCCL would wait for ever).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

#include "../internal.h"
#include "../watchdog.h"
#include "nccl_internal.h"

using namespace cuemu::nccl_detail;

namespace {

constexpr char id_magic[] = "cuemu-nccl-id";
struct id_contents {
    char magic[sizeof(id_magic)];
    long long process;
    std::uint64_t number;
};
static_assert(sizeof(id_contents) <= NCCL_UNIQUE_ID_BYTES, "an id must fit ncclUniqueId");

std::atomic<std::uint64_t> next_id_number{1};

std::mutex registry_mutex;
// Forming or formed, by the id's process and number (ncclCommInitAll's: process 0).
std::map<std::pair<long long, std::uint64_t>, std::shared_ptr<clique>> cliques_by_id;
std::set<ncclComm_t> live_comms;

std::mutex last_report_mutex;
std::string last_report;

std::string ranks_list(const std::vector<int>& ranks) {
    std::ostringstream out;
    for (std::size_t k = 0; k < ranks.size(); ++k) out << (k ? ", " : "") << ranks[k];
    return ranks.empty() ? "none" : out.str();
}

std::shared_ptr<clique> make_clique(std::uint64_t number, int nranks) {
    auto c = std::make_shared<clique>();
    c->id_number = number;
    c->nranks = nranks;
    c->joined.assign(nranks, false);
    c->devices.assign(nranks, -1);
    c->joined_at.assign(nranks, call_site{});
    c->collectives_issued.assign(nranks, 0);
    c->sends_issued.assign(nranks, std::vector<std::uint64_t>(nranks, 0));
    c->recvs_issued.assign(nranks, std::vector<std::uint64_t>(nranks, 0));
    c->async_error.assign(nranks, ncclSuccess);
    return c;
}

// One rank joins the clique of id number; a refused join fails the clique, so
// the ranks that joined before stop waiting.
ncclResult_t join(long long creator, std::uint64_t number, int nranks, int rank, int device,
                  const call_site& at, ncclComm_t* out) {
    std::shared_ptr<clique> c;
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        auto& slot = cliques_by_id[{creator, number}];
        if (!slot) slot = make_clique(number, nranks);
        c = slot;
    }
    std::unique_lock<std::mutex> lock(c->mutex);
    char why[320] = "";
    if (c->complete) {
        std::snprintf(why, sizeof why,
                      "this unique id already made a communicator whose %d ranks all joined; each "
                      "communicator needs a new id from ncclGetUniqueId",
                      c->nranks);
    } else if (c->nranks != nranks) {
        std::snprintf(why, sizeof why,
                      "rank %d says the communicator has %d ranks, but rank(s) that joined before "
                      "said %d",
                      rank, nranks, c->nranks);
    } else if (c->joined[rank]) {
        std::snprintf(why, sizeof why, "rank %d joined already, at %s:%d", rank,
                      c->joined_at[rank].file, c->joined_at[rank].line);
    } else {
        for (int r = 0; r < c->nranks; ++r)
            if (c->joined[r] && c->devices[r] == device)
                std::snprintf(why, sizeof why,
                              "rank %d and rank %d would both use device %d (NCCL: \"Duplicate "
                              "GPU detected\"); call cudaSetDevice before each rank joins",
                              r, rank, device);
    }
    if (why[0]) {
        c->failed = true;
        c->changed.notify_all();
        lock.unlock();
        report(std::string("cuemu: ") + at.call + " at " + at.file + ":" + std::to_string(at.line) +
               ": " + why + "\n  " + at.call + " returns ncclInvalidUsage\n");
        return ncclInvalidUsage;
    }
    c->joined[rank] = true;
    c->devices[rank] = device;
    c->joined_at[rank] = at;
    if (++c->joined_count == c->nranks) {
        c->complete = true;
        c->changed.notify_all();
    }
    lock.unlock();
    auto* comm = new ncclComm;
    comm->ranks = c;
    comm->rank = rank;
    comm->device = device;
    {
        std::lock_guard<std::mutex> registry(registry_mutex);
        live_comms.insert(comm);
    }
    *out = comm;
    return ncclSuccess;
}

ncclResult_t read_id(const ncclUniqueId& id, const call_site& at, long long* creator,
                     std::uint64_t* number) {
    id_contents contents;
    std::memcpy(&contents, id.internal, sizeof contents);
    if (std::memcmp(contents.magic, id_magic, sizeof id_magic) != 0) {
        report(std::string("cuemu: ") + at.call + " at " + at.file + ":" + std::to_string(at.line) +
               ": the ncclUniqueId was not made by ncclGetUniqueId\n  " + at.call +
               " returns ncclInvalidArgument\n");
        return ncclInvalidArgument;
    }
    *creator = contents.process;
    *number = contents.number;
    return ncclSuccess;
}

void release(ncclComm_t comm) {
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        live_comms.erase(comm);
    }
    delete comm;
}

}  // namespace

namespace cuemu::nccl_detail {

void report(const std::string& text) {
    {
        std::lock_guard<std::mutex> lock(last_report_mutex);
        last_report = text;
    }
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
}

ncclResult_t check_comm(ncclComm_t comm, const call_site& at) {
    if (comm) {
        std::lock_guard<std::mutex> lock(registry_mutex);
        if (live_comms.count(comm)) return ncclSuccess;
    }
    report(std::string("cuemu: ") + at.call + " at " + at.file + ":" + std::to_string(at.line) +
           ": " + (comm ? "the communicator was destroyed (or never made by ncclCommInitRank)"
                        : "the communicator is NULL") +
           "\n  " + at.call + " returns ncclInvalidArgument\n");
    return ncclInvalidArgument;
}

// The communicator is formed: every rank of this process joined, or (ranks in
// separate processes) every rank joined the board.
ncclResult_t wait_until_formed(ncclComm_t comm, const call_site& at) {
    clique& c = *comm->ranks;
    const double limit = cuemu::detail::configured_watchdog_seconds();
    const auto start = std::chrono::steady_clock::now();
    const std::string where = std::string("cuemu: ") + at.call + " at " + at.file + ":" +
                              std::to_string(at.line) + " (rank " + std::to_string(comm->rank) +
                              " of " + std::to_string(c.nranks) + ")";
    std::unique_lock<std::mutex> lock(c.mutex);
    for (;;) {
        if (c.complete) {
            if (comm->board && !comm->saw_formed) {
                comm->saw_formed = true;
                board_formed(comm->board);
            }
            return ncclSuccess;
        }
        if (c.failed) return ncclInvalidUsage;
        std::vector<int> joined, missing;
        for (int r = 0; r < c.nranks; ++r) (c.joined[r] ? joined : missing).push_back(r);
        if (comm->board) {
            const board_view view = look_at(comm->board);
            if (view.failed) {
                c.failed = true;
                c.changed.notify_all();
                return ncclInvalidUsage;
            }
            joined.clear();
            missing.clear();
            for (int r = 0; r < c.nranks; ++r) (view.process[r] ? joined : missing).push_back(r);
            if (missing.empty()) {  // ranks of other processes joined too
                if (c.joined_count != 1) {
                    c.failed = true;
                    c.changed.notify_all();
                    fail_board(comm->board);
                    report(where + ": this process has " + std::to_string(c.joined_count) +
                           " ranks of a communicator whose other ranks are other processes; the "
                           "emulator's NCCL has one rank per process then\n  " + at.call +
                           " returns ncclInvalidUsage\n");
                    return ncclInvalidUsage;
                }
                comm->across_processes = true;
                c.complete = true;
                continue;
            }
        }
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (limit > 0 && waited >= limit) {
            c.failed = true;
            c.changed.notify_all();
            if (comm->board) fail_board(comm->board);
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%g", limit);
            report(where + ": waited " + seconds + " s (CUEMU_WATCHDOG_SECONDS) for every rank to join\n" +
                   "  joined: rank(s) " + ranks_list(joined) + "\n  never joined: rank(s) " +
                   ranks_list(missing) +
                   "\n  every rank must call ncclCommInitRank with the same id (a thread per rank, "
                   "all of them between ncclGroupStart and ncclGroupEnd, or a process per rank); "
                   "NCCL would wait for ever\n  " + at.call + " returns ncclInvalidUsage\n");
            return ncclInvalidUsage;
        }
        // The board has no way to wake this thread: it is looked at every few milliseconds.
        c.changed.wait_for(lock, std::chrono::milliseconds(5));
    }
}

}  // namespace cuemu::nccl_detail

#define CALLED(name) const call_site at{name, cuemu_file, cuemu_line}

ncclResult_t ncclGetVersion(int* version) {
    if (!version) return ncclInvalidArgument;
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t result) {
    switch (result) {
        case ncclSuccess: return "no error";
        case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
        case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
        case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
        case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
        case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
        case ncclRemoteError: return "remote process exited or there was a network error";
        case ncclInProgress: return "NCCL operation in progress";
        default: return "unknown result code";
    }
}

const char* ncclGetLastError(ncclComm_t) {
    static thread_local std::string copy;
    std::lock_guard<std::mutex> lock(last_report_mutex);
    copy = last_report;
    return copy.c_str();
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* unique_id, const char*, int) {
    if (!unique_id) return ncclInvalidArgument;
    id_contents contents{};
    std::memcpy(contents.magic, id_magic, sizeof id_magic);
    contents.process = getpid();
    contents.number = next_id_number++;
    std::memset(unique_id->internal, 0, NCCL_UNIQUE_ID_BYTES);
    std::memcpy(unique_id->internal, &contents, sizeof contents);
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId comm_id, int rank,
                              const char* cuemu_file, int cuemu_line) {
    CALLED("ncclCommInitRank");
    if (!comm) return ncclInvalidArgument;
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        report(std::string("cuemu: ncclCommInitRank at ") + at.file + ":" + std::to_string(at.line) +
               ": rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
               " ranks (a rank goes from 0 to nranks - 1)\n  ncclCommInitRank returns "
               "ncclInvalidArgument\n");
        return ncclInvalidArgument;
    }
    long long creator = 0;
    std::uint64_t number = 0;
    if (ncclResult_t r = read_id(comm_id, at, &creator, &number)) return r;
    if (cuemu::detail::context_status() != cudaSuccess) return ncclUnhandledCudaError;
    if (ncclResult_t r = join(creator, number, nranks, rank, cuemu::detail::current_device(), at, comm))
        return r;
    ncclResult_t joined_board = ncclSuccess;
    (*comm)->board = join_board(creator, number, nranks, rank, at, &joined_board);
    if (joined_board != ncclSuccess) {
        release(*comm);
        *comm = nullptr;
        return joined_board;
    }
    if (in_group()) {
        defer_formation(*comm, at);
        return ncclSuccess;
    }
    return wait_until_formed(*comm, at);
}

ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist,
                             const char* cuemu_file, int cuemu_line) {
    CALLED("ncclCommInitAll");
    if (!comms || ndev < 1) return ncclInvalidArgument;
    for (int r = 0; r < ndev; ++r) {
        const int device = devlist ? devlist[r] : r;
        if (!cuemu::detail::is_valid_device(device)) {
            report(std::string("cuemu: ncclCommInitAll at ") + at.file + ":" + std::to_string(at.line) +
                   ": rank " + std::to_string(r) + "'s device " + std::to_string(device) +
                   " does not exist (the emulator has " + std::to_string(cuemu::detail::device_count()) +
                   " device(s); CUEMU_DEVICES sets how many)\n  ncclCommInitAll returns "
                   "ncclInvalidArgument\n");
            return ncclInvalidArgument;
        }
    }
    const std::uint64_t number = next_id_number++;
    for (int r = 0; r < ndev; ++r) {
        if (ncclResult_t e = join(0, number, ndev, r, devlist ? devlist[r] : r, at, &comms[r])) {
            for (int k = 0; k < r; ++k) release(comms[k]);
            return e;
        }
    }
    return ncclSuccess;
}

// The rank's queued operations are done when its device is idle.
ncclResult_t ncclCommFinalize(ncclComm_t comm, const char* cuemu_file, int cuemu_line) {
    CALLED("ncclCommFinalize");
    if (ncclResult_t r = check_comm(comm, at)) return r;
    cuemu::detail::drain_device(comm->device, "ncclCommFinalize");
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm, const char* cuemu_file, int cuemu_line) {
    CALLED("ncclCommDestroy");
    if (!comm) return ncclSuccess;  // as NCCL: destroying NULL does nothing
    if (ncclResult_t r = check_comm(comm, at)) return r;
    cuemu::detail::drain_device(comm->device, "ncclCommDestroy");
    release(comm);
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm, const char* cuemu_file, int cuemu_line) {
    CALLED("ncclCommAbort");
    if (!comm) return ncclSuccess;
    if (ncclResult_t r = check_comm(comm, at)) return r;
    {
        std::lock_guard<std::mutex> lock(comm->ranks->mutex);
        comm->ranks->aborted = true;
        comm->ranks->changed.notify_all();
    }
    release(comm);
    return ncclSuccess;
}

namespace {

// A question about a live communicator, answered into *out.
template <class T, class Read>
ncclResult_t answer(const call_site& at, ncclComm_t comm, T* out, Read read) {
    if (ncclResult_t r = check_comm(comm, at)) return r;
    if (!out) return ncclInvalidArgument;
    *out = read(*comm);
    return ncclSuccess;
}

}  // namespace

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* async_error,
                                   const char* cuemu_file, int cuemu_line) {
    return answer(call_site{"ncclCommGetAsyncError", cuemu_file, cuemu_line}, comm, async_error,
                  [](ncclComm& c) {
                      std::lock_guard<std::mutex> lock(c.ranks->mutex);
                      return c.ranks->async_error[c.rank];
                  });
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int* count, const char* cuemu_file,
                           int cuemu_line) {
    return answer(call_site{"ncclCommCount", cuemu_file, cuemu_line}, comm, count,
                  [](ncclComm& c) { return c.ranks->nranks; });
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device, const char* cuemu_file,
                              int cuemu_line) {
    return answer(call_site{"ncclCommCuDevice", cuemu_file, cuemu_line}, comm, device,
                  [](ncclComm& c) { return c.device; });
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank, const char* cuemu_file,
                              int cuemu_line) {
    return answer(call_site{"ncclCommUserRank", cuemu_file, cuemu_line}, comm, rank,
                  [](ncclComm& c) { return c.rank; });
}
