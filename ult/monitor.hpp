// The progress monitor: a kernel thread that notices a worker held by one
// fiber while others wait for it, and rescues them (monitor.cpp).
#pragma once

#include <signal.h>

#include <cstdint>

namespace bobbin::ult {

struct MonitorSettings {
  // A worker that has passed no scheduling point for this long, with runnable
  // fibers queued behind the running one, is stuck.
  uint64_t stuck_ns = 2'000'000;
  // Whether a stuck worker's running fiber may be preempted (preempt.hpp).
  bool preempt = true;
  // No scheduling point anywhere for this long while OpenMP threads wait:
  // print the watchdog report once (0: never).
  uint64_t watchdog_ns = 30'000'000'000ull;
  // Prints the runtime's part of the report (teams, gangs, waits); may be null.
  void (*report)() = nullptr;
};

// Starts the monitor thread (idempotent); the settings are read once.
void start_monitor(const MonitorSettings& s);
// Ends a backoff sleep of the monitor (fibers were queued that may need it
// soon); one relaxed load when it is not backing off.
void monitor_kick();
// Whether it runs (one relaxed load).
bool monitor_running();
// Stops and joins it (before the pool is shut down). Idempotent.
void stop_monitor();
// In the child of a fork(): the monitor thread did not survive; the next
// start_monitor starts a new one.
void forget_monitor_after_fork();
// On the monitor thread: stores the signal mask of the thread that started
// it (the program's) in *mask and answers true. A kernel thread the monitor
// creates (a spare, ult/worker.cpp) must take that mask, not the monitor's
// own, which blocks every signal: a spare that blocked the preemption
// signal could never be preempted. False on any other thread.
bool monitor_thread_mask(sigset_t* mask);
// Rescues counted so far (fibers moved to spares, preemptions sent).
uint64_t monitor_moves();
uint64_t monitor_preemptions();

}  // namespace bobbin::ult
