// progress_note.h - the line that tells a learner a slow program is still
// working. A program written for a GPU may spend minutes in kernels on the
// emulator (NVIDIA's samples at their default sizes: a scan ran for more
// than 15 minutes) and print nothing meanwhile, which looks like a hang. Once
// the program's kernels have run CUEMU_PROGRESS_SECONDS in all (30 by
// default; 0 turns it off), and again each time that total doubles, one line
// on stderr says how long, how many launches, and where the current one is.
#ifndef CUEMU_PROGRESS_NOTE_H
#define CUEMU_PROGRESS_NOTE_H

#include "launch_job.h"

namespace cuemu::detail {

// CUEMU_PROGRESS_SECONDS, read once; a bad value ends the program with one
// line and exit code 2, as the watchdog's setting does.
double configured_progress_seconds();

// From the thread that waits for a launch: while it runs (`ended` false,
// with the seconds it has run so far) and when it has ended (then its time
// joins the program's total). Thread-safe: each device has its own.
void note_kernel_time(const launch_job& job, double launch_seconds, bool ended);

}  // namespace cuemu::detail

#endif
