// Teams and OpenMP threads: the runtime's core data structures.
//
// An OpenMP thread is a fiber plus a Thread descriptor (fiber.user() points
// to it). The thread that encounters a parallel region becomes thread 0 of
// the new team on its own fiber: its (team, tid, ICVs, worksharing counters)
// are saved in the Team and restored at the join. Members 1..n-1 are fresh
// fibers whose descriptors belong to the team (or, for the outermost team, to
// their worker, so that gtids and threadprivate copies persist per worker).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/api.hpp"
#include "runtime/barrier.hpp"
#include "runtime/loop_state.hpp"
#include "runtime/task.hpp"
#include "runtime/wait.hpp"
#include "ult/fiber.hpp"
#include "ult/worker.hpp"

namespace bobbin::sched {
class Topology;
}

namespace bobbin::rt {

struct Team;

// Data-environment ICVs of an implicit task (copied into each child at fork).
struct Icvs {
  int nthreads = 1;          // nthreads-var, first element
  int nthreads_pos = 0;      // where this level is in the OMP_NUM_THREADS list
  Schedule sched;            // run-sched-var
  bool dynamic = false;      // dyn-var
  int max_active_levels = 1; // max-active-levels-var
  int bind = 0;              // bind-var, first element (omp_proc_bind_t)
  int bind_pos = 0;          // where this level is in the OMP_PROC_BIND list
  uintptr_t def_allocator = 0;  // def-allocator-var; 0: the one OMP_ALLOCATOR names (alloc.cpp)
  int default_device = 0;    // default-device-var
  int thread_limit = 0;      // thread-limit-var of the contention group (0: OMP_THREAD_LIMIT)
};

// A thread's place and place partition (a run of places, wrapping around the list).
struct Binding {
  int place = -1;            // -1: not bound
  int part_start = 0;
  int part_len = 0;
};

// What a thread was doing before it became thread 0 of a new team.
struct SavedContext {
  Team* team;
  int tid;
  Task* current_task;
  Binding binding;
  Icvs icv;
  uint32_t ws_seq, ws_slot, single_seq, red_seq;
  LoopCursor cursor;
};

// Cache-line aligned, and the OpenMP fields start a line of their own: the
// fiber's fields are written at every region (by the forking thread and the
// member's worker, through the run queue and the switch), while a member
// reads the rest, which fork leaves alone when unchanged. Sharing a line
// with the fiber, or with another allocation, cost a member a miss or two
// per region: measured with EPCC's parallel (2 threads), 0.35 us of a gcc
// build's 1.1 us (the layout, hence the loss, moved with the other objects
// malloc placed nearby, e.g. when libgomp.so.1 was loaded too).
struct alignas(kCacheLine) Thread {
  ult::Fiber fiber;          // unused for a kernel thread's root descriptor
  alignas(kCacheLine) int gtid = 0;  // written once at creation
  Team* team = nullptr;      // current team; this thread only
  int tid = 0;               // omp_get_thread_num in `team`; this thread only
  Icvs icv;                  // this thread only
  // Worksharing sequence numbers within the current team (this thread only):
  uint32_t ws_seq = 0;       // dynamic loops started
  uint32_t ws_slot = 0;      // the ring buffer of the next one: ws_seq % ring size, counted as ws_seq wraps
  uint32_t single_seq = 0;   // single constructs met
  uint32_t red_seq = 0;      // reductions met
  LoopCursor cursor;         // the dynamic loop this thread is in
  Task* current_task = nullptr;  // the task this thread is executing (its implicit task at first)
  uint32_t inline_depth = 0;     // tasks run at their creation nested on this stack (task.cpp)
  uint64_t traced_tasks = 0;     // tasks this thread ran while tracing (task.cpp); this thread only
  // While this thread runs a task from run_one_task with the immediate
  // successor on (task.cpp): where the first successor that the task's
  // completion makes ready goes instead of a task list. This thread only.
  Task** successor_slot = nullptr;
  // The polling slot this thread published (TeamTasks::slots) while it
  // waits in help_until with nothing to run; null otherwise. This thread only.
  Atomic<uintptr_t>* poll_slot = nullptr;
  int list_worker_id = -1;       // the id of the worker list_index was computed for, -1 off a worker (task.cpp)
  int list_index = -1;           // that worker's task list
  Binding binding;           // place and partition; this thread only
  // Clause values pushed before the next fork (this thread only).
  int pushed_nthreads = 0;
  int pushed_bind = -1;
  int pushed_teams_lower = 0, pushed_teams_upper = 0, pushed_teams_limit = 0;
  int next_nested_mode = 0;  // bobbin_set_nested_mode(..., next_only): for the next region only
  std::vector<Binding> bindings_scratch;  // fork's place assignment, reused
  int ctx_depth = 0;         // contexts saved on this thread (enter_team/restore)
  // The ICVs explicit tasks running on this thread replaced, innermost last
  // (icv.cpp); this thread only.
  std::vector<std::pair<Task*, Icvs>> icv_saves;
  // What this thread waits for in the runtime, for the watchdog's report
  // (progress.cpp); null while it runs. This thread writes, the monitor reads.
  Atomic<const char*> waiting_for{nullptr};
  // help_until told this thread's worker it waits for work (runtime/help.hpp);
  // run_one_task takes it back before running a task. This thread only.
  bool noted_waiting = false;
  // A member that has ended its part of the region (member_main) and only
  // waits for the rest of its team; this thread writes it, and the master
  // reads it on the same kernel thread (start_own_members).
  bool ended_part = false;
  // Teams this thread created, reused region after region ("hot"), by context depth.
  std::vector<std::unique_ptr<Team>> hot;
  ompt::ThreadState ompt;    // the tool's view of this OpenMP thread (ompt.cpp)
  // What this thread's tied-task waits found empty (sched::ScanMemo; made at
  // the first such wait), under the number of the run of the task waiting:
  // task_run_id, new at each task start on this thread (task_runs counts
  // them) and restored when a task it ran ends (task.cpp, execute). This
  // thread only.
  std::unique_ptr<sched::ScanMemo> scan_memo;
  uint64_t task_run_id = 0, task_runs = 0;

  Thread();   // registers the descriptor for the watchdog's report (progress.cpp)
  ~Thread();
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
};

// A contention group (spec: an initial thread and its descendants): its
// thread-limit-var bounds the threads alive in it at once. The program's
// initial thread has one (OMP_THREAD_LIMIT); each team of a teams construct
// and each target region run on the host start their own.
struct ContentionGroup {
  Atomic<int> in_use{1};  // its initial thread, plus the extra members of each open fork
  int limit = 0;          // 0: no limit
};

struct alignas(kCacheLine) Team {
  // Identity: written by the master before members start, read-only after.
  Team* parent = nullptr;
  int parent_tid = 0;        // the master's tid in `parent`
  int level = 0;             // nesting level of the team (1 for the outermost region)
  int active_level = 0;
  int nthreads = 1;
  bool outermost = false;    // members are bound to workers 1..n-1
  bool wide_fibers = false;  // the first active level, wider than the machine, run as fibers (wide_team_as_fibers)
  bool league = false;       // a teams construct's league: one initial thread per team
  int proc_bind = 0;         // the binding policy its threads were placed by (0: none); OMP_DISPLAY_AFFINITY
  int league_num = 0;        // host teams: this team's number in its league (level-0 teams only)
  int league_size = 1;       // host teams: teams in the league
  uint64_t gang_key = 0;     // the gang this team is (0: not gang-scheduled)
  // A region whose width the moldable model chose (team.cpp, BOBBIN_MOLD):
  // its microtask, and when it opened; null fn otherwise.
  const void* mold_fn = nullptr;
  uint64_t mold_start_ns = 0;
  uint64_t mold_predicted_ns = 0;  // the model's estimate for the width chosen (0 while exploring)
  uintptr_t mold_where = 0;        // the model's address for its data (team.cpp)
  int mold_leader = 0;             // the model's leader place: the master's NUMA node
  int mold_asked = 0;              // the width the program asked for
  bool mold_exploring = false;
  // Set with the team, before its members start (enter_team): its threads
  // time their part of the body. The fields above are set after.
  bool mold_timed = false;
  // The time its threads spent in the body, summed, and how many threads
  // measured theirs (not a master that runs its part in the program's own
  // code, between the gcc ABI's separate start and end of the region): what
  // one thread would take for the same work, about (MoldModel::record).
  Atomic<uint64_t> mold_busy_ns{0};
  Atomic<int> mold_busy_parts{0};
  uint32_t trace_id = 0;     // this region's number in the trace (trace.cpp; 0 while tracing is off)
  int threads_reserved = 0;  // threads the fork reserved in its contention group, given back at the join
  ContentionGroup* cg = nullptr;  // the contention group (null: the program's own)
  RegionBody body{};
  std::vector<Thread*> members;                 // [0] is the master
  std::vector<std::unique_ptr<Thread>> owned;   // descriptors of nested members, reused
  SavedContext saved{};                         // the master's previous context

  Barrier barrier;
  // Cancellation requests (cancel.cpp): kCancel* bits, cleared at fork; the
  // loop and sections bits also when the construct's closing barrier completes.
  Atomic<uint32_t> cancel_flags{0};
  // Every task-aware wait of the team's threads parks here (barrier, join,
  // taskwait, taskgroup): whatever may end one of them notifies it.
  WaitWord ww;
  // End of the region: threads (master included) still running their part
  // of the body. Members of a team no larger than the worker pool keep
  // running tasks until it is zero, as at a barrier (member_main says why).
  Atomic<int> end_pending{0};
  // Join: members still running; the master waits for zero.
  Atomic<int> join_pending{0};
  // Memory per call site (progress.cpp). `rescued`: the monitor rescued a
  // member during this fork (set in its hook, possibly in a signal handler;
  // cleared by the fork). `probe`: this fork runs as fibers though its
  // region was rescued before (the master writes it at the fork and reads it
  // at the join).
  mutable Atomic<bool> rescued{false};
  bool probe = false;
  // Opened by a program thread outside the pool, and counted as such
  // (ult::Worker::outside_team_opened) until the join. The master's only.
  bool outside_counted = false;
  // Implicit tasks, one per member, reused with the team.
  std::unique_ptr<Task[]> implicit;
  int implicit_cap = 0;
  // What a region opened in two calls (fork_open_with) keeps until its end:
  // freed by close_region once every member has left the body.
  void* open_state = nullptr;
  void (*open_state_free)(void*) = nullptr;
  // Task lists, created at the team's first task.
  Atomic<TeamTasks*> tasks{nullptr};
  SpinLock tasks_lock;
  // Threads of the team waiting for a task and finding none (help_until): a
  // hint for task creation, which queues rather than runs a new task while
  // someone is hungry (task.cpp, task_schedule_ready). Its own line: it
  // changes only when a waiter starts or stops starving, and every task
  // creation reads it.
  alignas(kCacheLine) Atomic<int> hungry{0};
  // single: how many single constructs have been claimed.
  alignas(kCacheLine) Atomic<uint32_t> single_claimed{0};
  // copyprivate: the source thread's data, published between two barriers.
  void* copy_src = nullptr;
  // single_share (sync.cpp): a value the thread that claimed the team's k-th
  // single hands to the others, in slot k % kShareSlots. `key` is 0 while
  // the slot is free, else kShareBusy | k: the claimer stores it (release)
  // after `value` and `readers`; the last reader stores 0 (release). Reset
  // at fork.
  struct ShareSlot {
    Atomic<uint64_t> key{0};
    Atomic<int> readers{0};   // threads that have not read `value` yet
    void* value = nullptr;    // written by the claimer while key is 0; read while key is its k
  };
  static constexpr int kShareSlots = 4;  // constructs in flight before a claimer waits; a guess
  static constexpr uint64_t kShareBusy = uint64_t(1) << 32;
  ShareSlot share[kShareSlots];
  // Dynamic loops: a ring of buffers, one per loop in flight.
  DispatchRing loops;
  // Reductions: per-thread data pointers and arrival sequence numbers.
  std::vector<void*> red_data;
  std::unique_ptr<Atomic<uint32_t>[]> red_arrived;
  Atomic<uint32_t> red_released{0};
  WaitWord red_ww;
  ompt::TeamState ompt;  // the tool's parallel data (ompt.cpp)

  void resize(int n);
};

enum : uint32_t { kCancelParallel = 1, kCancelLoop = 2, kCancelSections = 4 };
inline bool loop_cancelled(Team* team) {
  return (team->cancel_flags.load(memory_order_relaxed) & (kCancelLoop | kCancelParallel)) != 0;
}
// Called on arrival at any barrier of the team: a thread still in a cancelled
// dynamic loop leaves its buffer there (loop.cpp, step 4).
void leave_cancelled_loop(Thread* t);

// Counts as a single construct: the thread that claims it runs make(ctx),
// and every thread of the team returns what make returned. No barrier: the
// others wait only until the value is there (sync.cpp). Every thread of the
// team must call it, in the same order relative to the team's other single
// and worksharing constructs.
void* single_share(void* (*make)(void* ctx), void* ctx);

// The topology the runtime schedules on (set at initialisation).
const sched::Topology* current_topology();
// How long a waiting fiber and an idle worker spin before they sleep, from
// the wait policy and block time (at start-up, and when kmp_* changes them).
void apply_wait_settings();

// The calling OpenMP thread (adopting the calling kernel thread if needed).
Thread* current_thread();
// The calling kernel thread, started by the runtime to be hidden helper
// `gtid` (hidden_helper.cpp), becomes a worker of its own with a team of
// one, as a program thread does at its first call.
Thread* adopt_hidden_helper_thread(int gtid);
inline Thread* current_thread_fast() {
  ult::Fiber* f = ult::Worker::current_fiber();
  Thread* t = f ? static_cast<Thread*>(f->user()) : nullptr;
  return t ? t : current_thread();
}

// ICVs belong to a task's data environment (icv.cpp): what an omp_set_*
// routine writes, the thread's ICVs once the task running there has saved
// them; task_end_icvs puts them back when that task's routine returns.
Icvs& writable_icvs(Thread* th);
void task_end_icvs(Thread* th, Task* t);

// The initial thread's first region or place query pins it to its place
// when binding was asked for (nothing for any other thread, or later).
void pin_initial_thread(const Thread* me);

}  // namespace bobbin::rt
