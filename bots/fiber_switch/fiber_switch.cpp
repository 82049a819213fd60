// fiber_switch: what the ult/ layer costs, in nanoseconds per operation.
//
// Three measurements, each the median of --runs runs of --ops operations:
//
//   switch   two fibers on worker 0 yield to each other; one operation is one
//            Worker::yield() that switches to the other fiber (a same-worker
//            fiber switch through the run queue).
//   handoff  fiber A on worker 0 and fiber B on worker 1 pass a token back and
//            forth: each parks until the token is its own, then passes it and
//            unparks the other. One operation is one one-way handoff (token
//            store, unpark, the other worker noticing and switching in).
//            Idle workers spin (Worker::set_spin_ns(UINT64_MAX)), as with
//            OMP_WAIT_POLICY=active.
//   handoff_sleep  the same with Worker::set_spin_ns(0): an idle worker
//            sleeps on its futex at once, so every handoff also goes through
//            the sleep/notify protocol and a kernel wake-up (as with
//            OMP_WAIT_POLICY=passive). Runs ops / slow_div operations.
//   condvar  the same token ping-pong between two kernel threads with a
//            pthread mutex and condition variable, for comparison.
//   spin     the same ping-pong between two kernel threads that spin on the
//            token (no runtime at all): the floor set by moving a cache line
//            between the two cores and back.
// condvar and spin run after the worker pool is shut down, so no idle worker
// competes for a core.
//
// The whole program is time-bounded (--timeout): a lost wake-up in ult/ would
// otherwise hang it, so SIGALRM prints which measurement stalled and how far
// it got, and exits with status 3.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ult/atomic.hpp"
#include "ult/fiber.hpp"
#include "ult/pin.hpp"
#include "ult/worker.hpp"

using bobbin::Atomic;
using bobbin::memory_order_acquire;
using bobbin::memory_order_relaxed;
using bobbin::memory_order_release;
using bobbin::now_ns;
using bobbin::ult::Fiber;
using bobbin::ult::Worker;

namespace {

struct Options {
  long ops = 1'000'000;
  int runs = 11;
  // The condvar ping-pong and handoff_sleep sleep in the kernel on every
  // handoff (measured 30-40 us per handoff on a 2-vCPU VM, ~80x a spinning
  // fiber handoff), so they run ops / slow_div operations to keep the
  // default run short; the per-operation figure does not depend on the count.
  long slow_div = 100;
  unsigned timeout_s = 120;
  bool csv = false;
  bool pin = true;
  std::string only = "switch,handoff,handoff_sleep,condvar,spin";
};

Options g_opt;
std::vector<int> g_cpus;

// ---- time bound ----------------------------------------------------------------

// What is running and how far it got, for the timeout message. Written by the
// benchmark (relaxed: only a diagnostic), read by the signal handler.
const char* volatile g_phase = "start-up";
Atomic<long> g_progress{0};

void put(const char* s) {
  ssize_t r = write(2, s, strlen(s));
  (void)r;
}

void on_alarm(int) {
  // Async-signal-safe formatting of the progress counter.
  char num[24];
  int n = 0;
  long v = g_progress.load(memory_order_relaxed);
  char tmp[24];
  do { tmp[n++] = char('0' + v % 10); v /= 10; } while (v && n < 23);
  for (int i = 0; i < n; ++i) num[i] = tmp[n - 1 - i];
  num[n] = 0;
  put("fiber_switch: timed out in '");
  put(g_phase);
  put("' after ");
  put(num);
  put(" operations of the current run (a lost wake-up or a hang in ult/?)\n");
  _exit(3);
}

void pin_worker(int id) {
  if (!g_cpus.empty()) bobbin::ult::pin_current_thread({g_cpus[std::size_t(id) % g_cpus.size()]});
}

// Waits on the root fiber of worker 0 until `done` is set by the fiber that
// finishes last. park() may return spuriously, so it loops.
void park_until(const Atomic<int>& done) {
  while (done.load(memory_order_acquire) == 0) Worker::park();
}

void spin_until_reusable(const Fiber& f) {
  while (!f.reusable()) bobbin::cpu_relax();
}

// ---- (a) same-worker switch ----------------------------------------------------

struct SwitchBench {
  long target = 0;      // yields to perform in total (both fibers together)
  long count = 0;       // yields performed; both fibers run on worker 0's thread only
  uint64_t t0 = 0, t1 = 0;
  int alive = 2;
  Fiber* root = nullptr;
  Atomic<int> done{0};
  Fiber fibers[2];
};
SwitchBench* g_sw;

void switch_player(Fiber*) {
  SwitchBench& b = *g_sw;
  if (b.t0 == 0) b.t0 = now_ns();
  while (b.count < b.target) {
    ++b.count;
    g_progress.store(b.count, memory_order_relaxed);
    Worker::yield();
  }
  if (b.t1 == 0) b.t1 = now_ns();
  if (--b.alive == 0) {
    b.done.store(1, memory_order_release);  // pairs with the acquire in park_until
    Worker::unpark(b.root);
  }
}

double run_switch(long ops) {
  SwitchBench b;
  b.target = ops;
  b.root = Worker::current_fiber();
  g_sw = &b;
  g_progress.store(0, memory_order_relaxed);
  for (Fiber& f : b.fibers) {
    f.prepare(&switch_player, nullptr);
    Worker::at(0)->submit(&f);
  }
  park_until(b.done);
  for (Fiber& f : b.fibers) spin_until_reusable(f);
  if (b.count != ops) {
    std::fprintf(stderr, "fiber_switch: switch: %ld yields instead of %ld\n", b.count, ops);
    std::exit(1);
  }
  return double(b.t1 - b.t0) / double(ops);
}

// ---- (b) cross-worker handoff --------------------------------------------------

struct HandoffBench {
  long rounds = 0;
  alignas(64) Atomic<long> turn{0};   // even: fiber 0's turn, odd: fiber 1's
  alignas(64) Atomic<int> ready{0};   // fiber 1 has started
  uint64_t t0 = 0, t1 = 0;            // written by fiber 0 only
  Fiber* root = nullptr;
  Atomic<int> finished{0};
  Atomic<int> done{0};
  Fiber fibers[2];
};
HandoffBench* g_ho;

void handoff_player(Fiber* self) {
  HandoffBench& b = *g_ho;
  long me = reinterpret_cast<intptr_t>(self->user());
  Fiber* other = &b.fibers[1 - me];
  if (me == 1) {
    b.ready.store(1, memory_order_release);
  } else {
    // Fiber 0 owns worker 0 alone (the root fiber is parked), so spinning here
    // keeps fiber 1's start-up out of the timed region.
    while (b.ready.load(memory_order_acquire) == 0) bobbin::cpu_relax();
    b.t0 = now_ns();
  }
  for (long i = me; i < b.rounds; i += 2) {
    // acquire: pairs with the other fiber's release store of the token.
    while (b.turn.load(memory_order_acquire) != i) Worker::park();
    b.turn.store(i + 1, memory_order_release);
    g_progress.store(i + 1, memory_order_relaxed);
    Worker::unpark(other);
  }
  if (me == 0) {
    while (b.turn.load(memory_order_acquire) != b.rounds) Worker::park();
    b.t1 = now_ns();
  }
  if (b.finished.fetch_add(1, std::memory_order_acq_rel) == 1) {
    b.done.store(1, memory_order_release);  // pairs with the acquire in park_until
    Worker::unpark(b.root);
  }
}

double run_handoff(long ops) {
  HandoffBench b;
  b.rounds = ops;
  b.root = Worker::current_fiber();
  g_ho = &b;
  g_progress.store(0, memory_order_relaxed);
  for (intptr_t i = 0; i < 2; ++i) b.fibers[i].prepare(&handoff_player, reinterpret_cast<void*>(i));
  Worker::at(0)->submit(&b.fibers[0]);
  Worker::at(1)->submit(&b.fibers[1]);
  park_until(b.done);
  for (Fiber& f : b.fibers) spin_until_reusable(f);
  if (b.turn.load(memory_order_relaxed) != ops) {
    std::fprintf(stderr, "fiber_switch: handoff: token at %ld instead of %ld\n", b.turn.load(), ops);
    std::exit(1);
  }
  return double(b.t1 - b.t0) / double(ops);
}

// ---- (c) pthread condition-variable ping-pong ----------------------------------

struct CondvarBench {
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cv[2] = {PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};
  long turn = 0;  // guarded by mu
  long rounds = 0;
};

void condvar_play(CondvarBench& b, long me) {
  for (long i = me; i < b.rounds; i += 2) {
    pthread_mutex_lock(&b.mu);
    while (b.turn != i) pthread_cond_wait(&b.cv[me], &b.mu);
    b.turn = i + 1;
    g_progress.store(i + 1, memory_order_relaxed);
    pthread_cond_signal(&b.cv[1 - me]);
    pthread_mutex_unlock(&b.mu);
  }
}

void* condvar_thread(void* arg) {
  pin_worker(1);
  condvar_play(*static_cast<CondvarBench*>(arg), 1);
  return nullptr;
}

double run_condvar(long ops) {
  CondvarBench b;
  b.rounds = ops;
  g_progress.store(0, memory_order_relaxed);
  pthread_t t;
  if (pthread_create(&t, nullptr, &condvar_thread, &b) != 0) {
    std::perror("fiber_switch: pthread_create");
    std::exit(1);
  }
  uint64_t t0 = now_ns();
  condvar_play(b, 0);
  pthread_mutex_lock(&b.mu);
  while (b.turn != ops) pthread_cond_wait(&b.cv[0], &b.mu);
  pthread_mutex_unlock(&b.mu);
  uint64_t t1 = now_ns();
  pthread_join(t, nullptr);
  return double(t1 - t0) / double(ops);
}

// ---- (d) kernel-thread spin ping-pong ------------------------------------------

struct SpinBench {
  alignas(64) Atomic<long> turn{0};
  long rounds = 0;
};

void spin_play(SpinBench& b, long me) {
  for (long i = me; i < b.rounds; i += 2) {
    // acquire: pairs with the other thread's release store of the token.
    while (b.turn.load(memory_order_acquire) != i) bobbin::cpu_relax();
    b.turn.store(i + 1, memory_order_release);
    g_progress.store(i + 1, memory_order_relaxed);
  }
}

void* spin_thread(void* arg) {
  pin_worker(1);
  spin_play(*static_cast<SpinBench*>(arg), 1);
  return nullptr;
}

double run_spin(long ops) {
  SpinBench b;
  b.rounds = ops;
  g_progress.store(0, memory_order_relaxed);
  pthread_t t;
  if (pthread_create(&t, nullptr, &spin_thread, &b) != 0) {
    std::perror("fiber_switch: pthread_create");
    std::exit(1);
  }
  uint64_t t0 = now_ns();
  spin_play(b, 0);
  while (b.turn.load(memory_order_acquire) != ops) bobbin::cpu_relax();
  uint64_t t1 = now_ns();
  pthread_join(t, nullptr);
  return double(t1 - t0) / double(ops);
}

// ---- driver ----------------------------------------------------------------------

struct Row {
  const char* name;
  const char* what;
  long ops;
  std::vector<double> ns;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool wanted(const char* name) {
  std::string list = "," + g_opt.only + ",";
  return list.find("," + std::string(name) + ",") != std::string::npos;
}

void usage(FILE* out) {
  std::fprintf(out,
               "usage: fiber_switch [--ops N] [--runs R] [--csv] [--no-pin] [--timeout S]\n"
               "                    [--only switch,handoff,handoff_sleep,condvar,spin] [--slow-div D]\n"
               "  Medians of R runs (default 11) of N operations (default 1000000), in ns per\n"
               "  operation; handoff_sleep and condvar run N/D operations (default D=100).\n");
}

long parse_long(const char* flag, const char* s) {
  char* end = nullptr;
  double v = std::strtod(s, &end);  // accepts 1e6
  if (!end || *end || v < 1) {
    std::fprintf(stderr, "fiber_switch: bad value '%s' for %s\n", s, flag);
    std::exit(2);
  }
  return long(v);
}

void parse_args(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fiber_switch: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--ops") g_opt.ops = parse_long("--ops", value());
    else if (a == "--runs") g_opt.runs = int(parse_long("--runs", value()));
    else if (a == "--timeout") g_opt.timeout_s = unsigned(parse_long("--timeout", value()));
    else if (a == "--slow-div") g_opt.slow_div = parse_long("--slow-div", value());
    else if (a == "--only") g_opt.only = value();
    else if (a == "--csv") g_opt.csv = true;
    else if (a == "--no-pin") g_opt.pin = false;
    else if (a == "-h" || a == "--help") { usage(stdout); std::exit(0); }
    else { usage(stderr); std::exit(2); }
  }
}

}  // namespace

int main(int argc, char** argv) {
  parse_args(argc, argv);
  signal(SIGALRM, &on_alarm);
  alarm(g_opt.timeout_s);
  if (g_opt.pin) g_cpus = bobbin::ult::allowed_cpus();

  std::vector<Row> rows;
  if (wanted("switch") || wanted("handoff") || wanted("handoff_sleep")) {
    Worker::set_spin_ns(UINT64_MAX);  // idle workers never sleep: OMP_WAIT_POLICY=active
    Worker::ensure_pool(2, g_opt.pin ? &pin_worker : nullptr);
    if (wanted("switch")) {
      Row r{"switch", "same-worker fiber switch (yield)", g_opt.ops, {}};
      g_phase = "switch";
      run_switch(std::min(g_opt.ops, 10'000L));  // warm-up: stacks mapped, caches hot
      for (int i = 0; i < g_opt.runs; ++i) r.ns.push_back(run_switch(g_opt.ops));
      rows.push_back(r);
    }
    if (wanted("handoff")) {
      Row r{"handoff", "cross-worker handoff (unpark/park)", g_opt.ops, {}};
      g_phase = "handoff";
      run_handoff(std::min(g_opt.ops, 10'000L));
      for (int i = 0; i < g_opt.runs; ++i) r.ns.push_back(run_handoff(g_opt.ops));
      rows.push_back(r);
    }
    if (wanted("handoff_sleep")) {
      long ops = std::max(2L, g_opt.ops / g_opt.slow_div);
      Row r{"handoff_sleep", "cross-worker handoff, workers sleep", ops, {}};
      g_phase = "handoff_sleep";
      Worker::set_spin_ns(0);  // idle workers sleep on their futex at once
      run_handoff(std::min(ops, 1'000L));
      for (int i = 0; i < g_opt.runs; ++i) r.ns.push_back(run_handoff(ops));
      Worker::set_spin_ns(UINT64_MAX);
      rows.push_back(r);
    }
    g_phase = "shutdown_pool";
    Worker::shutdown_pool();
  }
  if (wanted("condvar")) {
    if (g_opt.pin) pin_worker(0);
    long ops = std::max(2L, g_opt.ops / g_opt.slow_div);
    Row r{"condvar", "pthread condvar handoff", ops, {}};
    g_phase = "condvar";
    run_condvar(std::min(ops, 1'000L));
    for (int i = 0; i < g_opt.runs; ++i) r.ns.push_back(run_condvar(ops));
    rows.push_back(r);
  }
  if (wanted("spin")) {
    if (g_opt.pin) pin_worker(0);
    Row r{"spin", "kernel-thread spin handoff (floor)", g_opt.ops, {}};
    g_phase = "spin";
    run_spin(std::min(g_opt.ops, 10'000L));
    for (int i = 0; i < g_opt.runs; ++i) r.ns.push_back(run_spin(g_opt.ops));
    rows.push_back(r);
  }
  alarm(0);

  if (g_opt.csv) {
    std::printf("bench,runs,ops,median_ns,min_ns,max_ns\n");
    for (const Row& r : rows) {
      auto [lo, hi] = std::minmax_element(r.ns.begin(), r.ns.end());
      std::printf("%s,%zu,%ld,%.2f,%.2f,%.2f\n", r.name, r.ns.size(), r.ops, median(r.ns), *lo, *hi);
    }
    return 0;
  }
  std::printf("fiber_switch: ns per operation, median of %d runs (min..max), workers %s\n", g_opt.runs,
              g_opt.pin ? "pinned" : "unpinned");
  std::printf("  %-36s %10s %10s  %s\n", "operation", "ops/run", "median", "min..max");
  for (const Row& r : rows) {
    auto [lo, hi] = std::minmax_element(r.ns.begin(), r.ns.end());
    std::printf("  %-36s %10ld %10.1f  %.1f..%.1f\n", r.what, r.ops, median(r.ns), *lo, *hi);
  }
  return 0;
}
