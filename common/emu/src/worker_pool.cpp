// worker_pool.cpp - the worker threads that run launches (launch_job.h): how
// many (CUEMU_WORKERS), which CPU each keeps to, waking as many as a launch
// has chunks of blocks for and waiting until those are back, and the
// watchdog's looks at a launch that runs long (watchdog.h). A launch that
// would wake only one worker runs on the device's compute engine thread
// instead, which saves two thread wake-ups; a watcher thread then takes the
// watchdog's looks. CUEMU_SCHEDULE is read here too, once, and handed to
// every launch.
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "brief_spin.h"
#include "cuemu/split_block.h"
#include "internal.h"
#include "launch_job.h"
#include "progress_note.h"
#include "watchdog.h"

namespace cuemu::detail {
namespace {

// The signal stack of each worker: the fault handler must run even when a
// fiber has overflowed its stack.
constexpr std::size_t signal_stack_size = 64 * 1024;

int configured_workers() {
    const char* text = std::getenv("CUEMU_WORKERS");
    if (text && *text) {
        char* end = nullptr;
        long n = std::strtol(text, &end, 10);
        if (*end != '\0' || n < 1 || n > 256) {
            std::fprintf(stderr,
                         "cuemu: CUEMU_WORKERS must be a whole number from 1 to 256, got '%s'\n",
                         text);
            std::exit(2);
        }
        return static_cast<int>(n);
    }
    // The CPUs this process may run on (taskset, a container's cpuset), which
    // may be fewer than the machine has.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0)
        return std::min(CPU_COUNT(&allowed), 256);
    unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(std::min(hw, 256u)) : 2;
}

// CUEMU_SCHEDULE: forward (the default), reverse, or shuffle:SEED.
schedule_setting configured_schedule() {
    schedule_setting s;
    const char* text = std::getenv("CUEMU_SCHEDULE");
    if (!text || !*text || std::strcmp(text, "forward") == 0) return s;
    if (std::strcmp(text, "reverse") == 0) {
        s.kind = schedule_kind::reverse;
        return s;
    }
    if (std::strncmp(text, "shuffle:", 8) == 0 && text[8] >= '0' && text[8] <= '9') {
        char* end = nullptr;
        s.seed = std::strtoull(text + 8, &end, 10);
        if (*end == '\0') {
            s.kind = schedule_kind::shuffle;
            return s;
        }
    }
    std::fprintf(stderr,
                 "cuemu: CUEMU_SCHEDULE must be forward, reverse or shuffle:SEED (SEED a whole "
                 "number), got '%s'\n",
                 text);
    std::exit(2);
}

// The CPU each of n workers keeps to, or none (empty): see the comment in the function.
std::vector<int> worker_cpus(int n) {
    // Linux places a woken thread by guesses about idle CPUs and caches; on a
    // busy machine it often wakes both workers of a launch onto the same CPU,
    // where the second waits milliseconds for the first's time slice while
    // the other CPU idles (measured on 2 cores: one process in three ran its
    // launch-and-synchronize loop on one CPU). So when there is one worker for
    // each CPU this process may use, the default, worker i keeps to the i-th
    // of them. Several such processes then share the CPUs evenly, and a worker
    // whose CPU is busy with something else takes fewer chunks of blocks.
    // With another number of workers (CUEMU_WORKERS) they are left free: pinned
    // processes of one or two workers would all crowd the first CPUs.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (n < 2 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) != n)
        return {};
    std::vector<int> cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE && int(cpus.size()) < n; ++cpu)
        if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
    return cpus;
}

class worker_pool {
public:
    explicit worker_pool(int n)
        : schedule_(configured_schedule()),
          watchdog_seconds_(configured_watchdog_seconds()),
          progress_(new progress_counter[n]) {
        // A bad CUEMU_PROGRESS_SECONDS (or CUEMU_SPLIT) stops the program
        // here, as a bad watchdog setting does above, not later on a launch's
        // path (a build without twins never asks about splitting otherwise).
        configured_progress_seconds();
        (void)split_blocks_allowed();
        install_fault_handler_once();
        install_fork_guard_once();
        const std::vector<int> cpus = worker_cpus(n);
        for (int i = 0; i < n; ++i) {
            const int cpu = cpus.empty() ? -1 : cpus[i];
            threads_.emplace_back([this, i, cpu] { work(progress_[i], cpu); });
        }
        if (watchdog_seconds_ > 0) watcher_ = std::thread([this] { watch_launches_run_here(); });
    }
    ~worker_pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            quit_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
        {
            std::lock_guard<std::mutex> lock(watch_mutex_);
            watch_quit_ = true;
        }
        watch_wake_.notify_one();
        if (watcher_.joinable()) watcher_.join();
    }
    int size() const { return static_cast<int>(threads_.size()); }

    void run(launch_job& job) {
        job.schedule = schedule_;
        job.watchdog_seconds = watchdog_seconds_;
        // Only as many workers as there are chunks of blocks to hand out
        // wake up (a <<<1, 1>>> launch wakes one); all of them for a
        // cooperative launch, whose blocks must all run at once.
        const std::uint64_t chunks = (job.total_blocks + job.chunk - 1) / job.chunk;
        const int wanted = job.config->cooperative
                               ? size()
                               : static_cast<int>(std::min<std::uint64_t>(size(), chunks));
        // One worker would take all the blocks while this thread (the
        // compute engine's) only waited for it: run them here instead.
        // Each wake-up of a sleeping thread costs tens of microseconds, the
        // most of an empty launch's time.
        if (wanted == 1 && !job.config->cooperative && on_device_thread()) {
            run_here(job);
            return;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        job_ = &job;
        tickets_ = wanted;
        busy_ = 0;
        one_returned_ = false;
        ++generation_;
        launches_.fetch_add(1, std::memory_order_release);
        // Every worker is done with the last launch, so whichever one wakes
        // takes the ticket (one not back to waiting yet finds it first).
        if (wanted == 1)
            wake_.notify_one();
        else
            wake_.notify_all();
        // Once one worker has come back, every block has been handed out (or
        // the launch stopped), so the launch is over when the workers that
        // took part are back: one woken onto a CPU that something else keeps
        // busy must not hold it up only to find nothing left to do.
        auto all_done = [this] { return one_returned_ && busy_ == 0; };
        // How long the program's kernels have run, for the note that it is
        // still working (progress_note.h).
        const auto launch_start = std::chrono::steady_clock::now();
        auto seconds_so_far = [&launch_start] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - launch_start).count();
        };
        // Watch the workers' returns briefly before sleeping (brief_spin.h):
        // a short launch is then over without a wake-up of this thread.
        while (!all_done() && spin_unlocked(lock, returns_)) {
        }
        if (watchdog_seconds_ <= 0) {
            done_.wait(lock, all_done);
        } else {
            // The watchdog (watchdog.cpp): each look counts the launch's
            // progress and samples the registers of the running CUDA
            // threads. A spinning kernel never calls into the emulator, so
            // both the sampling and the stop are a signal to its worker; the
            // stop is sent again until every worker has given up the launch.
            using clock = std::chrono::steady_clock;
            const auto limit = std::chrono::duration_cast<clock::duration>(
                std::chrono::duration<double>(watchdog_seconds_));
            const clock::duration poll = std::min<clock::duration>(limit / 4, std::chrono::seconds(1));
            watchdog_judge judge(watchdog_seconds_, clock::now());
            std::vector<worker_sample> samples(threads_.size());
            while (!done_.wait_for(lock, poll, all_done)) {
                const clock::time_point now = clock::now();
                if (!job.timed_out) {
                    for (std::size_t i = 0; i < threads_.size(); ++i)
                        samples[i] = worker_sample{progress_[i].fingerprint.load(),
                                                   progress_[i].answered.load()};
                    const watchdog_verdict verdict = judge.look(now, total_progress(), samples);
                    if (verdict != watchdog_verdict::running) {
                        job.timed_out_busy = verdict == watchdog_verdict::too_long;
                        job.seconds_without_progress = judge.seconds_without_progress(now);
                        job.timed_out = true;
                    }
                }
                // Sample again, or (once timed out) stop every worker.
                for (auto& t : threads_) pthread_kill(t.native_handle(), watchdog_signal());
                if (!job.timed_out) note_kernel_time(job, seconds_so_far(), false);
            }
        }
        note_kernel_time(job, seconds_so_far(), true);
        tickets_ = 0;  // a worker that wakes late waits for the next launch
        job_ = nullptr;
    }

private:
    struct alignas(64) progress_counter {  // one cache line per worker
        std::atomic<std::uint64_t> finished{0};     // threads finished, barriers, warp functions
        std::atomic<std::uint64_t> fingerprint{0};  // registers at the watchdog's last look
        std::atomic<std::uint64_t> answered{0};     // looks this worker's handler answered
    };
    std::uint64_t total_progress() const {
        std::uint64_t sum = 0;
        for (int i = 0; i < size(); ++i) sum += progress_[i].finished.load(std::memory_order_relaxed);
        return sum;
    }

    // A compute engine thread made a worker for the launches it runs itself
    // (run_here): its fibers, its progress counters and a signal stack, kept
    // for the life of the thread, as a pool worker keeps them.
    struct engine_as_worker {
        progress_counter counter;
        std::vector<char> signal_stack;
        pool_worker_ptr worker;
    };
    static engine_as_worker& this_engine_as_worker() {
        thread_local std::unique_ptr<engine_as_worker> me;
        if (!me) {
            me.reset(new engine_as_worker);
            me->worker = become_pool_worker(&me->counter.finished, &me->counter.fingerprint,
                                            &me->counter.answered);
            me->signal_stack.resize(signal_stack_size);
            stack_t ss{};
            ss.ss_sp = me->signal_stack.data();
            ss.ss_size = me->signal_stack.size();
            sigaltstack(&ss, nullptr);
        }
        return *me;
    }

    // Runs the launch's blocks on the calling thread; the watcher (below)
    // looks at it meanwhile, as run() does for the workers.
    void run_here(launch_job& job) {
        engine_as_worker& me = this_engine_as_worker();
        const auto start = std::chrono::steady_clock::now();
        if (watchdog_seconds_ > 0) {
            std::lock_guard<std::mutex> lock(watch_mutex_);
            watched_ = watched_launch{&job, pthread_self(), &me.counter, start, watched_.number + 1};
            // A watcher that is looking already finds this launch at its next look.
            if (watcher_asleep_) watch_wake_.notify_one();
        }
        work_on_launch(*me.worker, job);
        if (watchdog_seconds_ > 0) {
            std::lock_guard<std::mutex> lock(watch_mutex_);
            watched_.job = nullptr;  // no signal reaches the thread after this
        }
        note_kernel_time(job, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                         true);
    }

    // The watchdog for launches run on a compute engine thread. It looks
    // every poll interval while such launches keep coming, and sleeps once a
    // look finds none started since the one before: a launch costs it no
    // wake-up unless the watcher was asleep. Its looks are run()'s.
    void watch_launches_run_here() {
        using clock = std::chrono::steady_clock;
        const auto limit = std::chrono::duration_cast<clock::duration>(
            std::chrono::duration<double>(watchdog_seconds_));
        const clock::duration poll = std::min<clock::duration>(limit / 4, std::chrono::seconds(1));
        std::unique_lock<std::mutex> lock(watch_mutex_);
        for (;;) {
            watcher_asleep_ = true;
            watch_wake_.wait(lock, [this] { return watch_quit_ || watched_.job != nullptr; });
            watcher_asleep_ = false;
            std::uint64_t judged = 0, seen = watched_.number;
            std::unique_ptr<watchdog_judge> judge;
            std::vector<worker_sample> samples(1);
            while (!watch_quit_) {
                watch_wake_.wait_for(lock, poll, [this] { return watch_quit_; });
                if (watch_quit_) break;
                if (!watched_.job) {
                    if (watched_.number == seen) break;  // none since the last look: sleep
                    seen = watched_.number;
                    continue;
                }
                seen = watched_.number;
                launch_job& job = *watched_.job;
                const clock::time_point now = clock::now();
                if (judged != watched_.number) {
                    judge.reset(new watchdog_judge(watchdog_seconds_, watched_.start));
                    judged = watched_.number;
                }
                if (!job.timed_out) {
                    samples[0] = worker_sample{watched_.counter->fingerprint.load(),
                                               watched_.counter->answered.load()};
                    const watchdog_verdict verdict = judge->look(
                        now, watched_.counter->finished.load(std::memory_order_relaxed), samples);
                    if (verdict != watchdog_verdict::running) {
                        job.timed_out_busy = verdict == watchdog_verdict::too_long;
                        job.seconds_without_progress = judge->seconds_without_progress(now);
                        job.timed_out = true;
                    }
                }
                pthread_kill(watched_.thread, watchdog_signal());  // sample again, or stop it
                if (!job.timed_out)
                    note_kernel_time(job, std::chrono::duration<double>(now - watched_.start).count(), false);
            }
            if (watch_quit_) return;
        }
    }

    void work(progress_counter& counter, int cpu) {
        if (cpu >= 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);  // a hint: on failure the thread still runs
        }
        pool_worker_ptr worker =
            become_pool_worker(&counter.finished, &counter.fingerprint, &counter.answered);
        // A signal stack of our own (signal_stack_size, above).
        std::vector<char> signal_stack(signal_stack_size);
        stack_t ss{};
        ss.ss_sp = signal_stack.data();
        ss.ss_size = signal_stack.size();
        sigaltstack(&ss, nullptr);

        std::uint64_t seen = 0;
        for (;;) {
            launch_job* job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                // After a launch, watch briefly for the next before sleeping.
                if (seen != 0 && !quit_ && generation_ == seen) spin_unlocked(lock, launches_);
                wake_.wait(lock, [&] { return quit_ || (generation_ != seen && tickets_ > 0); });
                if (quit_) break;
                seen = generation_;
                --tickets_;
                ++busy_;
                job = job_;
            }
            work_on_launch(*worker, *job);
            std::lock_guard<std::mutex> lock(mutex_);
            one_returned_ = true;
            returns_.fetch_add(1, std::memory_order_release);
            if (--busy_ == 0) done_.notify_one();
        }
        worker.reset();  // its fibers, before the signal stack they may have used goes
        ss.ss_flags = SS_DISABLE;
        sigaltstack(&ss, nullptr);
    }

    schedule_setting schedule_;
    double watchdog_seconds_;
    std::unique_ptr<progress_counter[]> progress_;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    launch_job* job_ = nullptr;
    std::uint64_t generation_ = 0;
    // generation_ and the workers' returns, counted for the short spins
    // before a sleep (brief_spin.h).
    std::atomic<std::uint64_t> launches_{0}, returns_{0};
    int busy_ = 0;     // workers in work_on_launch
    int tickets_ = 0;  // workers the launch still wants to wake
    bool one_returned_ = false;  // a worker of this launch has come back
    bool quit_ = false;

    // The launch a compute engine thread runs itself (run_here), for the
    // watcher; launches take turns (block_loop.cpp), so there is one at most.
    struct watched_launch {
        launch_job* job = nullptr;  // nullptr: none runs now
        pthread_t thread{};
        progress_counter* counter = nullptr;
        std::chrono::steady_clock::time_point start;
        std::uint64_t number = 0;  // counts such launches, so the watcher tells them apart
    };
    std::thread watcher_;  // only with the watchdog on
    std::mutex watch_mutex_;
    std::condition_variable watch_wake_;
    watched_launch watched_;
    bool watcher_asleep_ = false;
    bool watch_quit_ = false;
};

// Destroyed at exit (the workers are joined), except in a child made with
// fork() (the workers are the parent's, and a condition variable they waited
// on could never be destroyed there) and when exit() was called by a worker
// or the device thread (it would wait for itself).
worker_pool& pool() {
    static worker_pool* instance = [] {
        auto* p = new worker_pool(configured_workers());
        std::atexit([] {
            if (!in_forked_child() && !on_worker_thread() && !on_device_thread()) delete instance;
        });
        return p;
    }();
    return *instance;
}

}  // namespace

int worker_count() { return pool().size(); }

void run_on_workers(launch_job& job) { pool().run(job); }

}  // namespace cuemu::detail
