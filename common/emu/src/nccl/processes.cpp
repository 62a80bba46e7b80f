// processes.cpp - ranks of the emulator's NCCL that are separate processes
// on one machine (started by mpirun, one emulator each): the board where they
// meet and the collectives they do there.
//
// Decisions:
//   - The board is a POSIX shared-memory segment named after the unique id
//     (the process that made it and its number), made by the first rank to
//     join, with a process-shared mutex and condition variable. Every
//     ncclCommInitRank joins it, so a process cannot be told whether the
//     other ranks are its own threads or other processes; the segment's name
//     is removed once every rank saw the communicator formed.
//   - A communicator whose ranks are in several processes has one rank per
//     process (each process its own emulator and devices).
//   - A collective: each rank copies what it sends into a segment of its
//     own, posts what it asks for on the board and waits until every rank
//     posted; then each rank reads every rank's segment and computes its own
//     result in rank order (so every process gets the same bits, as the
//     ranks of one process do, meetings.cpp); a second wait keeps each
//     segment until every rank has read it. Parts that do not agree, and the
//     watchdog (CUEMU_WATCHDOG_SECONDS), are reported as in meetings.cpp.
//   - Two slots hold the posts: a rank can be at most one collective ahead
//     of the slowest (it cannot leave a collective before all ranks arrived).
//   - ncclSend: the rank copies its data into a segment of its own and posts
//     it for the peer; ncclRecv waits for the matching post, copies the data
//     and removes the segment; the send's part ends when its data was taken.
//     A rank's sends are posted before it does anything else of the same
//     piece of work, so a group's ring of sends and receives cannot wait on
//     itself.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <thread>

#include "../internal.h"
#include "../watchdog.h"
#include "nccl_internal.h"

namespace cuemu::nccl_detail {

constexpr int max_board_ranks = 32;
// Sends from one rank to another that may wait for their receives at once.
constexpr int transfers_in_flight = 8;

// One rank's post, as plain data (the board is shared between processes).
struct posted_part {
    int kind, type, op, root;
    unsigned long long count;
    char call[32];
    char file[200];
    int line;
};
struct collective_slot {
    unsigned long long seq;
    int in_use, arrived, finished;
    int failure;  // 0, or the cudaError_t every rank's part ends with
    int posted[max_board_ranks];
    posted_part parts[max_board_ranks];
};
// Sends from one rank to another, in order: the n-th send is received by the
// peer's n-th receive from it.
struct pair_transfers {
    unsigned long long sent, taken;
    struct {
        unsigned long long count;
        int type, line, failed;
    } posted[transfers_in_flight];
};
struct shared_board {
    std::atomic<int> ready;
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    long long creator;
    unsigned long long number;
    int nranks, joined, failed, formed_seen;
    long long process[max_board_ranks];
    collective_slot slots[2];
    pair_transfers pairs[max_board_ranks][max_board_ranks];  // [from][to]
};

}  // namespace cuemu::nccl_detail

using namespace cuemu::nccl_detail;

namespace {

std::string board_name(long long creator, unsigned long long number) {
    return "/cuemu-nccl-" + std::to_string(creator) + "-" + std::to_string(number);
}
std::string data_name(const shared_board* b, unsigned long long seq, int rank) {
    return board_name(b->creator, b->number) + "-c" + std::to_string(seq) + "-r" + std::to_string(rank);
}

// The board's condition variable measures its waits on this clock (macOS has
// no pthread_condattr_setclock: the wall clock there).
#ifdef __APPLE__
constexpr clockid_t wait_clock = CLOCK_REALTIME;
#else
constexpr clockid_t wait_clock = CLOCK_MONOTONIC;
#endif

timespec deadline_after(double seconds) {
    timespec t;
    clock_gettime(wait_clock, &t);
    const long long ns = static_cast<long long>(seconds * 1e9) + t.tv_nsec;
    t.tv_sec += ns / 1000000000;
    t.tv_nsec = ns % 1000000000;
    return t;
}

// Waits (the board's mutex held) until done() or the deadline; false at the deadline.
template <class Done>
bool wait_on(shared_board* b, double limit, Done done) {
    const timespec deadline = deadline_after(limit);
    while (!done()) {
        if (limit <= 0) {
            pthread_cond_wait(&b->changed, &b->mutex);
        } else if (pthread_cond_timedwait(&b->changed, &b->mutex, &deadline) == ETIMEDOUT) {
            return done();
        }
    }
    return true;
}

shared_board* open_board(long long creator, unsigned long long number, int nranks) {
    const std::string name = board_name(creator, number);
    int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    const bool made = fd >= 0;
    if (!made) fd = shm_open(name.c_str(), O_RDWR, 0600);
    if (fd < 0) return nullptr;
    if (made && ftruncate(fd, sizeof(shared_board)) != 0) {
        close(fd);
        return nullptr;
    }
    // Another process made it: wait until it has its size.
    for (int tries = 0; !made; ++tries) {
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(shared_board))) break;
        if (tries > 2000) {
            close(fd);
            return nullptr;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    void* p = mmap(nullptr, sizeof(shared_board), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return nullptr;
    auto* b = static_cast<shared_board*>(p);
    if (made) {
        pthread_mutexattr_t ma;
        pthread_mutexattr_init(&ma);
        pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
        pthread_mutex_init(&b->mutex, &ma);
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
#ifndef __APPLE__
        pthread_condattr_setclock(&ca, wait_clock);
#endif
        pthread_cond_init(&b->changed, &ca);
        b->creator = creator;
        b->number = number;
        b->nranks = nranks;
        b->ready.store(1);
    }
    for (int tries = 0; b->ready.load() == 0; ++tries) {
        if (tries > 2000) return nullptr;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return b;
}

posted_part post_of(const operation& op) {
    posted_part p{};
    p.kind = static_cast<int>(op.kind);
    p.type = op.type;
    p.op = op.op;
    p.root = op.root;
    p.count = op.count;
    std::snprintf(p.call, sizeof p.call, "%s", op.at.call);
    std::snprintf(p.file, sizeof p.file, "%s", op.at.file);
    p.line = op.at.line;
    return p;
}
operation operation_of(const posted_part& p) {
    operation op;
    op.kind = static_cast<op_kind>(p.kind);
    op.type = static_cast<ncclDataType_t>(p.type);
    op.op = static_cast<ncclRedOp_t>(p.op);
    op.root = p.root;
    op.count = p.count;
    op.at = call_site{p.call, p.file, p.line};
    return op;
}

// What a rank of this collective sends, in bytes.
std::size_t send_bytes(const operation& op, int rank, int nranks) {
    const std::size_t element = type_size(op.type);
    switch (op.kind) {
        case op_kind::broadcast: return rank == op.root ? op.count * element : 0;
        case op_kind::reduce_scatter: return op.count * element * nranks;
        default: return op.count * element;
    }
}

// A segment holding `bytes` bytes; its address, or nullptr.
void* map_segment(const std::string& name, std::size_t bytes, bool make) {
    const std::size_t length = bytes > 0 ? bytes : 1;
    int fd = make ? shm_open(name.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600) : shm_open(name.c_str(), O_RDONLY, 0);
    if (fd < 0) return nullptr;
    if (make && ftruncate(fd, length) != 0) {
        close(fd);
        return nullptr;
    }
    void* p = mmap(nullptr, length, make ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? nullptr : p;
}

void mark_failed(const std::shared_ptr<clique>& local, int rank) {
    std::lock_guard<std::mutex> lock(local->mutex);
    if (rank < local->nranks) local->async_error[rank] = ncclInvalidUsage;
}

std::string seconds_text(double limit) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", limit);
    return text;
}

// One collective of this rank with the other processes' ranks.
cudaError_t one_collective(shared_board* b, const std::shared_ptr<clique>& local, int rank,
                           const operation& op, double limit) {
    const int nranks = b->nranks;
    const std::size_t mine_bytes = send_bytes(op, rank, nranks);
    const std::string mine_name = data_name(b, op.seq, rank);
    void* mine = map_segment(mine_name, mine_bytes, true);
    if (!mine) {
        report("cuemu: NCCL: " + describe(op) + ": cannot make the shared memory for rank " +
               std::to_string(rank) + " (" + std::strerror(errno) + ")\n");
        return cudaErrorLaunchFailure;
    }
    if (mine_bytes) std::memcpy(mine, op.send, mine_bytes);
    collective_slot& slot = b->slots[op.seq % 2];
    pthread_mutex_lock(&b->mutex);
    if (!slot.in_use || slot.seq != op.seq) {
        std::memset(&slot, 0, sizeof slot);
        slot.seq = op.seq;
        slot.in_use = 1;
    }
    if (!slot.failure) {
        slot.posted[rank] = 1;
        slot.parts[rank] = post_of(op);
        ++slot.arrived;
        for (int r = 0; r < nranks && !slot.failure; ++r) {
            if (r == rank || !slot.posted[r] || parts_agree(operation_of(slot.parts[r]), op)) continue;
            slot.failure = cudaErrorLaunchFailure;
            report("cuemu: NCCL: collective #" + std::to_string(op.seq + 1) + " of a communicator of " +
                   std::to_string(nranks) + " ranks in separate processes does not match:\n  rank " +
                   std::to_string(r) + " (process " + std::to_string(b->process[r]) + "): " +
                   describe(operation_of(slot.parts[r])) + "\n  rank " + std::to_string(rank) +
                   " (process " + std::to_string(b->process[rank]) + "): " + describe(op) +
                   "\n  every rank must call the same collectives in the same order, with the same "
                   "count, datatype, op and root; on a GPU this hangs or gives wrong results\n"
                   "  the collective fails on every rank: their streams get cudaErrorLaunchFailure "
                   "(sticky), ncclCommGetAsyncError gives ncclInvalidUsage\n");
        }
        pthread_cond_broadcast(&b->changed);
    }
    if (!wait_on(b, limit, [&] { return slot.arrived == nranks || slot.failure; })) {
        std::string arrived, missing;
        for (int r = 0; r < nranks; ++r)
            (slot.posted[r] ? arrived : missing) += (slot.posted[r] ? arrived : missing).empty()
                                                        ? std::to_string(r)
                                                        : ", " + std::to_string(r);
        slot.failure = cudaErrorLaunchTimeout;
        report("cuemu: NCCL: " + describe(op) + " (collective #" + std::to_string(op.seq + 1) +
               " of a communicator of " + std::to_string(nranks) + " ranks in separate processes) waited " +
               seconds_text(limit) + " s (CUEMU_WATCHDOG_SECONDS) for every rank to reach it\n  arrived: rank(s) " +
               arrived + "\n  never arrived: rank(s) " + missing +
               " (never called it, its stream never got there, or its process ended)\n"
               "  the collective fails on every rank: their streams get cudaErrorLaunchTimeout "
               "(sticky), ncclCommGetAsyncError gives ncclInvalidUsage\n");
        pthread_cond_broadcast(&b->changed);
    }
    cudaError_t failure = static_cast<cudaError_t>(slot.failure);
    pthread_mutex_unlock(&b->mutex);
    if (failure == cudaSuccess) {
        std::vector<operation> parts(nranks, op);
        std::vector<std::pair<void*, std::size_t>> maps;
        for (int r = 0; r < nranks; ++r) {
            const std::size_t bytes = send_bytes(op, r, nranks);
            void* p = r == rank ? mine : map_segment(data_name(b, op.seq, r), bytes, false);
            if (!p) {
                report("cuemu: NCCL: " + describe(op) + ": rank " + std::to_string(rank) +
                       " cannot read rank " + std::to_string(r) + "'s part (" + std::strerror(errno) + ")\n");
                failure = cudaErrorLaunchFailure;
                break;
            }
            if (r != rank) maps.emplace_back(p, bytes > 0 ? bytes : 1);
            parts[r].send = p;
            parts[r].recv = r == rank ? op.recv : nullptr;
        }
        if (failure == cudaSuccess) do_collective(parts);
        for (auto& [p, length] : maps) munmap(p, length);
    }
    // Every rank has read every segment before any is removed.
    pthread_mutex_lock(&b->mutex);
    ++slot.finished;
    pthread_cond_broadcast(&b->changed);
    wait_on(b, limit, [&] { return slot.finished == nranks || slot.failure; });
    pthread_mutex_unlock(&b->mutex);
    munmap(mine, mine_bytes > 0 ? mine_bytes : 1);
    shm_unlink(mine_name.c_str());
    if (failure != cudaSuccess) mark_failed(local, rank);
    return failure;
}

std::string transfer_name(const shared_board* b, int from, int to, unsigned long long seq) {
    return board_name(b->creator, b->number) + "-p" + std::to_string(from) + "-" + std::to_string(to) +
           "-" + std::to_string(seq);
}

// Posts a send (its data copied into shared memory) for the peer to take.
cudaError_t post_send(shared_board* b, int rank, const operation& op, double limit) {
    pair_transfers& pair = b->pairs[rank][op.peer];
    const std::size_t bytes = op.count * type_size(op.type);
    pthread_mutex_lock(&b->mutex);
    const bool room = wait_on(b, limit, [&] { return pair.sent - pair.taken < transfers_in_flight; });
    pthread_mutex_unlock(&b->mutex);
    const std::string name = transfer_name(b, rank, op.peer, op.seq);
    void* data = room ? map_segment(name, bytes, true) : nullptr;
    if (!data) {
        report("cuemu: NCCL: rank " + std::to_string(rank) + ": " + describe(op) + " to rank " +
               std::to_string(op.peer) + ": " +
               (room ? "cannot make its shared memory" : "rank " + std::to_string(op.peer) +
                                                             " takes none of its earlier sends") + "\n");
        return cudaErrorLaunchTimeout;
    }
    if (bytes) std::memcpy(data, op.send, bytes);
    munmap(data, bytes > 0 ? bytes : 1);
    pthread_mutex_lock(&b->mutex);
    auto& post = pair.posted[op.seq % transfers_in_flight];
    post.count = op.count;
    post.type = op.type;
    post.line = op.at.line;
    post.failed = 0;
    pair.sent = op.seq + 1;
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->mutex);
    return cudaSuccess;
}

// Waits for the matching send, and takes its data.
cudaError_t take_receive(shared_board* b, int rank, const operation& op, double limit) {
    pair_transfers& pair = b->pairs[op.peer][rank];
    pthread_mutex_lock(&b->mutex);
    if (!wait_on(b, limit, [&] { return pair.sent > op.seq; })) {
        pthread_mutex_unlock(&b->mutex);
        report("cuemu: NCCL: rank " + std::to_string(rank) + " (process " + std::to_string(getpid()) +
               "): " + describe(op) + " from rank " + std::to_string(op.peer) + " waited " +
               seconds_text(limit) + " s (CUEMU_WATCHDOG_SECONDS)\n  rank " + std::to_string(op.peer) +
               " posted " + std::to_string(pair.sent) + " send(s) to it; this is receive #" +
               std::to_string(op.seq + 1) +
               "\n  the receive fails: its stream gets cudaErrorLaunchTimeout (sticky)\n");
        return cudaErrorLaunchTimeout;
    }
    auto& post = pair.posted[op.seq % transfers_in_flight];
    const bool agree = post.count == op.count && post.type == op.type;
    const operation sent = [&] {
        operation o = op;
        o.kind = op_kind::send;
        o.count = post.count;
        o.type = static_cast<ncclDataType_t>(post.type);
        o.at = call_site{"ncclSend", "(its process)", post.line};
        return o;
    }();
    post.failed = agree ? 0 : 1;
    pthread_mutex_unlock(&b->mutex);
    const std::string name = transfer_name(b, op.peer, rank, op.seq);
    cudaError_t result = cudaSuccess;
    if (!agree) {
        report("cuemu: NCCL: a send and the receive it meets do not match (ranks in separate "
               "processes):\n  rank " + std::to_string(op.peer) + ": " + describe(sent) + " to rank " +
               std::to_string(rank) + "\n  rank " + std::to_string(rank) + ": " + describe(op) +
               " from rank " + std::to_string(op.peer) +
               "\n  both fail: their streams get cudaErrorLaunchFailure (sticky), "
               "ncclCommGetAsyncError gives ncclInvalidUsage\n");
        result = cudaErrorLaunchFailure;
    } else {
        const std::size_t bytes = op.count * type_size(op.type);
        void* data = map_segment(name, bytes, false);
        if (!data) {
            result = cudaErrorLaunchFailure;
        } else {
            if (bytes) {
                std::memcpy(op.recv, data, bytes);
                cuemu::detail::note_device_write(op.recv, bytes);
            }
            munmap(data, bytes > 0 ? bytes : 1);
        }
    }
    shm_unlink(name.c_str());
    pthread_mutex_lock(&b->mutex);
    pair.taken = op.seq + 1;
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->mutex);
    return result;
}

// A send's part ends when the peer took it.
cudaError_t await_taken(shared_board* b, int rank, const operation& op, double limit) {
    pair_transfers& pair = b->pairs[rank][op.peer];
    pthread_mutex_lock(&b->mutex);
    const bool taken = wait_on(b, limit, [&] { return pair.taken > op.seq; });
    const bool failed = taken && pair.posted[op.seq % transfers_in_flight].failed;
    pthread_mutex_unlock(&b->mutex);
    if (taken) return failed ? cudaErrorLaunchFailure : cudaSuccess;
    shm_unlink(transfer_name(b, rank, op.peer, op.seq).c_str());
    report("cuemu: NCCL: rank " + std::to_string(rank) + " (process " + std::to_string(getpid()) + "): " +
           describe(op) + " to rank " + std::to_string(op.peer) + " waited " + seconds_text(limit) +
           " s (CUEMU_WATCHDOG_SECONDS) for rank " + std::to_string(op.peer) +
           " to receive it\n  the send fails: its stream gets cudaErrorLaunchTimeout (sticky)\n");
    return cudaErrorLaunchTimeout;
}

}  // namespace

namespace cuemu::nccl_detail {

shared_board* join_board(long long creator, std::uint64_t number, int nranks, int rank,
                         const call_site& at, ncclResult_t* result) {
    const std::string where = std::string("cuemu: ") + at.call + " at " + at.file + ":" + std::to_string(at.line);
    if (nranks > max_board_ranks) {
        report(where + ": " + std::to_string(nranks) + " ranks; the emulator's NCCL has at most " +
               std::to_string(max_board_ranks) + "\n  " + at.call + " returns ncclInvalidArgument\n");
        *result = ncclInvalidArgument;
        return nullptr;
    }
    shared_board* b = open_board(creator, number, nranks);
    if (!b) {
        // No shared memory here: ranks of this process still meet (meetings.cpp);
        // ranks of other processes never show up, and the watchdog says so.
        *result = ncclSuccess;
        return nullptr;
    }
    pthread_mutex_lock(&b->mutex);
    std::string why;
    if (b->nranks != nranks)
        why = "rank " + std::to_string(rank) + " says the communicator has " + std::to_string(nranks) +
              " ranks, but rank(s) that joined before said " + std::to_string(b->nranks);
    else if (b->process[rank] != 0)
        why = "rank " + std::to_string(rank) + " joined already (process " + std::to_string(b->process[rank]) + ")";
    if (!why.empty()) {
        b->failed = 1;
        pthread_cond_broadcast(&b->changed);
        pthread_mutex_unlock(&b->mutex);
        report(where + ": " + why + "\n  " + at.call + " returns ncclInvalidUsage\n");
        *result = ncclInvalidUsage;
        return nullptr;
    }
    b->process[rank] = getpid();
    ++b->joined;
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->mutex);
    *result = ncclSuccess;
    return b;
}

board_view look_at(shared_board* b) {
    board_view view;
    pthread_mutex_lock(&b->mutex);
    view.nranks = b->nranks;
    view.failed = b->failed != 0;
    view.process.assign(b->process, b->process + b->nranks);
    pthread_mutex_unlock(&b->mutex);
    return view;
}

void fail_board(shared_board* b) {
    pthread_mutex_lock(&b->mutex);
    b->failed = 1;
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->mutex);
    shm_unlink(board_name(b->creator, b->number).c_str());
}

void board_formed(shared_board* b) {
    pthread_mutex_lock(&b->mutex);
    const bool last = ++b->formed_seen == b->nranks;
    pthread_mutex_unlock(&b->mutex);
    if (last) shm_unlink(board_name(b->creator, b->number).c_str());
}

cudaError_t run_across_processes(shared_board* board, const std::shared_ptr<clique>& local, int rank,
                                 const std::vector<operation>& ops) {
    const double limit = cuemu::detail::configured_watchdog_seconds();
    cudaError_t result = cudaSuccess;
    auto keep_first = [&](cudaError_t e) {
        if (result == cudaSuccess) result = e;
    };
    for (const operation& op : ops)
        if (op.kind == op_kind::send) keep_first(post_send(board, rank, op, limit));
    for (const operation& op : ops) {
        if (op.kind == op_kind::recv) keep_first(take_receive(board, rank, op, limit));
        else if (!is_point_to_point(op.kind)) keep_first(one_collective(board, local, rank, op, limit));
    }
    for (const operation& op : ops)
        if (op.kind == op_kind::send && result == cudaSuccess) keep_first(await_taken(board, rank, op, limit));
    if (result != cudaSuccess) mark_failed(local, rank);
    return result;
}

}  // namespace cuemu::nccl_detail
