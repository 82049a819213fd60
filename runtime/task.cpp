// Explicit tasks: creation, scheduling, execution, completion, taskwait,
// taskgroup, detach.
//
// A task runs as a plain call on the stack of the fiber that executes it: no
// context switch per task. Its descriptor and payload come from the
// executing worker's size-class pool (task_alloc.cpp).
//
// Counting (one 64-bit word per task, see task.hpp): creation adds one
// "alive" and one "incomplete child" unit to the parent; completion removes
// the parent's incomplete unit, then the child's own alive unit, and when the
// child's alive count is zero it is freed and removes its alive unit from the
// parent. taskwait waits for the
// incomplete half; an implicit task whose alive half is zero has no
// unfinished descendant, which is how barriers know the team is quiescent
// without a team-wide counter every task would contend on.
//
// Task scheduling constraint (spec 1.3 "tied tasks"): while a thread executes
// an explicit tied task T, any new tied task it starts at a scheduling point
// inside T (taskwait, taskgroup end, taskyield) must be a descendant of T.
// Because tasks nest on the fiber's stack, the innermost such T is a
// descendant of the others, so checking T alone suffices (is_descendant).
// Untied tasks are run as tied: untied is a permission, not an obligation.
#include "runtime/task.hpp"
#include "ult/spinlock.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "runtime/alloc.hpp"
#include "runtime/api.hpp"
#include "runtime/help.hpp"
#include "runtime/places.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "scheduler/steal_policy.hpp"
#include "scheduler/topology.hpp"
#include "ult/eternal.hpp"
#include "ult/log.hpp"
#include "ult/memory.hpp"
#include "ult/numa.hpp"
#include "ult/trace.hpp"

namespace bobbin::rt {

namespace {

// Leaked for the same reason as g_policy below.
constinit ult::Eternal<sched::Placement> g_placement_storage;
constinit sched::Placement& g_placement = g_placement_storage.value;
// Never destroyed, as the places tables: workers are not joined at exit, and
// members of an outermost team may still be looking for tasks (stealing,
// which records in the policy) when the master leaves the last join and the
// program's static destructors run (ThreadSanitizer, tsan_task_*).
sched::StealPolicy* g_policy = nullptr;
sched::SchedContext g_sched_ctx;
const sched::SchedRow* g_sched = nullptr;
// BOBBIN_POLLING_SLOTS: a thread waiting with nothing to run takes the next
// new task from its slot (run_one_task, task_schedule_ready).
bool g_polling = false;
// The scheduler's constrained pops scan whole lists (the tree): remember
// refusals, in the tasks (admits_remembered) and per thread (ScanMemo).
bool g_whole_scans = false;
// BOBBIN_IMMEDIATE_SUCCESSOR: the first successor a finishing task makes
// ready runs next on the same thread (execute_maybe_traced).
bool g_immediate_successor = false;
int g_max_priority = 0;
bool g_throttling = true;  // KMP_ENABLE_TASK_THROTTLING
// When a new task runs at once (undeferred) instead of being queued; see
// task_schedule_ready. 256 is the deque size at which libomp does the same.
// kKeepQueued and kMaxInlineDepth are guesses (fib, multiaxpy, sort, 2 threads).
constexpr std::size_t kThrottle = 256;
constexpr std::size_t kKeepQueued = 2;
constexpr uint32_t kMinInlineTaskDepth = 4;
constexpr uint32_t kMaxInlineDepth = 128;
constexpr std::size_t kPayloadAlign = 16;

// A task's priority as the runtime uses it: in [0, OMP_MAX_TASK_PRIORITY].
int clamp_priority(int p) { return p < 0 ? 0 : p > g_max_priority ? g_max_priority : p; }

std::size_t header_size() { return sizeof(Task); }  // Task::payload
static_assert(sizeof(Task) % kPayloadAlign == 0);

// The thief index of the calling thread: each thief's policy state (victim
// history, random generator) is written by its own thread only. Pool
// workers count up from 0 (their worker ids). Every other thread (spares,
// adopted program threads) takes a slot counted down from the top when it
// first steals and gives it back when it exits, for the next such thread:
// their worker ids only grow (a program that starts a thread per request
// makes thousands), and numbered from them, the 4095th such thread shared
// pool worker 1's slot, whose victim vector both would then write
// (random-order, producer-order). The pool and the threads alive outside it
// share a slot only beyond kMaxThieves together.
constexpr int kThieves = sched::StealPolicy::kMaxThieves;
constinit SpinLock g_thief_lock;
constinit int g_thief_free[kThieves] GUARDED_BY(g_thief_lock) = {};
constinit int g_thief_freed GUARDED_BY(g_thief_lock) = 0;  // entries of g_thief_free
constinit int g_thief_next GUARDED_BY(g_thief_lock) = 0;   // slots handed out from the top so far

struct OutsideThief {
  int slot = -1;
  ~OutsideThief() {
    if (slot < 0) return;
    SpinGuard g(g_thief_lock);
    if (g_thief_freed < kThieves) g_thief_free[g_thief_freed++] = slot;  // else a shared slot, listed already
  }
};
thread_local OutsideThief t_thief;

[[gnu::noinline]] int take_thief_slot() {
  SpinGuard g(g_thief_lock);
  if (g_thief_freed > 0) return t_thief.slot = g_thief_free[--g_thief_freed];
  // Beyond kMaxThieves threads at once, the slots are shared (the top one).
  return t_thief.slot = kThieves - 1 - std::min(g_thief_next++, kThieves - 1);
}

int current_worker_id() {
  ult::Worker* w = ult::Worker::current();
  if (w && w->in_pool()) return w->id() % kThieves;
  if (t_thief.slot >= 0) [[likely]] return t_thief.slot;
  return take_thief_slot();
}

TeamTasks* team_tasks(Team* team) {
  TeamTasks* tt = team->tasks.load(memory_order_acquire);
  if (tt) return tt;
  SpinGuard g(team->tasks_lock);
  tt = team->tasks.load(memory_order_relaxed);
  if (!tt) {
    tt = new TeamTasks(g_sched->make(g_sched_ctx), team->nthreads);
    team->tasks.store(tt, memory_order_release);  // pairs with the acquire above
  }
  return tt;
}

// Walks up by jump pointers where they do not overshoot: O(log depth) steps
// (BOTS uts, 1572 levels deep: the walk by parents took 83% of the time of
// tied-task waits scanning whole lists under the tree scheduler).
bool is_descendant(const Task* t, const Task* ancestor) {
  uint32_t d = ancestor->depth;
  if (t->depth <= d) return false;
  while (t->depth > d) t = t->jump->depth >= d ? t->jump : t->parent;
  return t == ancestor;
}

void free_task(Task* t) {
  delete t->deps;
  uint8_t cls = t->size_class;
  t->~Task();
  task_memory_free(t, cls);
}

void unref(Task* t) {
  // acq_rel: the last reference must see every other holder's writes before
  // freeing. A count of 1 is the caller's own, and no one can take another
  // (hold_task only copies a reference a dependence table holds): no atomic
  // write then, which most tasks (never in a table) save.
  if (t->refs.load(memory_order_acquire) == 1 || t->refs.fetch_sub(1, memory_order_acq_rel) == 1) free_task(t);
}

// Drops `units` from t's count; when its alive half reaches 0, the tree's
// reference goes and the parent loses t's alive unit, and so on up. Returns
// true if an implicit task's alive half reached 0 (its team's barrier and
// join wait for that). `incomplete_done`, if given, says whether t's own
// incomplete half reached 0 (a taskwait on t may end).
bool drop(Task* t, int64_t units, bool* incomplete_done = nullptr) {
  while (t) {
    // Read before the count moves: once an implicit task's alive half is 0
    // the team's barrier may end the region and the next fork reset it.
    bool implicit = t->implicit;
    int64_t left = t->count.fetch_sub(units, memory_order_acq_rel) - units;
    if (incomplete_done) {
      *incomplete_done = incomplete_of(left) == 0;
      incomplete_done = nullptr;
    }
    if (alive_of(left) != 0) return false;
    if (implicit) return true;
    Task* parent = t->parent;
    unref(t);
    t = parent;
    units = kAliveOne;
  }
  return false;
}

// The body has ended and (if detachable) the event was fulfilled. Wakes the
// team's waiters only if this completion can end a wait: a group's last
// task, a parent's last incomplete child (taskwait), an implicit task's last
// descendant (barrier, join), or a task with dependences (taskwait depend).
void finish(Thread* th, Task* t) {
  bool wake = t->deps != nullptr;
  if (t->deps) deps_release(th, t);
  if (t->domain) deps_clear_domain(t);
  Team* team = t->team;
  Task* parent = t->parent;
  if (!t->counted) {
    // Run at its creation (adopt), with no dependences (task_submit): it
    // holds no unit of its parent, whose body is below it on this stack.
    // acquire: pairs with the children's acq_rel drops, so their writes are
    // seen before the task is freed.
    BOBBIN_ASSERT(!t->deps);
    if (alive_of(t->count.load(memory_order_acquire)) == 1) {
      // No child alive, and none can appear; outside every dependence table
      // no one holds a reference (hold_task): the tree's is the only one,
      // so the task is freed without touching refs.
      free_task(t);
      return;
    }
    // Some children outlive it: from now on it holds its parent, as a
    // queued task does, until the last of them completes.
    parent->count.fetch_add(kAliveOne, memory_order_relaxed);
  } else {
    if (t->group && t->group->pending.fetch_sub(1, memory_order_acq_rel) == 1) wake = true;
    // Nothing alive under it (a leaf, or its children all gone): no one else
    // writes its count any more, so it is freed without touching the count,
    // and the parent loses the child and the alive unit in one write (the
    // parent's word is the one its other children contend for). acquire:
    // pairs with the children's acq_rel drops.
    if (t->count.load(memory_order_acquire) == kAliveOne) {
      unref(t);
      bool incomplete_done = false;
      if (drop(parent, kChildOne + kAliveOne, &incomplete_done)) wake = true;
      if (incomplete_done || wake) team->ww.notify_all();
      return;
    }
    // The parent's incomplete count first, while the task's own alive unit
    // still keeps the task, and through it the parent, from being freed: once
    // that unit is gone, the task's last child may free the task and a
    // finished parent before this thread is done with them.
    if (incomplete_of(parent->count.fetch_sub(kChildOne, memory_order_acq_rel) - kChildOne) == 0) wake = true;
  }
  int64_t left = t->count.fetch_sub(kAliveOne, memory_order_acq_rel) - kAliveOne;
  if (alive_of(left) == 0) {
    unref(t);
    if (drop(parent, kAliveOne)) wake = true;
  }
  if (wake) team->ww.notify_all();
}

// How a task's body ended, for a tool: waiting for its detach event, in a
// cancelled group or region, or complete.
ompt_task_status_t end_status(const Task* t) {
  if (t->detachable && t->completion_left.load(memory_order_acquire) > 1) return ompt_task_detach;
  return task_cancelled(t) ? ompt_task_cancel : ompt_task_complete;
}

// A task starts on this thread: a number no earlier start had, which its
// constrained scans remember what they found empty under (sched::ScanMemo).
void new_run_id(Thread* th) { th->task_run_id = ++th->task_runs; }

// Untied tasks: clang compiles an untied task as a state machine whose
// routine, at a scheduling point, submits the task again and returns; the
// runtime calls it again later (possibly on another thread) to run the next
// part. A submission of a running task is such a continuation: it is only
// noted (requeued) and the task is queued once its routine has returned, so
// two threads never run it at once.
void execute(Thread* th, Task* t) {
  Task* prev = th->current_task;
  uint64_t prev_run_id = th->task_run_id;
again:
  new_run_id(th);
  th->current_task = t;
  t->running = true;
  bool tool = ompt::on();
  const void* ra = nullptr;
  bool discard = task_cancelled(t);
  if (tool) [[unlikely]] {
    t->ompt.sched_parent = prev;
    // A discarded task never starts: a tool hears of its cancellation and its end only.
    if (!discard) ompt::task_schedule(prev, th->ompt.yielding ? ompt_task_yield : ompt_task_switch, t);
    th->ompt.yielding = false;
    ra = ompt::user_code_begin(th);
  }
  if (!discard) t->run(t->payload(), th->gtid);
  else if (tool) [[unlikely]] ompt::task_discarded(th, t);
  if (tool) [[unlikely]] {
    ompt::user_code_end(th, t, ra);
    t->ompt.sched_parent = nullptr;
  }
  t->running = false;
  task_end_icvs(th, t);
  th->current_task = prev;
  th->task_run_id = prev_run_id;  // the same task again: what its scans found holds
  if (t->requeued) {
    // An untied task's part ended: a switch to a tool (as libomp says it).
    if (tool) [[unlikely]] ompt::task_schedule(t, ompt_task_switch, prev);
    t->requeued = false;
    // Where every task runs at its creation (a final task's descendants, a
    // team of one), its next part runs at once too, as libomp runs it.
    if (prev->final_ || t->team->nthreads == 1) goto again;
    task_schedule_ready(th, t, false);
    return;
  }
  if (tool) [[unlikely]]
    ompt::task_schedule(t, end_status(t), prev);
  if (t->cleanup) t->cleanup(t->payload(), th->gtid);
  // Only a detachable task's count has a second holder (the event).
  if (!t->detachable || t->completion_left.fetch_sub(1, memory_order_acq_rel) == 1) finish(th, t);
}

// ---- tracing ----------------------------------------------------------------------
// A task span is recorded for each task a thread runs from its implicit
// task (at a barrier, the join, a taskwait or taskgroup of the implicit
// task, or at its creation by the implicit task): a span from start to end
// with the team, the thread number, the task's depth, where it came from,
// and how many tasks ran inside it (at their creation or at its
// taskwaits), which have no span of their own. Why not a span per task:
// fib at 2 threads runs a task per 120-250 ns of each thread's time, and
// reading the clock twice per task (34 ns a read here) would cost 25-50%;
// counting them costs an increment.
// Tracing: the lists one sweep tried, in order (at most kTracedVictims).
struct SweepTrace {
  static constexpr int kTracedVictims = 64;  // a bound on the event's size; the count says how many more
  uint32_t victims[kTracedVictims];
  int n = 0, tried = 0;
  void add(int v) {
    if (n < kTracedVictims) victims[n++] = uint32_t(v);
    ++tried;
  }
  void record(int own, int won);
};

enum TaskFrom : uint8_t { kFromOwn, kFromStolen, kFromPriority, kFromCreation, kFromSuccessor, kFromSlot };
uint16_t g_k_task = 0, g_k_steal = 0, g_k_affinity = 0;
int g_modelled_nodes = 0;  // modelled_memory_nodes(), set by tasking_init

const char* task_from_name(uint8_t f) {
  static const char* const names[] = {"own list", "stolen", "priority list", "at creation", "immediate successor", "polling slot"};
  return f < sizeof names / sizeof names[0] ? names[f] : "?";
}

const char* level_of_victim(uint32_t packed) {
  // packed: the thief's list in the high half, the victim's in the low half.
  return sched::level_name(sched::meeting_level(g_placement, int(packed >> 16), int(packed & 0xffff)));
}

void task_args(const ult::trace::Record& r, const uint32_t*, int, ult::trace::Json& o) {
  o.num("team", r.a[0]);
  o.num("thread", r.a[1]);
  o.num("depth", r.a[2]);
  o.str("from", task_from_name(r.flags));
  o.num("tasks_inside", r.a[3]);
}

// Steal: a[0] the thief's list, a[1] the list that gave a task (~0: none),
// a[2] lists tried (the list holds the first 64), a[3] sweeps (a run of
// identical failed sweeps is one event).
void steal_args(const ult::trace::Record& r, const uint32_t* list, int n, ult::trace::Json& o) {
  bool won = r.a[1] != ~uint32_t(0);
  o.str("policy", g_policy->name());
  o.num("thief_list", r.a[0]);
  o.nums("victims", list, n);
  uint32_t packed[SweepTrace::kTracedVictims];
  int m = std::min(n, SweepTrace::kTracedVictims);
  for (int i = 0; i < m; ++i) packed[i] = (r.a[0] << 16) | (list[i] & 0xffff);
  o.strs("levels", packed, m, &level_of_victim);
  o.boolean("success", won);
  if (won) {
    o.num("from_list", r.a[1]);
    uint32_t p = (r.a[0] << 16) | (r.a[1] & 0xffff);
    o.str("level", level_of_victim(p));
  }
  o.num("tried", r.a[2]);
  o.num("sweeps", r.a[3]);
  if (r.a[3] > 1) o.time_us("last_us", r.end);
}

void add_task_trace_kinds() {
  g_k_task = ult::trace::add_kind({"task", "task", ult::trace::Shape::Span, nullptr, &task_args});
  g_k_steal = ult::trace::add_kind({"steal", "steal", ult::trace::Shape::Instant,
                                    [](const ult::trace::Record& r, char* buf, std::size_t n) {
                                      snprintf(buf, n, "%s", r.a[1] != ~uint32_t(0) ? "steal" : "steal failed");
                                    },
                                    &steal_args});
  // An affinity clause: a[0] the list it chose (~0: none), a[1] the NUMA node
  // of the memory it names (~0: unknown).
  g_k_affinity = ult::trace::add_kind({"task affinity", "task", ult::trace::Shape::Instant, nullptr,
                                       [](const ult::trace::Record& r, const uint32_t*, int, ult::trace::Json& o) {
                                         if (r.a[0] != ~uint32_t(0)) o.num("list", r.a[0]);
                                         if (r.a[1] != ~uint32_t(0)) o.num("node", r.a[1]);
                                       }});
  ult::trace::add_meta("steal_policy", g_policy->name());
  ult::trace::add_meta("tasklist_level", sched::level_name(g_placement.level));
}

// execute(), with a span when th runs t from its implicit task.
void execute_traced(Thread* th, Task* t, TaskFrom from) {
  ++th->traced_tasks;
  if (!th->current_task || !th->current_task->implicit) {
    execute(th, t);
    return;
  }
  // t may be freed by its completion: what the span says is read first.
  uint64_t start = ult::trace::now();
  uint64_t before = th->traced_tasks;
  uint32_t team = th->team->trace_id, tid = uint32_t(th->tid), depth = t->depth;
  execute(th, t);
  uint64_t inside = th->traced_tasks - before;
  ult::trace::span(g_k_task, start, team, tid, depth, uint32_t(std::min<uint64_t>(inside, UINT32_MAX)), from);
}

void execute_one(Thread* th, Task* t, TaskFrom from) {
  if (ult::trace::on()) execute_traced(th, t, from);
  else execute(th, t);
}

// Runs t; with the immediate successor on, then the first successor its
// completion made ready (deps_release puts it in th->successor_slot rather
// than on a list), and so on down a chain: no push, no pop, the successor's
// inputs still in this processor's cache. A successor this thread may not
// run here (a tied task's wait runs only its descendants: `root`) goes to
// a list as it would have. The slot is saved and restored: a task body that
// waits runs other tasks through here, each with a slot of its own.
void execute_maybe_traced(Thread* th, Task* t, TaskFrom from) {
  if (!g_immediate_successor) {
    execute_one(th, t, from);
    return;
  }
  const Task* cur = th->current_task;
  const Task* root = cur && !cur->implicit ? cur : nullptr;  // as in run_one_task
  Task** outer = th->successor_slot;
  for (;;) {
    Task* next = nullptr;
    th->successor_slot = &next;
    execute_one(th, t, from);
    th->successor_slot = outer;
    if (!next) return;
    if (root && !is_descendant(next, root)) {
      task_schedule_ready(th, next, false);
      return;
    }
    t = next;
    from = kFromSuccessor;
  }
}

void SweepTrace::record(int own, int won) {
  ult::trace::instant_list(g_k_steal, uint32_t(own), won < 0 ? ~uint32_t(0) : uint32_t(won), uint32_t(tried), victims,
                           n, won < 0);
}


// Beyond the own list: the scheduler's search, traced as one sweep.
Task* find_elsewhere(TeamTasks* tt, int self, int own, const sched::Filter& f) {
  if (!ult::trace::on()) return static_cast<Task*>(tt->sched->find(own, self, f, {}).item);
  SweepTrace sweep;
  sched::Probe probe{[](void* ctx, int list) { static_cast<SweepTrace*>(ctx)->add(list); }, &sweep};
  sched::Found got = tt->sched->find(own, self, f, probe);
  if (sweep.tried) sweep.record(own, got.item ? got.list : -1);
  return static_cast<Task*>(got.item);
}

// The list nearest the memory an affinity clause names: one under the NUMA
// node that holds its first page (-1 on a single-node machine or if unknown).
// On a modelled machine of several nodes, the node an allocator's partition
// trait placed it on (alloc.hpp); other memory names none there.
int affinity_list_of(const void* addr, int* node_out) {
  if (g_placement.list_of_numa.empty()) return -1;
  int node = g_modelled_nodes ? modelled_node_of(addr) : numa_node_of(addr);
  *node_out = node;
  return list_of_memory_node(node);
}

}  // namespace

void tasking_init() {
  const sched::Topology* topo = current_topology();
  sched::Level level = sched::Level::PU;
  if (const char* v = getenv("BOBBIN_TASKLIST")) {
    if (!sched::parse_level(v, &level)) {
      warn("ignoring BOBBIN_TASKLIST='%s' (valid: pu, core, l3, numa, machine); using pu", v);
      level = sched::Level::PU;
    }
  }
  g_placement = sched::make_placement(*topo, level);
  if (topo->is_synthetic() && ult::memory_nodes().size() < 2 && g_placement.list_of_numa.size() > 1)
    g_modelled_nodes = int(g_placement.list_of_numa.size());
  task_memory_place(g_placement.numa_of_worker_core);
  g_policy = sched::make_policy_from_env().release();
  g_policy->attach(g_placement);
  if (ult::trace::on()) add_task_trace_kinds();
  g_sched_ctx = sched::SchedContext{&g_placement, g_policy, false, settings().tree_threshold};
  if (const char* v = getenv("BOBBIN_STEAL_AMOUNT")) {
    if (!strcmp(v, "half")) g_sched_ctx.steal_half = true;
    else if (strcmp(v, "one") != 0) warn("ignoring BOBBIN_STEAL_AMOUNT='%s' (valid: one, half); using one", v);
  }
  g_sched = sched::find_scheduler(settings().task_sched);
  if (!g_sched) g_sched = &sched::scheduler_rows().front();  // the settings table accepts only rows' names
  // Polling slots: on by default for the tree scheduler (part of its
  // design), off for stealing (measured: scheduler/README.md).
  bool tree = g_sched->make == &sched::make_tree_scheduler;
  g_polling = settings().polling_slots < 0 ? tree : settings().polling_slots != 0;
  g_whole_scans = tree;
  g_immediate_successor = settings().immediate_successor;
  g_max_priority = settings().max_task_priority;
  g_throttling = settings().task_throttling;
}

Task* task_from_payload(void* payload) {
  return reinterpret_cast<Task*>(static_cast<char*>(payload) - header_size());
}

bool team_quiescent(Team* team) {
  for (int i = 0; i < team->nthreads; ++i)
    if (alive_of(team->implicit[std::size_t(i)].count.load(memory_order_acquire)) != 0) return false;
  return true;
}

void hold_task(Task* t) { t->refs.fetch_add(1, memory_order_relaxed); }
void release_task_ref(Task* t) { unref(t); }

namespace {

// The list of the worker running `th` (or the calling thread, if null).
// The index is cached in the Thread, keyed by the worker's id: list_of_worker
// divides, and run_now asks at every task creation. Not keyed by the
// Worker's address: omp_pause_resource deletes the workers and the next
// region allocates new ones, and a new worker 0 at the address the old
// worker 1 had made a member on worker 0 take list 1 for its own; it then
// never looked at list 0, where its team's tasks were, and spun at a
// barrier with every task visible and none reachable (asan_pause_resource
// hung in CI; 3 concurrent runs of pause_resource at 4 threads hung within
// 40 runs). A worker id maps to one list for the life of the placement.
int own_list_index(Thread* th) {
  if (!th) return g_placement.list_of_worker(current_worker_id());
  ult::Worker* w = ult::Worker::current();
  int id = w ? w->id() : -1;
  if (th->list_worker_id != id || th->list_index < 0) {
    th->list_worker_id = id;
    th->list_index = g_placement.list_of_worker(current_worker_id());
  }
  return th->list_index;
}

// How many tasks wait where a ready task created by `th` would go.
std::size_t queued_at(Thread* th, Team* team, int priority, int affinity_list) {
  TeamTasks* tt = team_tasks(team);
  if (priority > 0) return tt->priority.size();
  return tt->sched->queued(affinity_list >= 0 ? affinity_list : own_list_index(th));
}

// Whether the creator runs a new ready task now rather than queue it: when
// the region is serial or the task final; when the creator's list is full
// (so that recursive programs cannot exhaust memory); or, deep in a task
// tree (a divide-and-conquer recursion), when that list keeps a few tasks
// for thieves already and no thread of the team is waiting for one: a
// queued task would then only be popped back by its creator, and running
// it here saves the push, the pop and the cache misses in between
// (multiaxpy with 2^10 per leaf: most of the runtime's cost).
//
// Near the root of the tree tasks are always queued (up to the throttle):
// there a program may have a task wait for something its creator does only
// after creating it (a flag, a lock the creator holds), which libomp and
// libgomp serve as long as their queues take the tasks, and which a task
// run at its creation would wait for forever (or until its own timeout).
// Not at all when priorities are enabled (OMP_MAX_TASK_PRIORITY > 0):
// queued tasks are what priorities order. The depth cap bounds the stack
// a chain of such tasks takes.
// (For a task of `team` at `depth` that would go to the list named by
// `priority` and `affinity_list`, created by `th`.)
bool run_now_at(Thread* th, Team* team, uint32_t depth, int priority, int affinity_list) {
  if (!th || th->team != team || !th->current_task) return false;
  if (th->current_task->final_ || team->nthreads == 1) return true;
  if (!g_throttling || th->inline_depth >= kMaxInlineDepth) return false;
  std::size_t queued = queued_at(th, team, priority, affinity_list);
  return queued >= kThrottle || (depth >= kMinInlineTaskDepth && queued >= kKeepQueued && g_max_priority == 0 &&
                                 team->hungry.load(memory_order_relaxed) == 0);
}

// Never a hidden helper's task: only a hidden helper thread may run it.
bool run_now(Thread* th, const Task* t) {
  return !t->hidden_helper && run_now_at(th, t->team, t->depth, t->priority, t->affinity_list);
}

// A task's type bits for a tool.
// Undeferred as libomp counts it: if(0), or created in a final task or in a
// team of one (those run at once).
int task_type(const Task* t, bool undeferred) {
  int type = ompt_task_explicit;
  if (undeferred || (t->parent && t->parent->final_) || t->team->nthreads == 1) type |= ompt_task_undeferred;
  if (!t->tied) type |= ompt_task_untied;
  if (t->final_) type |= ompt_task_final;
  return type;
}

void run_inline(Thread* th, Task* t) {
  ++th->inline_depth;
  execute_maybe_traced(th, t, kFromCreation);
  --th->inline_depth;
}

// Tasks with a priority wait in the team's priority list in priority order,
// the higher first, and among equal priorities the older first (the spec
// recommends the first; libomp and libgomp do both).
uint64_t priority_key(const Task* t) {
  uint64_t p = uint64_t(std::min(t->priority, 0xffff));
  return ((0xffff - p) << 48) | (t->seq & ((uint64_t(1) << 48) - 1));
}

}  // namespace

namespace {

// Polling slots. The owner thread moves its slot 0 -> kPolling (publish,
// having found nothing to run) and back to 0 (retract, by an exchange that
// also takes a task handed over meanwhile); a producer moves it kPolling ->
// a task by a compare-exchange, so at most one producer hands one task to
// one publication, and a retract sees it. Only threads with no tied-task
// constraint publish (an implicit task's wait: barrier, join, implicit
// taskwait), so any task of the team suits them.

// A producer: hands `t` to a polling team-mate of `th`, the next numbers
// after its own first; false if none is polling.
bool hand_to_poller(TeamTasks* tt, Thread* th, Task* t) {
  if (tt->pollers.load(memory_order_relaxed) == 0) return false;
  int n = tt->nslots, start = th && th->team == t->team ? th->tid + 1 : 0;
  for (int i = 0; i < n; ++i) {
    Atomic<uintptr_t>& slot = tt->slots[std::size_t((start + i) % n)].v;
    uintptr_t expect = TeamTasks::kPolling;
    // release: the task's fields, for the owner's acquire in retract.
    if (slot.load(memory_order_relaxed) == expect &&
        slot.compare_exchange_strong(expect, reinterpret_cast<uintptr_t>(t), memory_order_release, memory_order_relaxed))
      return true;
  }
  return false;
}

void publish_slot(TeamTasks* tt, Thread* th) {
  if (th->poll_slot || th->tid < 0 || th->tid >= tt->nslots) return;
  th->poll_slot = &tt->slots[std::size_t(th->tid)].v;
  tt->pollers.fetch_add(1, memory_order_relaxed);
  th->poll_slot->store(TeamTasks::kPolling, memory_order_relaxed);
}

// The owner: withdraws its slot; the task handed over meanwhile, if any.
Task* retract_slot(TeamTasks* tt, Thread* th) {
  Atomic<uintptr_t>* slot = th->poll_slot;
  th->poll_slot = nullptr;
  uintptr_t v = slot->exchange(0, memory_order_acquire);
  tt->pollers.fetch_sub(1, memory_order_relaxed);
  return v > TeamTasks::kPolling ? reinterpret_cast<Task*>(v) : nullptr;
}

bool admits(const void* root, void* item) { return is_descendant(static_cast<Task*>(item), static_cast<const Task*>(root)); }

// Tasks the moldable model queued at a leader's list (mold_leader_list in
// team.cpp) are left to that node's workers for up to kLeaderHoldNs while
// one of them has nothing to do: the thread that made such a task ready is
// often awake, in its wait, where the leader's workers are parked, and took
// every task of a chain before they woke (a trace test on a modelled
// machine of 2 nodes: all 60 of its regions on the first node). Bounded in
// time: a worker counted available may be waiting in another team, or in a
// taskwait that may not run the task. Four times as long while the pool
// has more kernel threads than processors (a modelled machine wider than
// its host): the leader's worker may then wait that long for a processor.
Atomic<bool> g_leader_tasks{false};
// Some task opened a molded region on a machine of several NUMA nodes: a
// ready task may then be one the model places (task_schedule_ready).
Atomic<bool> g_mold_openers{false};
constexpr uint64_t kLeaderHoldNs = 1000000;
constexpr uint64_t kLeaderHoldOversubscribedNs = 4 * kLeaderHoldNs;

struct LeaderHold {
  sched::Filter inner;
  int node;  // the thief's NUMA node, -1 if not a pool worker's
  uint64_t now;
  uint64_t hold;
};

// The NUMA node of worker `id` (-1 if not a pool worker or none known).
int node_of_worker(int id) {
  const std::vector<int>& node_of = g_placement.numa_of_worker_core;
  return id >= 0 && !node_of.empty() ? node_of[std::size_t(id) % node_of.size()] : -1;
}

bool node_has_available_worker(int node) {
  int pool = ult::Worker::pool_size();
  for (int i = 0; i < pool; ++i)
    if (node_of_worker(i) == node)
      if (ult::Worker* w = ult::Worker::at(i); w && w->available()) return true;
  return false;
}

bool admits_elsewhere(const void* ctx, void* item) {
  auto* h = static_cast<const LeaderHold*>(ctx);
  const Task* t = static_cast<const Task*>(item);
  if (t->leader_node != Task::kNoLeader && int(t->leader_node) != h->node && h->now - t->leader_since < h->hold &&
      node_has_available_worker(int(t->leader_node)))
    return false;
  return h->inner(item);
}

// Under the tree scheduler a tied task's wait scans whole lists, again at
// each try while it waits: an item found not below it once is not again.
// Not under stealing, whose scans are short: there the write to a task
// another thread queued cost fib 5% (the line moves to the waiter's core).
bool admits_remembered(const void* root, void* item) {
  Task* t = static_cast<Task*>(item);
  if (t->not_below == root) return false;
  if (is_descendant(t, static_cast<const Task*>(root))) return true;
  t->not_below = static_cast<const Task*>(root);
  return false;
}

}  // namespace

void task_schedule_ready(Thread* th, Task* t, bool may_run_inline) {
  if (t->hidden_helper) {
    hidden_helper_push(t);
    return;
  }
  if (may_run_inline && run_now(th, t)) {
    run_inline(th, t);
    return;
  }
  Team* team = t->team;
  TeamTasks* tt = team_tasks(team);
  Thread* mate = th && th->team == team ? th : nullptr;
  int leader_list = -1;
  if (t->priority > 0) {
    tt->priority.push_ordered(t, priority_key(t));
  } else if (t->affinity_list < 0 && g_mold_openers.load(memory_order_relaxed) &&
             (leader_list = mold_leader_list(t)) >= 0) {
    tt->sched->push_pinned(leader_list, t);
  } else if (g_polling && t->affinity_list < 0 && hand_to_poller(tt, mate, t)) {
    // handed over; the notify below wakes its thread if it parked
  } else if (t->affinity_list >= 0) {
    tt->sched->push_pinned(t->affinity_list, t);
  } else {
    tt->sched->push(own_list_index(mate), t);
  }
  team->ww.notify_all();
}

void leave_polling(Thread* th) {
  TeamTasks* tt = th->team->tasks.load(memory_order_acquire);
  if (Task* t = retract_slot(tt, th)) task_schedule_ready(th, t, false);
}

bool run_one_task(Thread* th) {
  Team* team = th->team;
  TeamTasks* tt = team->tasks.load(memory_order_acquire);
  if (!tt) return false;
  Task* cur = th->current_task;
  const Task* root = cur && !cur->implicit ? cur : nullptr;
  auto allowed = [&](void* p) { return !root || is_descendant(static_cast<Task*>(p), root); };
  Task* t = nullptr;
  TaskFrom from = kFromSlot;
  // A published slot is withdrawn before anything runs here: a task handed
  // to a thread that is busy would wait for it, unseen by the others.
  if (th->poll_slot) t = retract_slot(tt, th);
  if (!t && tt->priority.size()) t = static_cast<Task*>(tt->priority.pop_top_if(allowed)), from = kFromPriority;
  int self = current_worker_id();
  int own = own_list_index(th);
  if (g_mold_openers.load(memory_order_relaxed)) [[unlikely]] {
    if (int node = node_of_worker(self); node >= 0 && node < 64)
      if (!(tt->nodes_seen.load(memory_order_relaxed) >> node & 1)) tt->nodes_seen.fetch_or(uint64_t(1) << node);
  }
  sched::Filter f;
  if (root && !g_whole_scans) f = sched::Filter{&admits, root};
  if (root && g_whole_scans) {
    if (!th->scan_memo) th->scan_memo = std::make_unique<sched::ScanMemo>();
    th->scan_memo->epoch = th->task_run_id;
    f = sched::Filter{&admits_remembered, root, th->scan_memo.get()};
  }
  if (!t) t = static_cast<Task*>(tt->sched->pop_own(own, f)), from = kFromOwn;
  if (!t) {
    if (g_leader_tasks.load(memory_order_relaxed)) [[unlikely]] {
      // No memo: what a thief may take here changes with time, not only with pushes.
      LeaderHold hold{sched::Filter{f.fn, f.ctx, nullptr}, node_of_worker(self), now_ns(),
                      ult::Worker::oversubscribed() ? kLeaderHoldOversubscribedNs : kLeaderHoldNs};
      t = find_elsewhere(tt, self, own, sched::Filter{&admits_elsewhere, &hold, nullptr});
    } else {
      t = find_elsewhere(tt, self, own, f);
    }
    from = kFromStolen;
  }
  if (!t) {
    if (g_polling && !root) publish_slot(tt, th);
    // Nothing this thread may run, though the lists may hold tasks: a tied
    // task's wait runs only its own descendants, and the tasks queued may be
    // those of team-mates whose fibers wait behind this one on the same
    // worker (a nested team larger than its gang). help_until wakes on any
    // visible task and would spin here without giving the worker up; let
    // them run first.
    ult::Worker* w = ult::Worker::current();
    if (root && w && w->ready_count() > 0) ult::Worker::yield();
    return false;
  }
  // Busy from here: a member queued on this worker would wait for the task.
  stop_waiting_note(th);
  execute_maybe_traced(th, t, from);
  return true;
}

void run_task(Thread* th, Task* t) { execute_maybe_traced(th, t, kFromOwn); }

// ---- the API -----------------------------------------------------------------

void* task_alloc(const TaskSpec& spec, std::size_t payload_size) {
  Thread* th = current_thread_fast();
  uint8_t cls;
  void* mem = task_memory_alloc(header_size() + payload_size, &cls);
  Task* t = new (mem) Task;
  t->size_class = cls;
  t->payload_size = payload_size;
  t->run = spec.run;
  t->cleanup = spec.cleanup;
  t->tied = spec.tied;
  Task* parent = th->current_task;
  t->final_ = spec.final_ || parent->final_;
  t->priority = clamp_priority(spec.priority);
  t->priority_offset = spec.priority_offset;
  t->parent = parent;
  Task* pj = parent->jump;
  t->jump = pj && pj->jump && parent->depth - pj->depth == pj->depth - pj->jump->depth ? pj->jump : parent;
  t->team = th->team;
  t->depth = parent->depth + 1;
  t->hidden_helper = spec.hidden_helper && hidden_helpers_start();
  return t->payload();
}

std::size_t task_payload_size(void* payload) { return task_from_payload(payload)->payload_size; }

// Links a new task to its creator (counts) before it can run; `counted`: see Task::counted.
static void adopt(Thread* th, Task* t, bool counted) {
  Task* parent = th->current_task;
  t->group = parent->running_group;
  // The task's stack of groups starts at the group it was created in. Set
  // here, once: an untied task's later parts (execute) resume inside the
  // taskgroups an earlier part opened, whichever thread runs them.
  t->running_group = t->group;
  t->counted = counted;
  t->count.store(kAliveOne, memory_order_relaxed);
  // relaxed: the child becomes visible to other threads only through a list
  // push (a lock release) or a dependence edge (likewise).
  if (!counted) return;  // see finish
  parent->count.fetch_add(kAliveOne + kChildOne, memory_order_relaxed);
  if (t->group) t->group->pending.fetch_add(1, memory_order_relaxed);
}

// A task that completes before its creator goes on needs no place in the
// counts taskwait and taskgroup wait on: tied (an untied one may stop at a
// scheduling point and finish later) and not detachable.
static bool completes_in_place(const Task* t) { return t->tied && !t->detachable; }

// Whether every child the running task created has completed. acquire:
// pairs with the children's acq_rel drops, as a dependence edge would.
static bool no_incomplete_children(const Thread* th) {
  return th && th->current_task && incomplete_of(th->current_task->count.load(memory_order_acquire)) == 0;
}

// Task creation is a task scheduling point. With team-mates not started
// yet queued on this worker (a team wider than the workers), a creator that
// keeps creating never gave them the worker: the monitor took it for stuck
// and moved them to spare kernel threads, so a task-parallel region of 8
// on 2 workers ran on 8 kernel threads (sort, gcc, 8 threads: 0.043-0.115
// s, libgomp 0.039-0.043; 0.039-0.045 with this). Only while fibers not
// started are queued: yielding to every queued fiber at each creation (the
// woken team-mates too) cost nqueens (gcc, 8 threads) 1.56x libgomp's time.
// Not while another worker idles: it is about to steal them, and started
// here they could never move, leaving it with no thread of the team and so
// no way to run the team's tasks (8 fibers on 2 workers, one task-parallel
// region: now and then every task ran on the creator's worker, 2x the time).
static void let_unstarted_fibers_run() {
  ult::Worker* w = ult::Worker::current();
  if (w && w->movable_count() > 0 && t_spinlocks_held == 0 && !ult::Worker::idle_peer()) ult::Worker::yield();
}

// The monitor found this worker held for a while with fibers queued behind
// the running one (ult/monitor.cpp, step 0): at task creation, a task
// scheduling point, let them run.
static void yield_if_monitor_asked() {
  if (t_spinlocks_held == 0) ult::Worker::yield_if_asked();
}

void task_submit(void* payload, const DepItem* deps, int ndeps) {
  yield_if_monitor_asked();
  Thread* th = current_thread_fast();
  Task* t = task_from_payload(payload);
  if (t->running) {  // an untied task's next part (see execute)
    t->requeued = true;
    return;
  }
  if (t->priority_offset >= 0) {
    int p;
    memcpy(&p, static_cast<char*>(payload) + t->priority_offset, sizeof p);
    t->priority = clamp_priority(p);
  }
  if (t->priority > 0) t->seq = team_tasks(t->team)->next_seq.fetch_add(1, memory_order_relaxed);
  if (ompt::on()) [[unlikely]] {
    ompt::task_create(th, t, task_type(t, false), ndeps > 0);
    if (ndeps > 0) ompt::dependences(t, deps, ndeps);
  }
  // Dependences order a task only after its siblings: with none of them
  // incomplete, a task run at its creation that completes before its
  // creator goes on (below) has nothing to wait for and no later sibling
  // can find it incomplete, so it skips the dependence table, as libomp does
  // in a serial team (depchain at 1 thread: 2.5x libomp's time with the
  // table). An earlier sibling still incomplete (detached, untied, queued)
  // keeps every later one on the table.
  bool now = false;
  if (ndeps == 0 || (completes_in_place(t) && no_incomplete_children(th))) {
    now = run_now(th, t);
    if (now) ndeps = 0;
  }
  if (ndeps == 0) {
    // Ready now: decided once, here. Run at once, it is counted only if it
    // may finish after its creator goes on (see Task::counted).
    adopt(th, t, !(now && completes_in_place(t)));
    if (now) {
      run_inline(th, t);
    } else {
      task_schedule_ready(th, t, false);
      let_unstarted_fibers_run();
    }
    return;
  }
  adopt(th, t, true);
  if (!deps_register(th->current_task, t, deps, ndeps)) return;  // released by a predecessor
  task_schedule_ready(th, t, true);
  let_unstarted_fibers_run();
}

bool task_runs_now(int priority) {
  Thread* th = current_thread_fast();
  Task* cur = th->current_task;
  return cur && run_now_at(th, th->team, cur->depth + 1, clamp_priority(priority), -1);
}

void task_run_created(void* payload) {
  yield_if_monitor_asked();
  Thread* th = current_thread_fast();
  Task* t = task_from_payload(payload);
  if (ompt::on()) [[unlikely]] ompt::task_create(th, t, task_type(t, false), false);
  adopt(th, t, !completes_in_place(t));
  run_inline(th, t);
}

void task_begin_undeferred(void* payload) {
  Thread* th = current_thread_fast();
  Task* t = task_from_payload(payload);
  if (ompt::on()) [[unlikely]] {
    ompt::task_create(th, t, task_type(t, true), false);
    ompt::task_schedule(th->current_task, ompt_task_switch, t);
  }
  adopt(th, t, !completes_in_place(t));
  if (ult::trace::on()) ++th->traced_tasks;  // no span: counted in the enclosing one
  new_run_id(th);
  th->current_task = t;
  t->running = true;
}

void task_end_undeferred(void* payload) {
  Thread* th = current_thread_fast();
  Task* t = task_from_payload(payload);
  t->running = false;
  task_end_icvs(th, t);
  th->current_task = t->parent;
  new_run_id(th);  // the creator's number is not kept: a new one only costs it a full scan
  // An untied if(0) task that stopped at a scheduling point: it is
  // undeferred, so its remaining parts run here before the construct returns.
  while (t->requeued) {
    t->requeued = false;
    th->current_task = t;
    t->running = true;
    t->run(payload, th->gtid);
    t->running = false;
    task_end_icvs(th, t);
    th->current_task = t->parent;
  }
  if (t->cleanup) t->cleanup(payload, th->gtid);
  if (ompt::on()) [[unlikely]] {
    ompt::task_schedule(t, end_status(t), t->parent);
    ompt::clear_enter_frame();  // the creator's, kept since the task began (abi)
  }
  // Only a detachable task's count has a second holder (the event).
  if (!t->detachable || t->completion_left.fetch_sub(1, memory_order_acq_rel) == 1) finish(th, t);
}

void task_wait_deps(const DepItem* deps, int ndeps) {
  Thread* th = current_thread_fast();
  bool tool = ompt::on();
  ompt::TaskState tw;
  if (tool) [[unlikely]] ompt::taskwait_deps_begin(th, tw, deps, ndeps);
  if (ndeps > 0 && !no_incomplete_children(th)) deps_wait(th, deps, ndeps);
  if (tool) [[unlikely]] ompt::taskwait_deps_end(th, tw);
}

void task_set_affinity(void* payload, const void* addr, std::size_t len) {
  (void)len;
  Task* t = task_from_payload(payload);
  int node = -1;
  t->affinity_list = affinity_list_of(addr, &node);
  if (ult::trace::on()) [[unlikely]]
    ult::trace::instant(g_k_affinity, uint32_t(t->affinity_list), uint32_t(node));
}

int data_list_of(const Task* t) {
  // The task's own clauses, else its nearest ancestor's that has some: a
  // task that declares nothing works on what its creator declared (the
  // position in the DAG that ARMS's address stands for). Ancestors outlive
  // their descendants, and implicit tasks declare nothing.
  for (; t && !t->implicit; t = t->parent) {
    if (t->affinity_list >= 0) return t->affinity_list;
    if (t->deps && t->deps->data) {
      int node = -1;
      return affinity_list_of(reinterpret_cast<const void*>(t->deps->data), &node);
    }
  }
  return -1;
}

namespace {
struct RoutineReader {
  void (*run)(void*, int);
  const void* (*read)(void*);
};
// Written at load time only (static initialisers), before any task exists.
constinit RoutineReader g_routine_readers[4] = {};
constinit int g_routine_reader_count = 0;
}  // namespace

void register_task_routine(void (*run)(void*, int), const void* (*routine)(void*)) {
  if (g_routine_reader_count < int(std::size(g_routine_readers)))
    g_routine_readers[g_routine_reader_count++] = {run, routine};
}

const void* task_routine(Task* t) {
  for (int i = 0; i < g_routine_reader_count; ++i)
    if (g_routine_readers[i].run == t->run) return g_routine_readers[i].read(t->payload());
  return nullptr;
}

void note_leader_tasks() {
  if (!g_leader_tasks.load(memory_order_relaxed)) g_leader_tasks.store(true, memory_order_relaxed);
}

void note_mold_openers() {
  if (!g_mold_openers.load(memory_order_relaxed)) g_mold_openers.store(true, memory_order_relaxed);
}

int list_of_memory_node(int node) {
  if (node < 0 || std::size_t(node) >= g_placement.list_of_numa.size()) return -1;
  return g_placement.list_of_numa[std::size_t(node)];
}

int memory_node_lists() { return int(g_placement.list_of_numa.size()); }

std::size_t queued_ready(Team* team) {
  TeamTasks* tt = team->tasks.load(memory_order_acquire);
  if (!tt) return 0;
  std::size_t n = tt->priority.size();
  for (int l = 0; l < g_placement.num_lists; ++l) n += tt->sched->queued(l);
  return n;
}

int modelled_memory_nodes() {
  ensure_initialized();
  return g_modelled_nodes;
}

int modelled_memory_node_here() {
  ult::Worker* w = ult::Worker::current();
  const std::vector<int>& node_of = g_placement.numa_of_worker_core;
  if (!w || !w->in_pool() || node_of.empty()) return 0;
  // A bound thread is on its place's core, whichever worker runs it (thread
  // 1 of a team bound spread over 4 cores is on core 2, run by worker 1).
  int core = bound_core();
  return node_of[std::size_t(core >= 0 ? core : w->id()) % node_of.size()];
}

void* task_detach_event(void* payload) {
  Task* t = task_from_payload(payload);
  t->detachable = true;
  t->completion_left.store(2, memory_order_relaxed);  // the body, and the event
  return t;
}

void fulfill_event(void* event) {
  auto* t = static_cast<Task*>(event);
  if (!t || !t->detachable) return;
  ult::Fiber* f = ult::Worker::current_fiber();
  Thread* th = f ? static_cast<Thread*>(f->user()) : nullptr;
  // Early: the body still runs (it ends with the task complete); late: it
  // ended (as ompt_task_detach), and this completes the task. Said before the
  // task can be freed; a body ending meanwhile makes it late, said as early.
  if (ompt::on()) [[unlikely]]
    ompt::task_schedule(t, t->completion_left.load(memory_order_acquire) == 2 ? ompt_task_early_fulfill
                                                                                : ompt_task_late_fulfill,
                        nullptr);
  if (t->completion_left.fetch_sub(1, memory_order_acq_rel) == 1) finish(th, t);
}

void taskwait() {
  Thread* th = current_thread_fast();
  Task* cur = th->current_task;
  bool tool = ompt::on();
  const void* ra = tool ? ompt::return_address() : nullptr;
  if (tool) [[unlikely]] ompt::sync_enter(ompt_sync_region_taskwait, th, ra);
  // acquire: pairs with the children's acq_rel completions, so their writes are seen.
  help_until(th, [&] { return incomplete_of(cur->count.load(memory_order_acquire)) == 0; }, "taskwait");
  if (cur->domain) deps_clear_domain(cur);
  if (tool) [[unlikely]] ompt::sync_leave(ompt_sync_region_taskwait, th, ra);
}

void taskyield() {
  Thread* th = current_thread_fast();
  th->ompt.yielding = ompt::on();
  bool ran = run_one_task(th);
  th->ompt.yielding = false;
  // Finding nothing, run_one_task publishes a polling slot, as for a wait.
  // A taskyield does not wait, so it withdraws the slot. Left published, a
  // task handed to it waited for this thread's next wait, and when the
  // thread next opened a nested region whose team had no tasks, the join
  // withdrew the slot from that team's tasks (none: a crash).
  if (th->poll_slot) leave_polling(th);
  if (!ran) ult::Worker::yield();
}

void taskgroup_begin() {
  Thread* th = current_thread_fast();
  Task* cur = th->current_task;
  auto* g = new TaskGroup;
  g->outer = cur->running_group;
  cur->running_group = g;
  if (ompt::on()) [[unlikely]] ompt::sync_region(ompt_sync_region_taskgroup, ompt_scope_begin, th, ompt::return_address());
}

void taskgroup_end() {
  Thread* th = current_thread_fast();
  Task* cur = th->current_task;
  TaskGroup* g = cur->running_group;
  if (!g) fatal("taskgroup end without a taskgroup");
  bool tool = ompt::on();
  const void* ra = tool ? ompt::return_address() : nullptr;
  if (tool) [[unlikely]] ompt::sync_region_wait(ompt_sync_region_taskgroup, ompt_scope_begin, th, ra);
  help_until(th, [&] { return g->pending.load(memory_order_acquire) == 0; }, "the end of a taskgroup");
  if (tool) [[unlikely]] {
    ompt::sync_region_wait(ompt_sync_region_taskgroup, ompt_scope_end, th, ra);
    ompt::sync_region(ompt_sync_region_taskgroup, ompt_scope_end, th, ra);
  }
  taskgroup_finish_reductions(th, g);
  cur->running_group = g->outer;
  delete g;
}

bool in_final() { return current_thread_fast()->current_task->final_; }
int max_task_priority() {
  ensure_initialized();
  return g_max_priority;
}

}  // namespace bobbin::rt
