// cuemu/libcudacxx_waits.h - the emulator's side of waiting in libcu++'s
// cuda::barrier and cuda::pipeline (defined in libcudacxx/block_waits.cpp).
#ifndef CUEMU_LIBCUDACXX_WAITS_H
#define CUEMU_LIBCUDACXX_WAITS_H

namespace cuemu::libcudacxx {
// Lets every other thread of the calling CUDA thread's block run to its next
// barrier, warp function or end before the caller goes on (a plain yield on a
// host thread). A waiting thread calls it between two looks at the barrier.
void let_others_run();
// A block-scope barrier's phase completed at file:line: every access made
// before an arrival of that phase is ordered before every access made after a
// wait on it, as a __syncthreads() orders them (CUEMU_CHECK=race).
void block_phase_completed(const char* file, int line);
// Arrivals at block-scope barriers by the threads of the calling worker's
// block, counted here rather than in the header: a thread_local variable in a
// kernel's translation unit would look like a __shared__ one to the race check.
void note_block_arrival();
// A count that grows while the block's threads get anywhere: arrivals, and
// the scheduler's own progress count (threads finished, barriers passed, warp
// functions completed). A waiter that sees it stand still for many looks
// waits for something no thread will do.
unsigned long long block_activity();
}  // namespace cuemu::libcudacxx

#endif
