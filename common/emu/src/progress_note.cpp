// progress_note.cpp - see progress_note.h.
#include "progress_note.h"
#include "watchdog.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <mutex>

namespace cuemu::detail {

double configured_progress_seconds() {
    static const double seconds = seconds_setting("CUEMU_PROGRESS_SECONDS", 30.0);
    return seconds;
}

namespace {
std::mutex note_mutex;
double ended_seconds = 0;     // kernel time of the launches that have ended
std::uint64_t ended_launches = 0;
double next_note_at = -1;     // total kernel seconds at which the next line is due
}  // namespace

void note_kernel_time(const launch_job& job, double launch_seconds, bool ended) {
    const double first = configured_progress_seconds();
    if (first <= 0) return;
    std::lock_guard<std::mutex> lock(note_mutex);
    if (next_note_at < 0) next_note_at = first;
    const double total = ended_seconds + launch_seconds;
    if (total >= next_note_at) {
        while (next_note_at <= total) next_note_at *= 2;
        // Blocks handed out so far (the counter runs past the end once all are).
        const std::uint64_t started = std::min(job.next_block.load(std::memory_order_relaxed), job.total_blocks);
        std::fprintf(stderr,
                     "cuemu: still working: kernels have run for %.3g s on this CPU (%" PRIu64
                     " launches so far; '%s' at %s:%d has started %" PRIu64 " of its %" PRIu64
                     " blocks). The emulator runs every CUDA thread on this CPU's few cores, far "
                     "more slowly than a GPU would; the next note comes at %.3g s "
                     "(CUEMU_PROGRESS_SECONDS=0 turns these notes off).\n",
                     total, ended_launches + 1, job.site->kernel, job.site->file,
                     job.site->line, started, job.total_blocks,
                     next_note_at);
        std::fflush(stderr);
    }
    if (ended) {
        ended_seconds += launch_seconds;
        ++ended_launches;
    }
}

}  // namespace cuemu::detail
