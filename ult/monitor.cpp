// The progress monitor.
//
// The problem. OpenMP threads are fibers on fewer kernel threads. A fiber
// that waits outside the runtime (a user spin barrier, a flag, a blocking
// read, pthread_barrier_wait, an MPI call) keeps its worker, and the fibers
// queued behind it — maybe the very ones it waits for — never run. Gang
// scheduling rules this out while a nested team fits the free workers
// (scheduler/README.md); a team wider than them, or a program whose outer
// threads wait for one another, needs something else. A kernel-thread
// runtime survives by time-slicing; Bobbin must too, without giving up
// fibers where they win (regions whose threads meet in the runtime, where a
// switch is tens of nanoseconds instead of a futex round trip).
//
// Rejected designs. (1) A kernel thread per OpenMP thread of any team wider
// than the free workers, from the start: safe, but it gives up the fiber
// switch exactly in the oversubscribed nested regions Bobbin exists for
// (nested 2 x 8 with an omp barrier: 3 us per region as fibers, 58 us with
// libomp's kernel threads). (2) Moving a started fiber to another kernel
// thread: its stack may hold addresses in its first thread's TLS (errno,
// __thread threadprivate), so it would see two copies of its own
// thread-local data. (3) Detecting user spin-waits: a spinning loop and a
// computing one look the same from outside.
//
// The chosen design (Go's sysmon, adapted). Every fiber start and switch
// bumps its worker's progress counter. This thread samples the counters:
// a worker whose counter has not moved for `stuck_ns` of its thread's own
// time (held_ns: running or asleep in a system call, not waiting for a
// processor) while runnable fibers are queued behind its running fiber is
// stuck (held by a fiber that either
// waits outside the runtime or computes for a long time; the two are treated
// alike, see below). Then:
//   1. Not-started movable fibers queued there go each to a spare worker (a
//      kernel thread of its own, ult/worker.hpp), where they will start and
//      stay: a fiber that has not started has no TLS to lose.
//   2. If runnable fibers remain (started ones, which only this worker's
//      thread may run, or fibers bound to it), the running fiber is
//      preempted (preempt_linux.cpp): it goes to the back of the queue and
//      the next one runs, as the OS would time-slice kernel threads.
//   3. A move, and a preemption of a fiber whose thread was asleep in a
//      system call, report the fiber through the `rescued` hook, so the
//      runtime can give the members of that region kernel threads of their
//      own the next time (memory per call site, runtime/progress.cpp): a
//      loop of 1000 such regions pays the detection once. A preemption of
//      a running fiber (spinning or computing) reports nothing: its region
//      keeps fibers, whose turns on a worker (a few hundred microseconds,
//      below) beat kernel threads that spin until the OS ends their time
//      slices. Remembered, a flag pipeline with gcc's inlined flush (NPB LU
//      class S, 4 threads on 2 cores: 50 regions) ran as kernel threads as
//      slowly as on libgomp, 7.5 s against 7.0; as fibers, 1.4 s, and
//      syncshapes' gcc flag shape and pause-only spin barrier (inner 4 x
//      outer 2 to 8 x 4) 2-3 and 4-8 times faster.
// Treating long computations like waits costs little: a fiber that runs for
// milliseconds between scheduling points gains nothing from fibers, and on
// its own kernel thread it is time-sliced exactly as under libomp. Started
// fibers that compute can only take turns; a worker's turns start at an
// eighth of stuck_ns and double, up to stuck_ns, while the handler finds
// the fibers it preempts computing rather than spinning (fiber_turns): at
// 250 us turns, the monitor's wake-ups and signals cost such members 30-40%.
//
// Invariant (progress): a runnable fiber queued on a worker whose running
// fiber never reaches a scheduling point is, within stuck_ns plus one
// sampling period, either started on a kernel thread of its own or run by
// preemption, unless its worker's running fiber never reaches a safe point
// (preempt_linux.cpp) — then the watchdog says so.
//
// Sampling. While some worker has runnable fibers queued and its counter
// stands still, the period is stuck_ns / 8 (patience_ns for a thread
// blocked in the kernel; stuck_ns / 40 for a while after a rescue of one,
// and while fibers take the shortest turns; half a turn while they take
// longer ones); while fibers are queued but every counter moves,
// it doubles up to stuck_ns / 2 (moving_period); with nothing queued it
// doubles up to 100 ms (a guess: an idle program sees 10 wake-ups a second). It sleeps on a futex with a timeout: never
// spins. A fork whose members queue behind their creator (steal mode, the
// case that can get stuck) kicks it out of a long sleep (monitor_kick, one
// relaxed load when it is not in one): without the kick the first stuck
// region of a program waited out the backoff, 0.2 s in syncshapes.
//
// The watchdog. No scheduling point on any worker for watchdog_ns while
// fibers wait (parked or queued): print once which fiber each worker runs,
// how long it has held it, and the runtime's account (teams, gangs, what
// each waiting OpenMP thread waits for); print again only after progress.
#include "ult/monitor.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>

#include <cstdio>
#include <cstring>
#include <vector>

#include "ult/guard.hpp"
#include "ult/log.hpp"
#include "ult/preempt.hpp"
#include "ult/thread_info.hpp"
#include "ult/trace.hpp"
#include "ult/worker.hpp"

namespace bobbin::ult {

namespace {

MonitorSettings g_set;
// 0 stopped, 1 starting or running. start_monitor's CAS makes one caller start it.
Atomic<int> g_state{0};
Atomic<uint32_t> g_stop{0};  // 1 asks the thread to leave
// The futex word the monitor sleeps on: bumped by stop_monitor and by
// monitor_kick, so either ends a sleep at once.
Atomic<uint32_t> g_wake{0};
// 1 while the monitor sleeps longer than its short period (backing off):
// monitor_kick wakes it only then, so a fork pays one relaxed load.
Atomic<uint32_t> g_long_sleep{0};
pthread_t g_thread;
sigset_t g_program_mask;  // the mask of the thread that started the monitor (set before it starts)
thread_local bool t_monitor = false;
Atomic<uint64_t> g_moves{0};
Atomic<uint64_t> g_preempts{0};

// Kernel threads' turns (end_kernel_turn), in units of stuck_ns / 16 of
// processor time (125 us by default): 2 at first, as fibers' turns; 1 for
// a thread found spinning, whose turn ends sooner (the monitor then
// samples every unit: a user spin barrier of 4 and 8 kernel threads on 2
// processors took 0.65 and 2.2 ms per barrier with turns of 2 units, 0.43
// and 1.4 with 1); up to 16 (2 ms, about the OS's own slice) for a thread
// found computing.
constexpr uint32_t kSpinTurns = 1, kFirstTurns = 2, kMaxTurns = 16;
uint64_t turn_unit_ns() { return g_set.stuck_ns / 16; }

// The first move from a held worker takes at most this many fibers, and
// each further one, while the worker stays held, twice as many as the one
// before. A worker held for a few milliseconds by something that ends by
// itself (its thread faulting in fresh stacks behind others' mmap and
// munmap) had every fiber queued there moved at once, each to a kernel
// thread of its own: a league of 4500 teams queued on one worker got 500 to
// 1500 spares, and took 1.3-2 s instead of 0.8. A fiber that waits for the
// ones queued behind it keeps its worker held, and the moves double at the
// sampling period (50 us while hot): a thousand queued members are all
// moved within ten periods.
constexpr uint32_t kFirstMoves = 4;  // a guess: a spin barrier's inner team on 2 processors
constexpr uint32_t kMaxMoves = 1u << 20;

struct Seen {
  uint64_t progress = ~uint64_t(0);
  uint64_t since = 0;
  // Held time (held_ns), accumulated from the first sample that saw the
  // worker held with fibers queued: `last` and `last_cpu` are the time and
  // the thread's processor time at the previous sample.
  bool based = false;
  uint64_t last = 0;
  uint64_t last_cpu = 0;
  uint64_t held = 0;
  // Until then the worker takes turns among started fibers (it was
  // preempted): held time is wall time (see the loop).
  uint64_t turns_until = 0;
  // A kernel thread's turn (end_kernel_turn): its processor time when the
  // turn began and at the previous sample; `turn_based` false: not yet read.
  bool turn_based = false;
  uint64_t turn_cpu = 0;
  uint64_t turn_last = 0;
  // Its turn's length, in units of turn_unit_ns(): doubled (up to kMaxTurns)
  // each time the handler found it computing, back to kSpinTurns when it
  // found it spinning.
  uint32_t turns = kFirstTurns;
  // A preemption was sent since the worker's last progress, and the
  // preemptions in a row that the handler declined: the thread was outside
  // user code each time (see move_to_spares). Progress resets both.
  bool sent = false;
  uint32_t misses = 0;
  // How many not-started fibers the next move may take (move_to_spares):
  // doubled at each move, back to kFirstMoves at progress.
  uint32_t moves = kFirstMoves;
  // A look was asked for this turn (send_look; progress resets it), and
  // how many turns go without one: kSkippedLooks after a fiber was found
  // spinning (a look costs its turn a signal and the monitor a read of
  // /proc: a spin barrier's turns were 10% longer with one each).
  bool looked = false;
  uint32_t skip_looks = 0;
  // The length of its fibers' turns while they take turns, in units of
  // stuck_ns / 8 (250 us by default): doubled, up to kMaxFiberTurns, each
  // time the handler found the fiber it preempted computing; back to 1 when
  // it found one spinning, yielding or asleep (preempt_linux.cpp,
  // fiber_turn_kind). Kept across progress: it belongs to the worker.
  uint32_t fiber_turns = 1;
};
// Up to 2 ms by default (stuck_ns), about the OS's own slice: 2 x 8 members
// on 2 cores computing 30 sections of about 3 ms each, after an omp
// barrier, took 2.0-2.3 s with turns of 250 us, libomp 1.6 s.
constexpr uint32_t kMaxFiberTurns = 8;
// The unit of fiber_turns: stuck_ns / 8 (250 us by default).
uint64_t fiber_turn_unit_ns() { return g_set.stuck_ns / 8; }
constexpr uint32_t kSkippedLooks = 4;  // a guess: computing fibers are found a millisecond later
constexpr uint64_t kTurnPeriodCap = 20'000'000;  // 20 ms: see monitor_main

// How long worker w's running fiber has held it while runnable fibers were
// queued, counting only time its kernel thread ran (its processor time) or
// slept in a system call (a sample that finds it so counts the time since
// the previous one that it did not run): time it was runnable while
// the OS ran other threads is not the fiber's doing. With more kernel
// threads than processors (an outermost team wider than the machine:
// nested 8 x 16 on 2 cores) a worker waits for a processor for whole time
// slices between two scheduling points; counted as held, as wall time was,
// every such worker looked stuck, its inner team went to spares and the
// region was remembered for kernel threads: 1-29 ms per inner region
// instead of 40-60 us. (The OS's run-queue wait, /proc's schedstat, does
// not do: it is added only when the thread next runs. Nor does counting
// uninterruptible waits: worker threads spent 2-16 ms in them, faulting in
// fresh stacks behind each other's address-space lock, and looked stuck.)
// Without the thread's clock, wall time since `since`.
//
// `*blocked` tells whether the thread sleeps in a system call now. At the
// first sample that sees the worker held, a thread found asleep is taken
// to have slept since its last scheduling point (`since`, at most one
// period before): a fiber that blocks in the kernel with others queued
// behind it keeps the worker for nothing, and is rescued at once (below).
uint64_t held_ns(Worker& w, Seen& s, uint64_t now, bool* blocked) {
  *blocked = false;
  long tid = w.kernel_tid();
  if (!tid) return 0;  // its thread has not started yet: nothing holds it
  uint64_t cpu = 0;
  if (!thread_cpu_ns(tid, &cpu)) return now - s.since;
  // A thread that ran for at least half the time since the previous sample
  // is taken to run still: /proc is read only for one that did not (a
  // read of its stat file costs the monitor 10-20 us of system time, on a
  // processor the workers need; fibers taking turns by preemption had it
  // read at every turn).
  bool ran_lately = s.based && 2 * (cpu - s.last_cpu) >= now - s.last;
  *blocked = !ran_lately && thread_blocked(tid);
  if (!s.based) {
    s.based = true;
    s.last = now;
    s.last_cpu = cpu;
    s.held = *blocked ? now - s.since : 0;
    return s.held;
  }
  uint64_t ran = cpu - s.last_cpu, wall = now - s.last;
  s.held += ran;
  if (wall > ran && *blocked) s.held += wall - ran;
  s.last = now;
  s.last_cpu = cpu;
  return s.held;
}

// How long a held worker may keep its queued fibers waiting: stuck_ns while
// its fiber runs (a spin-wait may end by itself; a long computation loses
// nothing by waiting), an eighth of it (250 us by default, one short
// period) while its thread sleeps in a system call (a blocking read, a
// pthread barrier or a semaphore: the worker's processor idles until the
// fibers behind it run, and they are often the ones the sleeper waits
// for). syncshapes' pthread barrier and semaphore shapes (inner teams of 4
// on 2 workers) paid up to three 2-3 ms detections per region before the
// region was remembered for kernel threads.
//
// Hot: for a while after a rescue (kHotNs, extended by each one), blocked
// threads get a fifth of that, and the monitor samples as often. A region
// that needed one rescue keeps needing them until its next fork gives its
// members kernel threads (runtime/progress.cpp): its started fibers can
// only take turns, one preemption per member that blocks. syncshapes'
// pthread shape (20 rounds of pthread_barrier_wait, 4 members on one
// worker) paid about 0.4 ms per turn, 50 ms for its first region (libomp:
// 1-3 ms).
constexpr uint64_t kHotNs = 20'000'000;  // a guess: a few regions' worth of rounds
constexpr uint32_t kMissesBeforeMove = 2;  // a guess: a signal or two that came as the loop was in a call
uint64_t patience_ns(bool blocked, bool hot) {
  if (!blocked) return g_set.stuck_ns;
  return hot ? g_set.stuck_ns / 40 : g_set.stuck_ns / 8;
}

// Moves up to `most` of the not-started movable fibers queued on w to
// spares, one each (kFirstMoves says why not all at once).
// Bound ones (a place) only with `placed` (see kMissesBeforeMove).
void move_to_spares(Worker& w, bool placed, uint32_t most) {
  for (uint32_t moved = 0; moved < most; ++moved) {
    // Keyed fibers are gang members, reserved on this worker: the scheduler
    // gives their place up (the worker is held outside the runtime, maybe by
    // a fiber of another gang that waits for this very member).
    Fiber* f = w.steal_unstarted([&w, placed](Fiber* c) {
      if (c->place() >= 0 && !placed) return false;
      return c->order_key() == 0 || (work_hooks().keyed_rescued && work_hooks().keyed_rescued(w, c));
    });
    if (!f) return;
    Worker* spare = Worker::take_spare();
    if (!spare) {
      w.submit(f);
      return;
    }
    if (work_hooks().rescued) work_hooks().rescued(f);
    if (trace::on()) trace::rescued_move(w.id(), spare->id());
    spare->submit(f);
    g_moves.fetch_add(1, memory_order_relaxed);
  }
}

// Turns of kernel threads. With more kernel threads than processors (an
// outermost team wider than the machine run as a kernel thread per member:
// thread-local data in the program, or members that may open active nested
// regions; or spares), a member that waits for another outside the runtime
// spins until the OS ends its time slice, while the member it waits for
// may be queued on that very processor. A flush in a clang build, a failed
// omp_test_lock and the runtime's own waits give the processor up then
// (runtime/sync.cpp), but gcc inlines the flush as a fence, and a user spin
// loop calls nothing: every hand-over of NPB LU's flag pipeline waited for
// a time slice, 2-7 ms on 2 processors (libgomp and libomp alike).
//
// So a worker with nothing queued whose thread has run for a turn (an
// eighth of stuck_ns of its processor time at first, as fibers' turns) without a
// scheduling point and without creating a task gets the preemption signal
// with a request to end its turn (send_turn_end). The handler gives the
// processor up (sched_yield: the OS runs another thread waiting for that
// processor, if there is one) only if the thread seems to spin: found in
// user code at the spot where the previous end of its turn found it, with
// the same registers or while trusted to spin (preempt_linux.cpp,
// end_turn_if_spinning). A thread found computing has
// its turns doubled, up to kMaxTurns (2 ms by default, about the OS's own
// slice); one found spinning gets the shortest turn (kSpinTurns). Task creations are seen
// through the step-0 request (ask_to_yield), set as a turn begins and
// taken at the next task creation: a thread that runs tasks is in the
// runtime, not waiting outside it.
//
// Costs, 4 kernel threads on 2 processors (OMP_MAX_ACTIVE_LEVELS=2), 11
// runs: signals every turn to every thread, each yielding, cost fib, sort
// and nqueens 10-30%; without the yields, the monitor's wake-ups (1000 a
// second) still cost sort 20% (monitor_main's period); with the spot
// alone as the spin test, NPB's EP (class W, tight loops) 5-7%. Now fib,
// sort, nqueens and multiaxpy are within 2-4% of their times without
// turns (11 runs, noise 3-7%), EP 3%.
//
// Answers 2 if the previous end of its turn found the thread spinning, 1
// if it ran since the previous sample, else 0 (the monitor's period
// depends on it).
int end_kernel_turn(Worker& w, Seen& s) {
  long tid = w.kernel_tid();
  uint64_t cpu = 0;
  if (!tid || !thread_cpu_ns(tid, &cpu)) return 0;
  uint32_t result = w.take_turn_result();
  if (result == Worker::kTurnSpun) s.turns = kSpinTurns;
  else if (result == Worker::kTurnComputed) s.turns = std::min(s.turns * 2, kMaxTurns);
  int answer = result == Worker::kTurnSpun ? 2 : s.turn_based && cpu != s.turn_last ? 1 : 0;
  s.turn_last = cpu;
  if (!s.turn_based || !w.asked_to_yield()) {
    // A new turn: from now, unless a task is created before its end.
    s.turn_based = true;
    s.turn_cpu = cpu;
    w.ask_to_yield();
    return answer;
  }
  if (cpu - s.turn_cpu < s.turns * turn_unit_ns()) return answer;
  s.turn_cpu = cpu;
  // The handler yields only in the program's code: its table must know
  // objects loaded since (a plugin's spin; one look at the loader's count
  // when nothing was loaded).
  if (signal_unseen(w)) {
    refresh_user_code_ranges();
    send_turn_end(w);
  }
  return answer;
}

void print_report(uint64_t now, const std::vector<Worker*>& workers, const std::vector<Seen>& seen) {
  fprintf(stderr, "bobbin: watchdog: no OpenMP thread passed a scheduling point for %.1f s while others wait "
                  "(BOBBIN_WATCHDOG); state of the workers:\n",
          double(g_set.watchdog_ns) / 1e9);
  for (std::size_t i = 0; i < workers.size(); ++i) {
    Worker* w = workers[i];
    Fiber* r = w->running_hint();
    char who[160];
    if (!r || (r->native() && w->dedicated())) snprintf(who, sizeof who, "nothing (idle)");
    else describe_fiber(r, who, sizeof who);
    fprintf(stderr, "bobbin:   %s %d: runs %s, for %.1f s without a scheduling point; %zu queued, %d waiting\n",
            w->spare() ? "spare" : "worker", w->id(), who, double(now - seen[i].since) / 1e9, w->ready_count(),
            w->waiting_fibers());
  }
  if (g_set.report) g_set.report();
  fflush(stderr);
}

void* monitor_main(void*) {
  t_monitor = true;
  if (trace::on()) trace::attach_thread("monitor", 3 * Worker::kMaxWorkers);
  std::vector<Worker*> workers;
  std::vector<Seen> seen;  // by position in `workers`: pool workers, then spares (both only grow)
  // While fibers are queued somewhere: one period per patience for a
  // blocked thread (about 4000 wake-ups a second, each a loop over the
  // workers' counters: under 1% of a processor).
  uint64_t idle_period = patience_ns(true, false);
  // While the queued fibers all move (a team wider than its workers whose
  // members take turns at scheduling points: the normal state, not a
  // stuck one), the period doubles up to half of stuck_ns: detection then
  // comes at most that much later, and the wake-ups, each taking a busy
  // processor from a worker for a few microseconds, drop from 4000 to 1000
  // a second (multiaxpy, 2^16 per leaf, 4 threads on 2 workers: 0.097 s,
  // 0.093 with the monitor sampling rarely; libgomp 0.095).
  uint64_t moving_period = std::max(idle_period, g_set.stuck_ns / 2);
  uint64_t hot_until = 0, turns_until = 0, turning_until = 0;
  uint64_t period = idle_period, turn_period = idle_period;
  uint64_t last_sum = 0, last_change = now_ns();
  bool reported = false;
  while (g_stop.load(memory_order_acquire) == 0) {  // pairs with stop_monitor's release
    uint32_t word = g_wake.load(memory_order_relaxed);
    g_long_sleep.store(period > moving_period ? 1 : 0, memory_order_relaxed);
    if (g_stop.load(memory_order_acquire) != 0) break;
    futex_wait_for(&g_wake, word, period);
    g_long_sleep.store(0, memory_order_relaxed);
    if (g_stop.load(memory_order_acquire) != 0) break;
    uint64_t now = now_ns();
    int pool = Worker::pool_size();
    int spares = Worker::spares_started();
    workers.clear();
    for (int i = 0; i < pool; ++i)
      if (Worker* w = Worker::at(i)) workers.push_back(w);
    for (int i = 0; i < spares; ++i) workers.push_back(Worker::spare_at(i));
    if (seen.size() < workers.size()) seen.resize(workers.size());
    bool queued_anywhere = false, stalled_anywhere = false, turning_anywhere = false;
    uint32_t shortest_turn = kMaxFiberTurns;  // fiber_turns of the workers whose fibers take turns
    bool kernel_turns = g_set.preempt && Worker::oversubscribed();
    int waiting = 0;
    uint64_t sum = 0;
    for (std::size_t i = 0; i < workers.size(); ++i) {
      Worker& w = *workers[i];
      Seen& s = seen[i];
      uint64_t p = w.progress();
      sum += p;
      uint32_t kind = w.take_fiber_turn();
      if (kind == Worker::kTurnComputed) s.fiber_turns = std::min(s.fiber_turns * 2, kMaxFiberTurns);
      else if (kind == Worker::kTurnSpun) {
        s.fiber_turns = 1;
        s.skip_looks = kSkippedLooks;
      }
      if (now < s.turns_until) shortest_turn = std::min(shortest_turn, s.fiber_turns);
      waiting += w.waiting_fibers();
      // Queued behind the running fiber: runnable ones, and gang members that
      // may not start here yet (a stuck earlier gang holds the worker: they
      // go to spares, step 1).
      bool queued = w.has_runnable_queued() || w.ready_count() != 0;
      queued_anywhere |= queued;
      if (p != s.progress) {
        s.progress = p;
        s.since = now;
        s.based = false;
        s.turn_based = false;
        s.sent = false;
        s.misses = 0;
        s.moves = kFirstMoves;
        s.looked = false;
        if (s.skip_looks > 0) --s.skip_looks;
        continue;
      }
      if (!queued) {
        s.based = false;
        if (kernel_turns) {
          int turn = end_kernel_turn(w, s);
          if (turn == 2) turns_until = now + kHotNs;
          if (turn != 0) turning_anywhere = true;
        }
        continue;
      }
      s.turn_based = false;
      stalled_anywhere = true;
      bool blocked = false, hot = now < hot_until;
      if (now - s.since < patience_ns(true, hot)) continue;
      uint64_t held = held_ns(w, s, now, &blocked);
      // A worker whose fibers take turns by preemption (it needed one in the
      // last kHotNs) is time-sliced by wall time, as the OS slices kernel
      // threads: its processor time grows slowly once kernel threads
      // outnumber the processors, and each of its fibers had to wait for
      // that much of it. An outer team of 8 fibers on 2 workers whose
      // members are each the primary thread of an inner team meeting at a
      // user spin barrier (its other members on spares): each round waited
      // for every fiber of the worker to get 2 ms of processor time.
      // Its turns are an eighth of stuck_ns (250 us by default), longer
      // for fibers found computing (fiber_turns).
      bool taking_turns = !blocked && now < s.turns_until;
      if (taking_turns) held = std::max(held, now - s.since);
      uint64_t patience = taking_turns ? s.fiber_turns * fiber_turn_unit_ns() : patience_ns(blocked, hot);
      // Step 0: half way, ask the running fiber to let the others run at its
      // next task scheduling point. One that runs tasks (inline, depth
      // first, for milliseconds) is not waiting for anyone: it yields, and
      // the fibers behind it start here instead of on spares (sort, 8
      // fibers on 2 workers: 6 of them moved to kernel threads in half the
      // runs, 0.33-0.52 s against 0.24).
      if (!blocked && held >= patience / 2) {
        w.ask_to_yield();
        // Where it is half way, for the test of a spin at the turn's end.
        if (taking_turns && g_set.preempt && !s.looked && s.skip_looks == 0 && signal_unseen(w)) s.looked = send_look(w);
      }
      if (held < patience) continue;
      // Stuck: steps 1 and 2 of the design. A bound member (a fiber with a
      // place) is moved only once preemptions have missed: a spare pinned
      // to its place is a kernel thread that spins until the OS ends its
      // time slice, where a preempted fiber takes a turn of an eighth of
      // stuck_ns (the progress matrix's pause-only spin with
      // OMP_PROC_BIND=spread,close, gcc build, 5 rounds: 12 s with every
      // one moved at once, 3 s preempted). But a thread that spins outside
      // user code (in a library's loop, or a C library call that keeps a
      // frame) is rarely found where the handler may switch fibers: a user
      // spin barrier calling isatty in its loop, outer 4 x inner 4 on the
      // 2 places, 3 rounds, took 47-52 s preempted alone, 0.07-0.08 with
      // the moves (libgomp 0.07).
      if (s.sent && !w.preempt_request_pending()) {
        ++s.misses;  // taken, and still no progress: declined
        s.sent = false;
      }
      // Hot for a thread asleep in the kernel (patience_ns); fibers
      // preempted as they run take turns (taking_turns) at a slower rate.
      if (blocked) hot_until = now + kHotNs;
      else turning_until = now + kHotNs;
      move_to_spares(w, s.misses >= kMissesBeforeMove, s.moves);
      s.moves = std::min(s.moves * 2, kMaxMoves);
      // A thread asleep in a call that the signal would end with EINTR
      // (poll, select, a timed wait) is left alone: the program would see
      // the EINTR. Its fibers wait for the call to end, or are served by
      // the runtime's wrappers of those calls (block_wait.hpp).
      if (g_set.preempt && w.has_runnable_queued() && signal_unseen(w)) {
        refresh_user_code_ranges();
        if (send_preemption(w, blocked)) {
          s.sent = true;
          if (trace::on()) trace::rescued_preempt(w.id());
          g_preempts.fetch_add(1, memory_order_relaxed);
          s.turns_until = now + kHotNs;
        }
      }
    }
    Worker::update_oversubscribed();
    if (sum != last_sum) {
      last_sum = sum;
      last_change = now;
      reported = false;
    } else if (g_set.watchdog_ns && !reported && waiting > 0 && now - last_change >= g_set.watchdog_ns) {
      print_report(now, workers, seen);
      reported = true;
    }
    uint64_t cap = 100'000'000;  // 100 ms
    if (g_set.watchdog_ns && g_set.watchdog_ns / 4 < cap) cap = std::max<uint64_t>(g_set.watchdog_ns / 4, idle_period);
    if (!queued_anywhere) period = std::min(period * 2, cap);
    else if (now < hot_until) period = patience_ns(true, true);
    // Fibers taking turns: sampled as often as when hot while their turns
    // are the shortest (a spin barrier's, whose turns are then about as
    // long as asked), else twice a turn.
    else if (now < turning_until)
      period = shortest_turn == 1 ? patience_ns(true, true) : shortest_turn * fiber_turn_unit_ns() / 2;
    else if (stalled_anywhere) period = idle_period;
    else period = std::min(std::max(period, idle_period) * 2, moving_period);
    // Kernel threads that run: a spinning thread's turn as the period while
    // threads spin (one was found spinning within kHotNs), else a period
    // that doubles up to
    // kTurnPeriodCap: a wake-up of the monitor takes a processor from a
    // busy thread, and 1000 of them a second, with no spinning thread to
    // find, cost sort (4 kernel threads on 2 processors) 20%. The first
    // spinning thread is then found up to that much later; the OS's own
    // time slice is a few milliseconds.
    if (!turning_anywhere) turn_period = idle_period;
    else if (now < turns_until) turn_period = turn_unit_ns() * kSpinTurns;
    else turn_period = std::min(turn_period * 2, kTurnPeriodCap);
    if (turning_anywhere) period = std::min(period, turn_period);
  }
  return nullptr;
}

}  // namespace

void start_monitor(const MonitorSettings& s) {
  int expect = 0;
  if (g_state.load(memory_order_relaxed) != 0 || !g_state.compare_exchange_strong(expect, 1, memory_order_acq_rel)) return;
  g_set = s;
  if (g_set.stuck_ns < 100'000) g_set.stuck_ns = 100'000;
  if (g_set.preempt && preemption_available()) install_preemption();
  else g_set.preempt = false;
  g_stop.store(0, memory_order_relaxed);
  sigset_t all, old;
  sigfillset(&all);
  // The monitor takes no signal of the program's (it inherits this mask).
  pthread_sigmask(SIG_SETMASK, &all, &old);
  g_program_mask = old;
  int rc = pthread_create(&g_thread, nullptr, &monitor_main, nullptr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) {
    warn("cannot start the progress monitor: %s", strerror(rc));
    g_state.store(0, memory_order_relaxed);
    return;
  }
  pthread_setname_np(g_thread, "bobbin-monitor");
}

void stop_monitor() {
  if (g_state.load(memory_order_acquire) != 1) return;
  g_stop.store(1, memory_order_release);  // pairs with monitor_main's acquire
  g_wake.fetch_add(1, memory_order_release);
  futex_wake(&g_wake, 1);
  pthread_join(g_thread, nullptr);
  g_state.store(0, memory_order_release);
}

void forget_monitor_after_fork() {
  g_state.store(0, memory_order_relaxed);
  g_stop.store(0, memory_order_relaxed);
}

void monitor_kick() {
  // relaxed: a missed kick only costs the rest of the current sleep.
  if (g_long_sleep.load(memory_order_relaxed) == 1 && g_long_sleep.exchange(0, memory_order_relaxed) == 1) {
    g_wake.fetch_add(1, memory_order_relaxed);
    futex_wake(&g_wake, 1);
  }
}

bool monitor_thread_mask(sigset_t* mask) {
  if (!t_monitor) return false;
  *mask = g_program_mask;
  return true;
}

bool monitor_running() { return g_state.load(memory_order_relaxed) != 0; }
uint64_t monitor_moves() { return g_moves.load(memory_order_relaxed); }
uint64_t monitor_preemptions() { return g_preempts.load(memory_order_relaxed); }

}  // namespace bobbin::ult
