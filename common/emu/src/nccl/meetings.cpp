// meetings.cpp - where the ranks of the emulator's NCCL meet: each rank's
// stream reaches its part of an operation (on its device's thread), leaves
// what it brought, and waits; the last rank to arrive does the whole
// operation for every rank, reading and writing every rank's buffers (each
// device's memory is open while its thread waits here), then wakes the others.
//
// Decisions:
//   - Ranks are matched by order: a rank's n-th collective of a communicator
//     meets every other rank's n-th, and its n-th send to a peer meets the
//     peer's n-th receive from it. Parts that do not agree (the call, count,
//     datatype, operation, root) are a report naming the ranks, and the
//     operation fails on every rank instead of computing garbage.
//   - Reductions combine the ranks in rank order (0, 1, 2, ...) into one
//     result that every rank receives: the same bits everywhere, equal to a
//     plain CPU loop over the ranks (reductions.cpp).
//   - A part posts without waiting, and a rank's work waits for all its parts
//     together, so one group's sends and receives cannot wait on each other.
//   - The watchdog: a rank that waits CUEMU_WATCHDOG_SECONDS for the others
//     gets a report naming the ranks that arrived, those that called the
//     operation but whose stream has not reached it, and those that never
//     called it. The operation then fails everywhere.
//   - A failed operation ends the rank's work with a sticky error on its
//     device, as a failed NCCL kernel would: cudaErrorLaunchTimeout after the
//     watchdog, cudaErrorLaunchFailure otherwise; ncclCommGetAsyncError says
//     ncclInvalidUsage.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "../internal.h"
#include "../watchdog.h"
#include "nccl_internal.h"

using namespace cuemu::nccl_detail;

namespace {

std::string where(const call_site& at) {
    return std::string(at.call) + " at " + at.file + ":" + std::to_string(at.line);
}

void fail_rank(clique& c, int rank) {
    if (rank >= 0 && rank < c.nranks) c.async_error[rank] = ncclInvalidUsage;
}

// ---- writing results ---------------------------------------------------------------------

void write_to(void* dst, const void* src, std::size_t bytes) {
    std::memcpy(dst, src, bytes);
    cuemu::detail::note_device_write(dst, bytes);
}

// ---- posting a part (the clique's lock is held) ----------------------------------------

void post_collective(clique& c, int rank, const operation& op) {
    collective_meeting& m = c.collectives[op.seq];
    if (m.failed || c.aborted) return;
    m.arrived[rank] = true;
    m.parts[rank] = op;
    ++m.arrived_count;
    for (int r = 0; r < c.nranks; ++r) {
        if (r == rank || !m.arrived[r] || parts_agree(m.parts[r], op)) continue;
        m.failed = true;
        m.failure = cudaErrorLaunchFailure;
        for (int every = 0; every < c.nranks; ++every) fail_rank(c, every);
        report("cuemu: NCCL: collective #" + std::to_string(op.seq + 1) +
               " of a communicator of " + std::to_string(c.nranks) +
               " ranks does not match between ranks:\n  rank " + std::to_string(r) + " (device " +
               std::to_string(c.devices[r]) + "): " + describe(m.parts[r]) + "\n  rank " +
               std::to_string(rank) + " (device " + std::to_string(c.devices[rank]) + "): " +
               describe(op) +
               "\n  every rank must call the same collectives in the same order, with the same "
               "count, datatype, op and root; on a GPU this hangs or gives wrong results\n"
               "  the collective fails on every rank: their streams get cudaErrorLaunchFailure "
               "(sticky), ncclCommGetAsyncError gives ncclInvalidUsage\n");
        return;
    }
    if (m.arrived_count == c.nranks) {
        do_collective(m.parts);
        m.done = true;
    }
}

void post_transfer(clique& c, int rank, const operation& op) {
    const bool sending = op.kind == op_kind::send;
    const transfer_key key = sending ? transfer_key{rank, op.peer, op.seq} : transfer_key{op.peer, rank, op.seq};
    transfer_meeting& m = c.transfers[key];
    if (m.failed || c.aborted) return;
    (sending ? m.send_arrived : m.recv_arrived) = true;
    (sending ? m.send : m.recv) = op;
    if (!m.send_arrived || !m.recv_arrived) return;
    if (m.send.count != m.recv.count || m.send.type != m.recv.type) {
        m.failed = true;
        m.failure = cudaErrorLaunchFailure;
        fail_rank(c, m.recv.peer);
        fail_rank(c, m.send.peer);
        report("cuemu: NCCL: a send and the receive it meets do not match:\n  rank " +
               std::to_string(m.recv.peer) + " (device " + std::to_string(c.devices[m.recv.peer]) +
               "): " + describe(m.send) + " to rank " + std::to_string(m.send.peer) + "\n  rank " +
               std::to_string(m.send.peer) + " (device " + std::to_string(c.devices[m.send.peer]) +
               "): " + describe(m.recv) + " from rank " + std::to_string(m.recv.peer) +
               "\n  a rank's n-th ncclSend to a peer meets the peer's n-th ncclRecv from it; both "
               "must have the same count and datatype\n"
               "  both fail: their streams get cudaErrorLaunchFailure (sticky), "
               "ncclCommGetAsyncError gives ncclInvalidUsage\n");
        return;
    }
    write_to(m.recv.recv, m.send.send, m.send.count * type_size(m.send.type));
    m.done = true;
}

// ---- the watchdog's report --------------------------------------------------------------

std::string list(const std::vector<int>& ranks) {
    std::string text;
    for (int r : ranks) text += (text.empty() ? "" : ", ") + std::to_string(r);
    return text;
}

void report_collective_timeout(clique& c, const operation& op, collective_meeting& m, double limit) {
    std::vector<int> arrived;
    std::string others;
    for (int r = 0; r < c.nranks; ++r) {
        if (m.arrived[r]) {
            arrived.push_back(r);
        } else if (m.issued[r]) {
            others += "  rank " + std::to_string(r) + " (device " + std::to_string(c.devices[r]) +
                      "): called it (" + where(m.issued_at[r]) +
                      "), but its stream never reached it: work queued before it on that stream "
                      "has not finished\n";
        } else {
            others += "  rank " + std::to_string(r) + " (device " + std::to_string(c.devices[r]) +
                      "): never called it (it has called " + std::to_string(c.collectives_issued[r]) +
                      " collective(s) on this communicator)\n";
        }
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", limit);
    report("cuemu: NCCL: " + describe(op) + " (collective #" + std::to_string(op.seq + 1) +
           " of a communicator of " + std::to_string(c.nranks) + " ranks) waited " + seconds +
           " s (CUEMU_WATCHDOG_SECONDS) for every rank to reach it\n  arrived: rank(s) " +
           list(arrived) + "\n" + others +
           "  on a GPU the ranks that arrived would wait for ever\n"
           "  the collective fails on every rank: their streams get cudaErrorLaunchTimeout "
           "(sticky), ncclCommGetAsyncError gives ncclInvalidUsage\n");
}

void report_transfer_timeout(clique& c, const operation& op, int waiting_rank, double limit) {
    const int peer = op.peer;
    const bool sending = op.kind == op_kind::send;
    const std::uint64_t issued = sending ? c.recvs_issued[peer][waiting_rank] : c.sends_issued[peer][waiting_rank];
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", limit);
    std::string peer_state;
    if (issued > op.seq) {
        peer_state = std::string("called the matching ") + (sending ? "ncclRecv" : "ncclSend") +
                     ", but its stream never reached it";
    } else {
        peer_state = std::string("never called the matching ") + (sending ? "ncclRecv" : "ncclSend") +
                     " (it has called " + std::to_string(issued) + " from/to rank " +
                     std::to_string(waiting_rank) + ")";
    }
    report("cuemu: NCCL: rank " + std::to_string(waiting_rank) + " (device " +
           std::to_string(c.devices[waiting_rank]) + "): " + describe(op) + (sending ? " to" : " from") +
           " rank " + std::to_string(peer) + " waited " + seconds +
           " s (CUEMU_WATCHDOG_SECONDS)\n  rank " + std::to_string(peer) + " (device " +
           std::to_string(c.devices[peer]) + "): " + peer_state +
           "\n  outside a group a send waits for its receive: put the sends and receives of a "
           "ring between ncclGroupStart and ncclGroupEnd\n"
           "  both fail: their streams get cudaErrorLaunchTimeout (sticky), "
           "ncclCommGetAsyncError gives ncclInvalidUsage\n");
}

// Whether the part has ended: done, or failed (*failure then says how).
bool part_ended(clique& c, int rank, const operation& op, cudaError_t* failure) {
    bool done = false, failed = false;
    if (is_point_to_point(op.kind)) {
        const transfer_key key = op.kind == op_kind::send ? transfer_key{rank, op.peer, op.seq}
                                                          : transfer_key{op.peer, rank, op.seq};
        transfer_meeting& m = c.transfers[key];
        done = m.done;
        failed = m.failed;
        *failure = m.failure;
    } else {
        collective_meeting& m = c.collectives[op.seq];
        done = m.done;
        failed = m.failed;
        *failure = m.failure;
    }
    if (!done && !failed && c.aborted) {
        failed = true;
        *failure = cudaErrorLaunchFailure;
    }
    return done || failed;
}

// The rank has seen the part's end: the last to see it erases the meeting.
void leave(clique& c, int rank, const operation& op) {
    if (is_point_to_point(op.kind)) {
        const transfer_key key = op.kind == op_kind::send ? transfer_key{rank, op.peer, op.seq}
                                                          : transfer_key{op.peer, rank, op.seq};
        auto it = c.transfers.find(key);
        if (it != c.transfers.end() && ++it->second.seen_count == 2 && it->second.done) c.transfers.erase(it);
        return;
    }
    auto it = c.collectives.find(op.seq);
    if (it != c.collectives.end() && ++it->second.seen_count == c.nranks && it->second.done)
        c.collectives.erase(it);
}

}  // namespace

namespace cuemu::nccl_detail {

std::string describe(const operation& op) {
    std::ostringstream out;
    out << op.at.call << " of " << op.count << " x " << type_name(op.type);
    if (op.kind == op_kind::all_reduce || op.kind == op_kind::reduce || op.kind == op_kind::reduce_scatter)
        out << ", " << op_name(op.op);
    if (op.kind == op_kind::broadcast || op.kind == op_kind::reduce) out << ", root " << op.root;
    out << " at " << op.at.file << ":" << op.at.line;
    return out.str();
}

bool parts_agree(const operation& a, const operation& b) {
    const bool reduces = a.kind == op_kind::all_reduce || a.kind == op_kind::reduce ||
                         a.kind == op_kind::reduce_scatter;
    const bool rooted = a.kind == op_kind::broadcast || a.kind == op_kind::reduce;
    return a.kind == b.kind && a.count == b.count && a.type == b.type && (!reduces || a.op == b.op) &&
           (!rooted || a.root == b.root);
}

// Block `block` (count elements) of every rank's send buffer, combined in rank order.
static std::vector<char> reduced(const std::vector<operation>& parts, std::size_t block) {
    const operation& first = parts[0];
    const std::size_t bytes = first.count * type_size(first.type);
    std::vector<char> acc(bytes);
    std::memcpy(acc.data(), static_cast<const char*>(first.send) + block * bytes, bytes);
    for (std::size_t r = 1; r < parts.size(); ++r)
        combine(acc.data(), static_cast<const char*>(parts[r].send) + block * bytes, first.count,
                first.type, first.op);
    if (first.op == ncclAvg) divide(acc.data(), first.count, first.type, static_cast<int>(parts.size()));
    return acc;
}

void do_collective(const std::vector<operation>& parts) {
    const operation& first = parts[0];
    const int nranks = static_cast<int>(parts.size());
    const std::size_t bytes = first.count * type_size(first.type);
    switch (first.kind) {
        case op_kind::all_reduce: {
            std::vector<char> result = reduced(parts, 0);
            for (const operation& p : parts)
                if (p.recv) write_to(p.recv, result.data(), bytes);
            break;
        }
        case op_kind::reduce: {
            std::vector<char> result = reduced(parts, 0);
            if (parts[first.root].recv) write_to(parts[first.root].recv, result.data(), bytes);
            break;
        }
        case op_kind::broadcast: {
            const char* from = static_cast<const char*>(parts[first.root].send);
            std::vector<char> data(from, from + bytes);
            for (const operation& p : parts)
                if (p.recv) write_to(p.recv, data.data(), bytes);
            break;
        }
        case op_kind::all_gather: {
            std::vector<char> gathered(bytes * nranks);
            for (int r = 0; r < nranks; ++r) std::memcpy(gathered.data() + r * bytes, parts[r].send, bytes);
            for (const operation& p : parts)
                if (p.recv) write_to(p.recv, gathered.data(), gathered.size());
            break;
        }
        case op_kind::reduce_scatter: {
            // Every block first: a rank's recvbuff may lie inside its sendbuff.
            std::vector<std::vector<char>> blocks(nranks);
            for (int r = 0; r < nranks; ++r)
                if (parts[r].recv) blocks[r] = reduced(parts, r);
            for (int r = 0; r < nranks; ++r)
                if (parts[r].recv) write_to(parts[r].recv, blocks[r].data(), bytes);
            break;
        }
        case op_kind::send: case op_kind::recv: break;
    }
}

void note_issued(clique& c, int rank, std::vector<operation>& ops) {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (operation& op : ops) {
        if (op.kind == op_kind::send) {
            op.seq = c.sends_issued[rank][op.peer]++;
            transfer_meeting& m = c.transfers[{rank, op.peer, op.seq}];
            m.send_issued = true;
            m.send_at = op.at;
        } else if (op.kind == op_kind::recv) {
            op.seq = c.recvs_issued[rank][op.peer]++;
            transfer_meeting& m = c.transfers[{op.peer, rank, op.seq}];
            m.recv_issued = true;
            m.recv_at = op.at;
        } else {
            op.seq = c.collectives_issued[rank]++;
            collective_meeting& m = c.collectives[op.seq];
            if (m.issued.empty()) {
                m.issued.assign(c.nranks, false);
                m.issued_at.assign(c.nranks, call_site{});
                m.arrived.assign(c.nranks, false);
                m.parts.assign(c.nranks, operation{});
            }
            m.issued[rank] = true;
            m.issued_at[rank] = op.at;
        }
    }
}

cudaError_t run_operations(const std::shared_ptr<clique>& shared, int rank,
                           const std::vector<operation>& ops) {
    clique& c = *shared;
    std::unique_lock<std::mutex> lock(c.mutex);
    for (const operation& op : ops) {
        if (is_point_to_point(op.kind)) {
            post_transfer(c, rank, op);
        } else {
            post_collective(c, rank, op);
        }
    }
    c.changed.notify_all();
    const double limit = cuemu::detail::configured_watchdog_seconds();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limit));
    cudaError_t result = cudaSuccess;
    for (const operation& op : ops) {
        cudaError_t failure = cudaSuccess;
        auto ended = [&] { return part_ended(c, rank, op, &failure); };
        if (limit <= 0) {
            c.changed.wait(lock, ended);
        } else if (!c.changed.wait_until(lock, deadline, ended)) {
            // Nobody else gave up on it first: this rank reports.
            failure = cudaErrorLaunchTimeout;
            if (is_point_to_point(op.kind)) {
                report_transfer_timeout(c, op, rank, limit);
                const transfer_key key = op.kind == op_kind::send ? transfer_key{rank, op.peer, op.seq}
                                                                  : transfer_key{op.peer, rank, op.seq};
                c.transfers[key].failed = true;
                c.transfers[key].failure = failure;
                fail_rank(c, op.peer);
                fail_rank(c, rank);
            } else {
                collective_meeting& m = c.collectives[op.seq];
                report_collective_timeout(c, op, m, limit);
                m.failed = true;
                m.failure = failure;
                for (int r = 0; r < c.nranks; ++r) fail_rank(c, r);
            }
            c.changed.notify_all();
        }
        if (result == cudaSuccess) result = failure;
        leave(c, rank, op);
    }
    return result;
}

}  // namespace cuemu::nccl_detail
