// Fork and join of parallel regions on fibers.
//
// Fork (on the encountering thread E, which becomes thread 0):
//   1. Decide the team size n (if clause, active levels, num_threads,
//      nthreads-var, thread limit).
//   2. Take E's hot team for this nesting depth (created once, reused), set it
//      up, and save E's context in it.
//   3. Prepare one fiber per member 1..n-1 and hand it to a worker: in the
//      outermost team of the initial thread, member i goes to worker i (bound,
//      so native TLS behaves as with libomp); in other teams the fibers are
//      movable and go to E's worker, from which idle workers steal them.
//   4. E runs the body as thread 0, then waits until every member finished
//      (join_pending == 0): the region's closing barrier. A member that
//      ends its part of the body runs the team's tasks until no task is
//      left and (if the team fits the workers) every thread has ended its
//      part (end_pending == 0), then leaves (join_pending--).
//   5. E's context is restored.
// Invariant J: a member's descriptor and fiber are reused only after the
// fiber is Idle again (Fiber::reusable), so a fork never overwrites a member
// that is still switching away from the previous region.
#include "runtime/team.hpp"
#include "runtime/ompt.hpp"

#include "runtime/alloc.hpp"
#include "runtime/display.hpp"
#include "runtime/help.hpp"
#include "runtime/places.hpp"
#include "runtime/progress.hpp"
#include "runtime/thread_local_data.hpp"
#include "runtime/trace.hpp"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <climits>
#include <ctime>
#include <cstring>
#include <type_traits>
#include <mutex>
#include <string>
#include <utility>

#include "config.hpp"
#include "runtime/call_microtask.hpp"
#include "runtime/settings.hpp"
#include "scheduler/gang.hpp"
#include "scheduler/mold.hpp"
#include "scheduler/topology.hpp"
#include "scheduler/worker_loop.hpp"
#include "ult/eternal.hpp"
#include "ult/guard.hpp"
#include "ult/log.hpp"
#include "ult/monitor.hpp"
#include "ult/mpi_wait.hpp"
#include "ult/pin.hpp"
#include "ult/stack_pool.hpp"

namespace bobbin::rt {

uint64_t g_fiber_spin_ns = 50'000;

namespace {

std::once_flag g_init_once;
// Never destroyed (as the places tables): workers are not joined at exit,
// and one may still read the topology or the initial team after the
// program's static destructors ran. The initial team holds the initial
// task and its dependence table, which LeakSanitizer then sees reachable.
sched::Topology* g_topology = nullptr;
int g_num_procs = 1;
// The processors a gang's pool may not outgrow: the modelled machine's under
// BOBBIN_TOPOLOGY, whose pool of a worker per modelled processor is not
// wider than it (compared with the real processors, every nested region
// after the first gang, which grows the pool to the places, ran in steal
// mode).
int g_gang_procs = 1;
bool g_pin_initial = false;
bool g_initial_pinned = false;  // the initial thread's only
Thread* g_initial = nullptr;
Icvs g_start_icvs;  // the initial thread's ICVs at start-up, for adopted threads
constinit ult::Eternal<Team> g_initial_team_storage;
constinit Team& g_initial_team = g_initial_team_storage.value;
// Worker i's descriptor as member i of the initial thread's outermost team.
Thread* g_bound[ult::Worker::kMaxWorkers];
// Global thread ids (gtid): 0 for the initial thread; 1..n for the hidden
// helper threads (hidden_helper.cpp), if any, then n + i for worker i's
// thread of the outermost teams, then, from kFirstOtherGtid up, the threads
// of nested teams and the program's other threads, as libomp keeps ids
// 1..n for its hidden helpers.
constexpr int kFirstOtherGtid = ult::Worker::kMaxWorkers + kMaxHiddenHelpers;
Atomic<int> g_next_gtid{kFirstOtherGtid};
int g_helper_gtids = 0;  // n above; set at start-up
std::mutex g_adopt_mutex;

// Fork sets the same fields of the team, its implicit tasks and its members'
// descriptors region after region, mostly to the values they already hold.
// A store takes the line from the caches of the threads that read it next
// (the members, on other cores), which then miss; a load that finds the
// value in place leaves the line shared. Measured with EPCC's parallel
// (2 threads), with the ensure_pool check in open_region: a third of the
// fork-join time.
template <class T>
void keep_or_set(T& field, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  // memcpy, not =: padding is copied too, so the next comparison matches.
  if (std::memcmp(&field, &v, sizeof v) != 0) std::memcpy(&field, &v, sizeof v);
}
template <class T>
void keep_or_set(Atomic<T>& field, T v) {
  if (field.load(memory_order_relaxed) != v) field.store(v, memory_order_relaxed);
}

void reset_implicit_task(Task* t, Team* team) {
  keep_or_set(t->team, team);
  keep_or_set(t->implicit, true);
  keep_or_set(t->count, int64_t(0));
  keep_or_set(t->running_group, static_cast<TaskGroup*>(nullptr));
  keep_or_set(t->domain, static_cast<DepDomain*>(nullptr));
  keep_or_set(t->depth, uint32_t(0));
  keep_or_set(t->final_, false);
}

// Whether `me` is in a team tree rooted at a program thread other than the
// initial one (adopt_current_thread). Such a tree's fibers are pool-only
// (ult::Fiber::pool_only): worker 0 is the initial thread, which runs queued
// fibers only while it waits in the runtime, and may be in user code, blocked
// (a pthread_join on this very thread), or gone, while the other tree runs.
bool outside_initial_tree(const Thread* me) {
  const Team* t = me->team;
  while (t->parent) t = t->parent;
  return t != &g_initial_team;
}

// Whether the initial thread's current team and every team above it up to
// the initial team are teams of one (inactive regions: if(0), num_threads(1),
// not a league): then a region it opens is the first active one, and its
// members are bound to workers 1..n-1 like those of a top-level region, so
// each runs on a kernel thread of its own (threadprivate and __thread as
// with libomp). Those workers and their descriptors are free: no region of
// more than one thread is open.
bool only_serial_above(const Thread* me) {
  for (const Team* t = me->team; t; t = t->parent) {
    if (t == &g_initial_team) return true;
    if (t->nthreads > 1 || t->league_size > 1) return false;
  }
  return false;
}

// Gangs take the workers nearest their creator first (scheduler/gang.hpp):
// worker w runs on core w modulo the cores, in tree order, as the task
// lists count it (sched::Placement::list_of_worker).
std::vector<uint8_t> g_core_nearness;  // cores x cores: the depth of their common ancestor
int g_nearness_cores = 0;

int nearness_of_workers(int a, int b) {
  int n = g_nearness_cores;
  return g_core_nearness[std::size_t(a % n) * std::size_t(n) + std::size_t(b % n)];
}

void set_gang_nearness(const sched::Topology& topo) {
  int n = int(topo.domains(sched::Level::Core).size());
  if (n < 3) return;  // one other worker, or none: nothing to order
  g_core_nearness = sched::core_nearness(topo);
  g_nearness_cores = n;
  sched::set_worker_nearness(&nearness_of_workers);
}

// Worker i starts pinned to place i (wrapping); the initial thread is the
// program's, and its mask is inherited by every thread the program creates,
// so it is pinned only when the user asked for binding, and only when it
// opens its first region or asks for its place (as libomp does): a program
// whose other threads set up OpenMP before the initial thread uses it
// leaves that thread's mask alone (LLVM's root-threads-affinity).
void pin_worker(int id) {
  if (id == 0) return;  // the initial thread: pin_initial_thread, at its first region
  if (!binding_requested()) {
    pin_unbound_worker(id);
    return;
  }
  // places() directly: this runs during initialisation (num_places() would
  // re-enter ensure_initialized's call_once and hang).
  follow_place(id % int(places().size()));
}

void describe_fiber(ult::Fiber* f, char* buf, std::size_t len) {
  auto* t = static_cast<Thread*>(f->user());
  if (!t) {
    snprintf(buf, len, "a runtime fiber");
    return;
  }
  // snprintf is not formally async-signal-safe, but glibc's does not allocate for %d.
  snprintf(buf, len, "OpenMP thread %d (level %d, global id %d)", t->tid, t->team ? t->team->level : 0, t->gtid);
}

Icvs initial_icvs(const Settings& st) {
  Icvs icv;
  icv.nthreads = st.num_threads.empty() ? g_num_procs : st.num_threads[0];
  icv.nthreads_pos = 0;
  icv.sched = st.schedule;
  icv.dynamic = st.dynamic;
  // As libomp: one active level unless asked, or implied by a list of
  // per-level thread counts.
  icv.max_active_levels = st.max_active_levels;
  icv.bind = initial_bind();
  icv.bind_pos = 0;
  icv.default_device = st.default_device;
  if (!getenv("OMP_MAX_ACTIVE_LEVELS") && !st.nested_set) {
    // A list of thread counts or of binding policies per level implies as
    // many active levels (spec 6.2, 6.4).
    int levels = std::max(int(st.num_threads.size()), bind_list_length());
    icv.max_active_levels = levels > 1 ? levels : 1;
  }
  return icv;
}

// An outermost team's master leaves its join without waiting for the
// members to leave (close_region): they may still be checking the team.
// acquire: pairs with their acq_rel decrement; they notify after it.
void wait_members_left(Team* team) {
  if (team->join_pending.load(memory_order_acquire) != 0)
    team->ww.wait([&] { return team->join_pending.load(memory_order_acquire) == 0; });
}

// The initial thread outside any region: waits until the members of its
// outermost teams have left them (close_region lets the master go first).
void wait_initial_teams_left(Thread* me) {
  for (const std::unique_ptr<Team>& team : me->hot)
    if (team) wait_members_left(team.get());
}

// fork() from the initial thread outside any region: the members of its
// last outermost team would never leave in the child, whose next region
// would wait for them; so the fork waits for them here, as a join used to.
void before_fork() {
  ult::Fiber* f = ult::Worker::current_fiber();
  Thread* me = f ? static_cast<Thread*>(f->user()) : nullptr;
  if (!me || me != g_initial || me->team != &g_initial_team) return;
  wait_initial_teams_left(me);
}

// fork(): the child has only the forking thread. If that is the initial
// thread outside any region (the usual case: a region, then fork, then
// regions in the child), the pool forgets its other workers and the child's
// next region starts new ones, as libomp does. Forked from anywhere else,
// the child cannot go on with the region it was in.
void after_fork_in_child() {
  Thread* me = g_initial;
  if (!me || me->team != &g_initial_team) return;
  ult::Worker::forget_pool_after_fork();
}

void add_mold_trace_kind();  // below, with the model

void initialize() {
  const Settings& st = settings();
  trace_init();  // before the pool: every worker's track starts with it
  ult::set_stack_size(st.stacksize);
  apply_wait_settings();
  begin_runtime_loads();  // hwloc's plugins load below: their thread-local data is not the program's
  g_num_procs = int(ult::allowed_cpus().size());
  if (g_num_procs < 1) g_num_procs = 1;
  g_topology = sched::Topology::discover().release();
  g_gang_procs = g_topology->is_synthetic() ? std::max(g_num_procs, g_topology->num_pus()) : g_num_procs;
  places_init(*g_topology);
  set_gang_nearness(*g_topology);
  end_runtime_loads();
  g_pin_initial = binding_requested();
  ult::set_program_unbound(!g_pin_initial);
  ult::set_fiber_describer(&describe_fiber);
  sched::install_worker_loop();
  progress_init();
  ult::set_mpi_wait(settings().mpi_fiber_wait);
  tasking_init();
  if (ult::trace::on()) add_mold_trace_kind();
  // The program's thread is not pinned (unless binding is asked for): when
  // the kernel runs it on a pinned worker's processor during a long region,
  // that worker moves (places.cpp). LLVM's kmp_sch_simd_guided test (teams
  // of 1 to 4 on 2 processors, each one long region of barriers): the
  // initial thread and worker 1 on one processor for seconds, 66 s for what
  // took 0.2 s with every thread bound.
  if (!g_pin_initial)
    ult::install_initial_placement_hook([] { keep_initial_thread_apart(ult::Worker::pool_size()); });
  ult::Worker::ensure_pool(1, &pin_worker);
  pthread_atfork(&before_fork, nullptr, &after_fork_in_child);

  g_helper_gtids = hidden_helper_gtids();
  auto* t = new Thread;
  t->gtid = 0;
  g_initial_team.level = 0;
  g_initial_team.active_level = 0;
  g_initial_team.nthreads = 1;
  g_initial_team.resize(1);
  g_initial_team.loops.reset();
  g_initial_team.members[0] = t;
  reset_implicit_task(&g_initial_team.implicit[0], &g_initial_team);
  t->team = &g_initial_team;
  t->tid = 0;
  t->current_task = &g_initial_team.implicit[0];
  t->icv = initial_icvs(st);
  t->binding = initial_binding();
  g_start_icvs = t->icv;
  g_initial = t;
  g_bound[0] = t;
  ult::Worker::current_fiber()->set_user(t);
  trace_thread_changed(t);
  report_at_startup();
  ompt::start(t);
}

// A kernel thread that is not a worker (a pthread of the program) calls into
// the runtime: it becomes a worker of its own, with its own initial thread.
// Its outermost teams are not bound to workers (those belong to the initial
// thread's team); their members are movable, like nested ones. `gtid`: the
// global id it gets (a hidden helper's), or -1 for the next free one.
Thread* adopt_current_thread(int gtid = -1) {
  std::lock_guard<std::mutex> g(g_adopt_mutex);
  ult::Worker::adopt_foreign_thread();
  auto* team = new Team;
  team->resize(1);
  team->loops.reset();
  reset_implicit_task(&team->implicit[0], team);
  auto* t = new Thread;
  t->gtid = gtid >= 0 ? gtid : g_next_gtid.fetch_add(1, memory_order_relaxed);
  team->members[0] = t;
  t->team = team;
  t->current_task = &team->implicit[0];
  t->icv = g_start_icvs;
  ult::Worker::current_fiber()->set_user(t);
  ompt::initial_thread_begin(t);
  return t;
}

using Microtask = void (*)(int*, int*, ...);

// The direct caller of the outlined function: its frame is the implicit
// task's exit frame for a tool (ompt.hpp).
template <std::size_t... I>
void call_with(void* fn, int* gtid, int* tid, void** a, std::index_sequence<I...>) {
  if (ompt::on()) [[unlikely]] ompt::set_exit_frame(__builtin_frame_address(0));
  reinterpret_cast<Microtask>(fn)(gtid, tid, a[I]...);
  asm volatile("" ::: "memory");  // not a tail call: the frame must stay while the body runs
}

template <std::size_t... N>
constexpr auto make_invokers(std::index_sequence<N...>) {
  using Invoker = void (*)(void*, int*, int*, void**);
  return std::array<Invoker, sizeof...(N)>{
      [](void* fn, int* g, int* t, void** a) { call_with(fn, g, t, a, std::make_index_sequence<N>{}); }...};
}

// Microtasks take their captured variables as separate arguments: up to 64
// through these, more through bobbin_call_microtask_n (call_microtask.hpp).
constexpr auto kInvokers = make_invokers(std::make_index_sequence<65>{});

void invoke_body(const RegionBody& body, Thread* t) {
  if (body.kind == RegionBody::Kind::DataPointer) {
    if (ompt::on()) [[unlikely]] ompt::set_exit_frame(__builtin_frame_address(0));
    reinterpret_cast<void (*)(void*)>(body.fn)(body.data);
    asm volatile("" ::: "memory");  // not a tail call (the exit frame)
    return;
  }
  int gtid = t->gtid, tid = t->tid;
  if (body.argc >= 0 && std::size_t(body.argc) < kInvokers.size()) {
    kInvokers[std::size_t(body.argc)](body.fn, &gtid, &tid, body.argv);
    return;
  }
  if constexpr (kCallsAnyArity) {  // else the call would name a routine defined only on x86-64
    if (body.argc > 0) {
      bobbin_call_microtask_n(body.fn, &gtid, &tid, body.argc, body.argv, ompt::on() ? &ompt::set_exit_frame : nullptr);
      return;
    }
  }
  fatal("a parallel region with %d captured variables (at most %zu are supported on this processor)", body.argc,
        kInvokers.size() - 1);
}

// A thread of a molded region: its time in the body, for the model.
[[gnu::noinline]] void invoke_timed(const RegionBody& body, Thread* t) {
  Team* team = t->team;
  uint64_t start = now_ns();
  invoke_body(body, t);
  team->mold_busy_ns.fetch_add(now_ns() - start, memory_order_relaxed);
  team->mold_busy_parts.fetch_add(1, memory_order_relaxed);  // read after the join, which orders them
}

void invoke(const RegionBody& body, Thread* t) {
  if (!ompt::on()) [[likely]] {
    if (t->team->mold_timed) [[unlikely]] return invoke_timed(body, t);
    invoke_body(body, t);
    return;
  }
  Task* task = t->current_task;
  const void* ra = ompt::user_code_begin(t);
  invoke_body(body, t);
  ompt::user_code_end(t, task, ra);
}

}  // namespace

bool invoke_current_body() {
  Thread* me = current_thread_fast();
  if (!me || !me->team || me->team->level == 0) return false;
  invoke(me->team->body, me);
  return true;
}

namespace {

// A thread has ended its part of the region's body. acq_rel: the last one
// sees the others' writes, and its own are released to the members that
// acquire the zero.
void end_part(Team* team) {
  if (team->end_pending.fetch_sub(1, memory_order_acq_rel) == 1) team->ww.notify_all();
}

// The end of a region is a task scheduling point: a member that ended its
// part helps with the team's tasks until no task is left, then leaves.
// Leaving as soon as the team is quiescent would be correct, but a thread
// still in the body may create tasks later (gcc drops the barrier of a
// single or loop that ends the region, so `parallel { single { tasks } }`
// meets no other barrier), and the member would leave them all to their
// creator. So a member waits, as at a barrier, until every thread has ended
// its part too; except in a nested team with more threads than workers,
// where the threads still in the body wait for a worker themselves and a
// waiting member, rescheduled again and again, slows them more than it
// helps (measured: nested's inner regions of 8 on 2 workers, 8% slower).
// At the first active level (an outermost team run as fibers) they wait:
// a program whose thread 0 spins until its tasks have run elsewhere runs on
// libomp, and must run here (task_if0_outlive, gcc build: it hung).
void member_main(ult::Fiber* f) {
  auto* m = static_cast<Thread*>(f->user());
  Team* team = m->team;
  if (m->binding.place >= 0) take_place(m->binding.place);
  else leave_place();
  display_affinity_if_enabled();
  // A league's threads are seen as its teams' initial tasks (run_as_initial_thread).
  bool tool = ompt::on() && !(team->ompt.flags & ompt_parallel_league);
  if (tool) [[unlikely]] ompt::implicit_task_begin(m, team, m->tid);
  m->ended_part = false;
  invoke(team->body, m);
  if (tool) [[unlikely]] ompt::sync_enter(ompt::kImplicitBarrier, m, nullptr);
  end_part(team);
  m->ended_part = true;
  // Not in a league: each of its threads is a team's initial thread, whose
  // tasks are that team's alone and done before its body returns
  // (run_as_initial_thread). A league member that leaves gives its stack
  // back for the teams not started yet; waiting, a league of 4500 held 4500
  // stacks, and the stack cache's overflow was unmapped and mapped again.
  bool all_ended_first =
      !team->league && (team->nthreads <= ult::Worker::pool_size() || team->active_level == 1);
  help_until(
      m, [&] { return (!all_ended_first || team->end_pending.load(memory_order_acquire) == 0) && team_quiescent(team); },
      "the rest of its team at the end of the region");
  if (m->current_task->domain) deps_clear_domain(m->current_task);
  if (tool) [[unlikely]] {
    ompt::join_barrier_leave(m, nullptr);
    ompt::implicit_task_end(m, team, m->tid);
  }
  // acq_rel: releases this member's writes to the master (which acquires).
  team->join_pending.fetch_sub(1, memory_order_acq_rel);
  team->ww.notify_all();
}

// OMP_DISPLAY_ENV=verbose says, once, when a gang got fewer threads than asked
// (only with dyn-var true).
void report_smaller_gang(int asked, int got) {
  static Atomic<bool> said{false};
  if (settings().display_env != "verbose" || said.exchange(true, memory_order_relaxed)) return;
  warn("a nested region asked for %d threads and got %d: a gang has at most one member per worker", asked, got);
}

// The size the program asks for: the clause, a pushed value, or nthreads-var.
int requested_size(const Thread* me, const ForkRequest& req) {
  if (!req.if_clause) return 1;
  if (req.league) return req.num_threads;
  int n = req.num_threads > 0 ? req.num_threads : me->pushed_nthreads > 0 ? me->pushed_nthreads : me->icv.nthreads;
  return n < 1 ? 1 : n;
}

int choose_team_size(Thread* me, const ForkRequest& req) {
  int n = requested_size(me, req);
  if (!req.if_clause || req.league) return n;  // a teams construct: one initial thread per team
  if (me->team->active_level >= me->icv.max_active_levels) return 1;
  const Settings& st = settings();
  if (st.thread_limit > 0 && n > st.thread_limit) n = st.thread_limit;
  if (me->icv.thread_limit > 0 && n > me->icv.thread_limit) n = me->icv.thread_limit;
  if (me->icv.dynamic && n > g_num_procs) n = g_num_procs;
  return n;
}

// A contention group's thread-limit-var bounds its threads alive at once: a
// fork reserves its extra threads in the encountering thread's group (a team
// of one needs none) and the join gives them back. Nothing is counted where
// no limit is set.
ContentionGroup g_program_group;  // the initial thread's; its limit is OMP_THREAD_LIMIT

ContentionGroup& group_of(const Team* t) { return t && t->cg ? *t->cg : g_program_group; }
int group_limit(const ContentionGroup& g) { return &g == &g_program_group ? settings().thread_limit : g.limit; }

int reserve_threads(const Team* encountering, int n) {
  ContentionGroup& g = group_of(encountering);
  int limit = group_limit(g);
  if (limit <= 0 || n <= 1) return n;
  int in_use = g.in_use.load(memory_order_relaxed);
  for (;;) {
    int extra = std::max(0, std::min(n - 1, limit - in_use));
    // relaxed: a count, not a publication; the team's own fork/join order the threads.
    if (g.in_use.compare_exchange_weak(in_use, in_use + extra, memory_order_relaxed)) return extra + 1;
  }
}

void release_threads(const Team* team, int n) {
  ContentionGroup& g = group_of(team);
  if (group_limit(g) > 0 && n > 1) g.in_use.fetch_sub(n - 1, memory_order_relaxed);
}

Icvs child_icvs(const Icvs& parent) {
  Icvs c = parent;
  const auto& list = settings().num_threads;
  std::size_t pos = std::size_t(parent.nthreads_pos) + 1;
  if (pos < list.size()) c.nthreads = list[pos];
  c.nthreads_pos = int(pos);
  c.bind = bind_at(parent.bind_pos + 1, parent.bind);
  c.bind_pos = parent.bind_pos + 1;
  return c;
}

void save_context(Thread* me, Team* team) {
  team->saved = SavedContext{me->team,   me->tid,        me->current_task, me->binding,
                             me->icv,    me->ws_seq,     me->ws_slot,      me->single_seq,
                             me->red_seq, me->cursor};
}

void restore_context(Thread* me, Team* team) {
  const SavedContext& s = team->saved;
  --me->ctx_depth;
  me->team = s.team;
  me->tid = s.tid;
  me->current_task = s.current_task;
  me->binding = s.binding;
  me->icv = s.icv;
  me->ws_seq = s.ws_seq;
  me->ws_slot = s.ws_slot;
  me->single_seq = s.single_seq;
  me->red_seq = s.red_seq;
  me->cursor = s.cursor;
  if (ult::trace::on()) trace_thread_changed(me);
}

void start_thread_in(Thread* t, Team* team, int tid, const Icvs& icv, const Binding& binding) {
  keep_or_set(t->binding, binding);
  keep_or_set(t->team, team);
  keep_or_set(t->tid, tid);
  keep_or_set(t->icv, icv);
  keep_or_set(t->ws_seq, uint32_t(0));
  keep_or_set(t->ws_slot, uint32_t(0));
  keep_or_set(t->single_seq, uint32_t(0));
  keep_or_set(t->red_seq, uint32_t(0));
  keep_or_set(t->cursor, LoopCursor{});
  keep_or_set(t->current_task, &team->implicit[std::size_t(tid)]);
  keep_or_set(t->pushed_nthreads, 0);
  keep_or_set(t->pushed_bind, -1);
  if (ult::trace::on()) trace_thread_changed(t);
}

// Steps 1-2 of fork, shared by active and serialized regions.
// The team this thread reuses at its current context depth ("hot").
Team* hot_team(Thread* me) {
  std::size_t depth = std::size_t(me->ctx_depth);
  if (me->hot.size() <= depth) me->hot.resize(depth + 1);
  if (!me->hot[depth]) me->hot[depth] = std::make_unique<Team>();
  return me->hot[depth].get();
}

// Whether one of the teams enclosing `me` is an outermost team run as fibers
// wider than the machine.
bool under_wide_fibers(const Thread* me) {
  for (const Team* t = me->team; t; t = t->parent)
    if (t->wide_fibers) return true;
  return false;
}

// Whether an outermost team of n threads runs as fibers on the workers
// rather than on a kernel thread per OpenMP thread (BOBBIN_WIDE_TEAMS; the
// decision is argued in scheduler/README.md): only a team wider than the
// machine, and in auto mode only while no loaded module but the system's
// and the runtimes' has thread-local data, since OpenMP threads that share
// a kernel thread share its `threadprivate` and `__thread` variables, and
// only if it is not a top-level team whose members may open active nested
// regions (`may_nest`): each member would be the primary thread of its
// inner team, sharing a worker with the other members, so an inner team
// that meets outside the runtime waits for its primary thread's turn on
// that worker, round after round.
bool wide_team_as_fibers(int n, bool may_nest) {
  if (n <= g_num_procs) return false;
  int mode = settings().wide_teams;
  if (mode != 0) return mode == 2;
  std::string module;
  bool tls = program_has_thread_local_data(&module);
  static Atomic<int> said{-1};  // what OMP_DISPLAY_ENV=verbose last reported
  int say = tls ? 1 : may_nest ? 2 : 0;
  if (settings().display_env == "verbose" && said.exchange(say, memory_order_relaxed) != say) {
    if (tls)
      warn("an outermost team of %d threads on %d processors runs a kernel thread per OpenMP thread: %s has "
           "thread-local data",
           n, g_num_procs, module.c_str());
    else if (may_nest)
      warn("an outermost team of %d threads on %d processors runs a kernel thread per OpenMP thread: its threads "
           "may open active nested regions (max-active-levels-var %d)",
           n, g_num_procs, current_thread_fast()->icv.max_active_levels);
    else
      warn("an outermost team of %d threads on %d processors runs as fibers on the workers", n, g_num_procs);
  }
  return !tls && !may_nest;
}

// Whether the members of a nested team get a kernel thread each (spares)
// rather than run as fibers on the workers (BOBBIN_NESTED_THREADS). A fiber
// shares its kernel thread's thread-local storage with every other fiber
// of that worker, and a nested member may run on the worker of an outer
// thread: with `threadprivate` (clang and gcc lower it to native TLS),
// `__thread` or `thread_local` data, the members of an inner team of 4
// under an outer team of 2 on 2 cores read one another's copies, and a
// member writing its copy overwrote an outer thread's (19 of 20 regions).
// So in auto mode, as for wide teams, only while no loaded module but the
// system's and the runtimes' has thread-local data; else a kernel thread
// per member, as libomp, whose TLS is the member's own.
bool nested_members_need_threads() {
  int mode = settings().nested_threads;
  if (mode != 0) return mode == 1;
  bool verbose = settings().display_env == "verbose";
  std::string module;
  bool tls = program_has_thread_local_data(verbose ? &module : nullptr);
  static Atomic<int> said{-1};  // what OMP_DISPLAY_ENV=verbose last reported
  if (verbose && said.exchange(tls, memory_order_relaxed) != int(tls)) {
    if (tls)
      warn("nested teams run a kernel thread per member: %s has thread-local data", module.c_str());
    else
      warn("nested teams run as fibers on the workers");
  }
  return tls;
}

// A top-level team (under the initial thread's implicit one, not under
// inactive regions: nested 1 x k keeps fibers, 0.11-0.14 of libomp's time
// against 0.6-0.8 with kernel threads) whose members may open active nested
// regions.
bool may_nest(const Thread* me) {
  return me->team->level == 0 && me->team->active_level + 1 < me->icv.max_active_levels;
}

// The outermost team has at most a worker per member (its member i is
// worker i's thread): a team of 5000 threads with thread-local data, or whose
// threads may open active nested regions, stopped the program ("cannot run
// 5000 workers"). A parallel region gets fewer threads, with a warning, as
// libomp's does when it cannot start the threads asked for; a league keeps
// its teams (since OpenMP 5.1 num_teams(n) is also the lower bound) and runs
// as fibers (wide_league_as_fibers).
constexpr int kMaxOutermost = ult::Worker::kMaxWorkers;

bool wide_league_as_fibers(int n);

// Whether the first active level's team of n threads runs as fibers on the
// workers, rather than a worker per member (the outermost team).
bool first_active_as_fibers(const Thread* me, int n, bool league) {
  return wide_team_as_fibers(n, may_nest(me)) || (league && wide_league_as_fibers(n));
}

int outermost_limit(const Thread* me, int n, bool league) {
  if (n <= kMaxOutermost || me != g_initial || !only_serial_above(me) || first_active_as_fibers(me, n, league))
    return n;
  static Atomic<bool> said{false};
  if (!said.exchange(true, memory_order_relaxed))
    warn("cannot form a team of %d threads, each on a kernel thread of its own: using %d", n, kMaxOutermost);
  return kMaxOutermost;
}

// A league wider than the outermost team may be runs as fibers whatever its
// teams do: teams that share a kernel thread share its `threadprivate` data.
bool wide_league_as_fibers(int n) {
  if (n <= kMaxOutermost) return false;
  static Atomic<bool> said{false};
  if (!said.exchange(true, memory_order_relaxed))
    warn("a league of %d teams runs as fibers on the workers (more than %d kernel threads): teams that share one "
         "share its threadprivate data",
         n, kMaxOutermost);
  return true;
}

// `threads_reserved`: what the fork took from OMP_THREAD_LIMIT's count, which
// close_region gives back.
// `requested`: the team size the program asked for, for a tool (0: n).
// `tool_region`: what a tool hears of the new team: a parallel region, a
// league (the teams construct), or nothing (a team's initial thread, which
// a tool sees as the league's initial task).
enum class ToolRegion { Parallel, League, None };
Team* enter_team(Thread* me, int n, const RegionBody& body, int threads_reserved = 0, int requested = 0,
                 ToolRegion tool_region = ToolRegion::Parallel, bool molded = false) {
  Team* team = hot_team(me);
  wait_members_left(team);
  bool first_active = n > 1 && me == g_initial && only_serial_above(me);
  bool wide = first_active && first_active_as_fibers(me, n, tool_region == ToolRegion::League);
  BOBBIN_ASSERT(!(first_active && !wide) || n <= kMaxOutermost);  // outermost_limit
  keep_or_set(team->outermost, first_active && !wide);
  keep_or_set(team->wide_fibers, wide);
  keep_or_set(team->league_num, 0);
  keep_or_set(team->league_size, 1);
  keep_or_set(team->gang_key, uint64_t(0));
  keep_or_set(team->threads_reserved, threads_reserved);
  keep_or_set(team->cg, me->team->cg);
  team->resize(n);
  keep_or_set(team->members[0], me);
  keep_or_set(team->parent, me->team);
  keep_or_set(team->parent_tid, me->tid);
  keep_or_set(team->level, me->team->level + 1);
  keep_or_set(team->active_level, me->team->active_level + (n > 1 ? 1 : 0));
  keep_or_set(team->nthreads, n);
  keep_or_set(team->body, body);
  keep_or_set(team->mold_timed, molded);
  if (molded) {
    team->mold_busy_ns.store(0, memory_order_relaxed);
    team->mold_busy_parts.store(0, memory_order_relaxed);
  }
  if (ult::trace::on()) team->trace_id = next_team_trace_id();
  team->barrier.reset(n, ult::Worker::current());
  team->end_pending.store(n, memory_order_relaxed);
  team->join_pending.store(n - 1, memory_order_relaxed);
  keep_or_set(team->single_claimed, uint32_t(0));
  for (Team::ShareSlot& s : team->share) keep_or_set(s.key, uint64_t(0));
  keep_or_set(team->cancel_flags, uint32_t(0));
  team->loops.reset();
  keep_or_set(team->red_released, uint32_t(0));
  for (int i = 0; i < n; ++i) {
    keep_or_set(team->red_arrived[std::size_t(i)], uint32_t(0));
    reset_implicit_task(&team->implicit[std::size_t(i)], team);
  }
  save_context(me, team);
  ++me->ctx_depth;
  if (ompt::on()) [[unlikely]] {
    if (tool_region == ToolRegion::None) team->ompt = ompt::TeamState{};
    else
      ompt::parallel_begin(me, team, requested > 0 ? requested : n,
                           body.kind == RegionBody::Kind::VarargsMicrotask || tool_region == ToolRegion::League,
                           tool_region == ToolRegion::League);
  }
  me->pushed_nthreads = 0;
  me->pushed_bind = -1;
  return team;
}

}  // namespace

void Team::resize(int n) {
  members.resize(std::size_t(n));
  if (implicit_cap >= n) return;
  red_data.assign(std::size_t(n), nullptr);
  red_arrived.reset(new Atomic<uint32_t>[std::size_t(n)]());
  implicit.reset(new Task[std::size_t(n)]);
  implicit_cap = n;
}

static bool resume_after_pause();

Thread* current_thread() {
  ult::Fiber* f = ult::Worker::current_fiber();
  if (!f) {
    ensure_initialized();
    f = ult::Worker::current_fiber();
    if (!f && resume_after_pause()) f = ult::Worker::current_fiber();
    if (!f) return adopt_current_thread();
  }
  auto* t = static_cast<Thread*>(f->user());
  if (!t) fatal("internal error: OpenMP code running on a runtime fiber");
  return t;
}

// The flag spares every later call std::call_once's __tls_get_addr (libstdc++
// passes the callable through thread-local storage).
void ensure_initialized() {
  static Atomic<bool> done{false};
  if (done.load(memory_order_acquire)) return;  // pairs with the release below
  std::call_once(g_init_once, initialize);
  done.store(true, memory_order_release);
}
const sched::Topology* current_topology() { return g_topology; }

Thread* adopt_hidden_helper_thread(int gtid) {
  ensure_initialized();
  return adopt_current_thread(gtid);
}

void apply_wait_settings() {
  g_fiber_spin_ns = fiber_spin_ns();
  ult::Worker::set_spin_ns(worker_spin_ns());
}

namespace {
Atomic<int> g_nested_override{0};  // bobbin_set_nested_mode(mode, all): 0 none

int mode_for_next_region(Thread* me) {
  int m = me->next_nested_mode;
  me->next_nested_mode = 0;
  if (!m) m = g_nested_override.load(memory_order_relaxed);
  return m ? m : settings().nested_mode;
}
}  // namespace

// Member i's descriptor: worker i's own for the initial thread's outermost
// team, else one the team owns; waits until its fiber is reusable (Invariant
// J). May yield: never call it with a lock held.
Thread* member_descriptor(Team* team, int i) {
  Thread* m;
  if (team->outermost) {
    if (!g_bound[i]) {
      g_bound[i] = new Thread;
      g_bound[i]->gtid = i + g_helper_gtids;
    }
    m = g_bound[i];
  } else {
    while (team->owned.size() < std::size_t(i)) {
      team->owned.push_back(std::make_unique<Thread>());
      team->owned.back()->gtid = g_next_gtid.fetch_add(1, memory_order_relaxed);
    }
    m = team->owned[std::size_t(i - 1)].get();
  }
  if (!m->fiber.reusable()) WaitWord::spin([&] { return m->fiber.reusable(); });
  while (!m->fiber.reusable()) ult::Worker::yield();
  return m;
}

// ---- moldable nested regions (scheduler/mold.hpp) -------------------------------

namespace {

// Built on first use, never destroyed: members may still join at exit.
sched::MoldModel& mold_model() {
  static sched::MoldModel& m = *new sched::MoldModel;
  return m;
}

// Traced: each region whose width the model chose, at its join (a[0] the
// width, a[1] the width asked, a[2] the measured time in microseconds,
// a[3] the predicted one, 0 while exploring; `end` the leader place).
uint16_t g_k_mold = 0;
void mold_args(const ult::trace::Record& r, const uint32_t*, int, ult::trace::Json& o) {
  o.num("width", r.a[0]);
  o.num("asked", r.a[1]);
  o.num("measured_us", r.a[2]);
  if (r.a[3]) o.num("predicted_us", r.a[3]);
  o.num("leader", uint32_t(r.end));
  // The task list holding the region's data (mold_where: 1 + its index; 0, unknown: not shown).
  if (uint32_t where = uint32_t(r.end >> 32)) o.num("where", where - 1);
  o.str("choice", r.flags ? "exploring" : "model");
}

// Traced: each ready task the model queued at a leader (a[0] the list, a[1]
// the node; flags: exploring that node).
uint16_t g_k_mold_leader = 0;
void mold_leader_args(const ult::trace::Record& r, const uint32_t*, int, ult::trace::Json& o) {
  o.num("list", r.a[0]);
  o.num("leader", r.a[1]);
  o.str("choice", r.flags ? "exploring" : "model");
}

void add_mold_trace_kind() {
  g_k_mold = ult::trace::add_kind({"mold", "mold", ult::trace::Shape::Instant, nullptr, &mold_args});
  g_k_mold_leader =
      ult::trace::add_kind({"mold leader", "mold", ult::trace::Shape::Instant, nullptr, &mold_leader_args});
}

// Whether a nested region's width is the model's: BOBBIN_MOLD=on, or auto
// with dyn-var true (the spec lets the runtime give fewer threads then).
bool molding(const Thread* me) {
  int m = settings().mold;
  return m > 0 || (m == 0 && me->icv.dynamic);
}

// Workers with nothing to do besides the caller's: those in their idle loop,
// and those whose running thread waits for a task that is not there (at its
// barrier: it yields to a member queued there). The same test a gang opened
// by a task takes its workers by (scheduler/gang.cpp), so that the width the
// model picks is the width the gang gets. And the workers not started yet,
// up to one per place, which a gang starts (open_gang): the model explores
// only widths the idle workers allow, so uncounted they would never be
// started for a kind whose regions all ran narrow. Not the workers started
// whose threads have not reached their loop yet: counted, the first step
// of a moldable chain would not run at width 1 while the program's first
// team starts (1.9 ms against 1.2-1.4 at width 2), but on a loaded host
// mold_choose's leader choice then failed 2 runs in 40 (none without; the
// cause is not understood: one run explored no leader at all).
int idle_workers() {
  ult::Worker* self = ult::Worker::current();
  int pool = ult::Worker::pool_size();
  int n = std::max(0, num_places() - pool);
  for (int i = 0; i < pool; ++i)
    if (ult::Worker* w = ult::Worker::at(i); w && w != self && w->available()) ++n;
  return n;
}

// The idle workers a region opened by `me` may take: less one for each
// ready task of the encountering team queued, which an idle worker takes
// in a moment (at the step where both strips of a moldable stencil ended
// together, the first region saw the other worker idle, explored width 2,
// and held the other strip's sweep back for its whole time: 1.8 ms of
// each 3.0 ms step, at each of width 2's trials).
// The tasks are counted first: a worker that takes one says it is busy
// before the task leaves its list (help_until), so a task gone from the
// count is not also counted as a free worker (a hint: the reads are
// relaxed, ordered on x86-64, where a late one costs a trial's width).
int idle_for_region(Thread* me) {
  std::size_t queued = std::min<std::size_t>(queued_ready(me->team), 1u << 16);
  return std::max(0, idle_workers() - int(queued));
}

// A team-mate that has just finished a task (the previous step of the
// chain this region continues: its completion made this task ready) is
// counted idle only once it is back in its wait, a few microseconds later.
// Decided in that window, a chain of moldable steps on 2 workers ran steps
// at width 1, twice as slow: the model chose width 1 for want of idle
// workers, or chose 2 and the gang, taking only available workers, got
// one. So when the width chosen, or a faster one the idle count ruled out
// (Decision::wider), needs more workers than are idle, the caller looks
// again for up to kMoldWaitNs. Workers busy with other work cost the
// region that long (4% of a 250 us step), so the model hears what each
// wait found and stops asking for them while they keep finding no room
// (MoldModel::waited).
// A wait that finds no room right after one that found it is a worker late
// from its last region (the operating system ran something else on its
// processor, or it was still leaving its member's fiber): the region then
// takes the wider width anyway, in steal mode (open_gang finds too few
// idle workers), whose members that worker takes when it comes back, as
// at a fixed width. Narrowed instead, one step in most 60-step chains of
// moldable triad ran at width 1: 2.1 ms against 0.5, 4% of the run.
constexpr uint64_t kMoldWaitNs = 10000;

// Tells the model what the wait found, when there was one.
void wait_for_room(Thread* me, sched::MoldModel::Decision& mold, int idle, const sched::MoldModel::Key& key) {
  int need = std::max(mold.width, mold.wider);
  uint64_t until = 0;
  while (idle + 1 < need) {
    if (until == 0) until = now_ns() + kMoldWaitNs;
    else if (now_ns() >= until) {
      if (!mold_model().waited(key, false)) return;
      break;
    }
    for (int i = 0; i < 8; ++i) cpu_relax();
    idle = idle_for_region(me);
  }
  if (until != 0 && idle + 1 >= need) mold_model().waited(key, true);
  if (mold.wider > 0) mold.width = mold.wider, mold.predicted_ns = mold.wider_ns, mold.exploring = mold.wider_exploring;
}

// The region's end: what it took, into the model.
void mold_record(Team* team) {
  uint64_t ns = now_ns() - team->mold_start_ns;
  uint64_t busy = team->mold_busy_ns.load(memory_order_relaxed);
  int parts = team->mold_busy_parts.load(memory_order_relaxed);
  if (parts > 0 && parts < team->nthreads) busy = busy * uint64_t(team->nthreads) / uint64_t(parts);
  mold_model().record({team->mold_fn, team->mold_where, team->mold_leader}, team->nthreads, ns, parts ? busy : 0);
  if (ult::trace::on()) {
    ult::trace::instant(g_k_mold, uint32_t(team->nthreads), uint32_t(team->mold_asked), uint32_t(ns / 1000),
                        uint32_t(team->mold_predicted_ns / 1000),
                        uint64_t(uint32_t(team->mold_leader)) | uint64_t(uint32_t(team->mold_where)) << 32,
                        team->mold_exploring);
  }
  team->mold_fn = nullptr;
}

}  // namespace

// A ready task whose function's tasks opened molded regions before: queued
// at the node the model picks as leader for their kind (ARMS places a task
// on its partition's leader before it starts; here the region's master is
// the task's thread, so the task goes to the leader's list and a worker
// there starts it). A worker elsewhere may still steal it; the region is
// then timed under that node, which is what it ran on.
int mold_leader_list(Task* t) {
  t->leader_node = Task::kNoLeader;  // queued anew (an untied task's next part), maybe elsewhere
  const void* routine = task_routine(t);
  const void* fn = routine ? mold_model().region_opened_by(routine) : nullptr;
  if (!fn) return -1;
  int data = data_list_of(t);
  // Only nodes where the team's threads look for tasks: queued elsewhere,
  // nobody of that node could take it.
  TeamTasks* tt = t->team->tasks.load(memory_order_acquire);  // made before any of its tasks is ready
  uint64_t nodes = tt ? tt->nodes_seen.load(memory_order_relaxed) : 0;
  auto c = mold_model().choose_leader(fn, data >= 0 ? uintptr_t(data) + 1 : 0, memory_node_lists(), nodes);
  int list = list_of_memory_node(c.leader);
  if (list < 0) return -1;
  t->leader_node = uint8_t(c.leader);  // below 64 (choose_leader)
  t->leader_since = now_ns();
  note_leader_tasks();
  if (ult::trace::on()) [[unlikely]]
    ult::trace::instant(g_k_mold_leader, uint32_t(list), uint32_t(c.leader), 0, 0, 0, c.exploring);
  return list;
}

// A team opened by a program thread outside the pool (outside_initial_tree)
// has its members queued on the pool's dedicated workers, which every such
// thread's teams share (one, on 2 cores: worker 0 is the initial thread).
// At the join that thread starts, one at a time, those no worker has
// started yet (their helper, ult::Fiber::helper), as libomp's thread
// would run its own team's threads, before it waits: 8 program threads
// each opening regions of 2 threads, on 2 cores, queued 8 members on one
// worker while their threads waited (4.0 s against libomp's 0.35). It stops
// at the first that waits for something before the end of its part: another
// one started on this thread could hold the kernel thread that one needs to
// go on (a spin on a flag it sets after a lock), and no progress monitor
// watches a program thread (it preempts and moves only on pool workers and
// spares). A member that waits for the rest of its team at the region's end
// needs nothing more than the others' arrival (unless it waits inside a
// task it runs there). Only this team's members: at the end of a nested
// region that one of them opened, a sibling of that member started here
// could spin for it while it waits on the queue behind.
void start_own_members(const Team* team) {
  ult::Worker* here = ult::Worker::current();
  if (!here || here->in_pool() || here->spare()) return;
  auto of_team = [](const ult::Fiber* f, const void* t) { return static_cast<const Thread*>(f->user())->team == t; };
  while (ult::Fiber* f = sched::take_helped(*here, of_team, team)) {
    here->submit(f);
    ult::Worker::yield();
    const Thread* m = static_cast<const Thread*>(f->user());
    if (!f->reusable() && !(m->ended_part && m->current_task->implicit)) return;
  }
}

// Fork step 4, after the master's part of the body: it waits for the
// members and the team's tasks (the region's closing barrier), takes its
// context back (step 5), and gives back the threads and the gang reservation
// the fork took.
//
// The master of an outermost team (kernel threads, bound to workers) leaves
// once every thread has ended its part and every task has completed, without
// waiting for the members to leave too: their writes are released by their
// end_part and their tasks by the task counts, and the next fork of this
// hot team waits for them (enter_team). With more such threads than
// processors, each member's leaving took one more turn on a processor
// before the master could go on (EPCC parallel, 4 threads on 2 cores: 16.5
// us per region, 9-11.5 without the wait; libomp 5.5-8).
// Nested teams keep the full wait: their members are fibers the master's
// worker may have to run (steal mode), and gang members host their gang
// until they finish (gang.cpp).
void close_region(Thread* me, Team* team) {
  bool tool = ompt::on();
  bool league = tool && (team->ompt.flags & ompt_parallel_league);
  // A team of one has no closing barrier for a tool (libomp serializes it);
  // nor has a league, whose teams' initial tasks said their ends.
  bool tool_barrier = tool && team->nthreads > 1 && !league;
  if (tool_barrier) [[unlikely]] ompt::sync_enter(ompt::kImplicitBarrier, me, team->ompt.ra);
  if (team->nthreads > 1) {
    end_part(team);
    start_own_members(team);
  }
  // With a tool attached the master waits for every member to leave: their
  // last callbacks (barrier end, implicit task end) come before the region's end.
  bool early = team->outermost && !team->gang_key && !tool;
  // acquire: pairs with the members' acq_rel decrements (and end_part's).
  help_until(
      me,
      [&] {
        return (early ? team->end_pending.load(memory_order_acquire) == 0
                      : team->join_pending.load(memory_order_acquire) == 0) &&
               team_quiescent(team);
      },
      "its team's threads at the end of the region (join)");
  if (me->current_task->domain) deps_clear_domain(me->current_task);
  if (team->mold_fn) mold_record(team);
  if (tool) [[unlikely]] {
    if (tool_barrier) ompt::join_barrier_leave(me, team->ompt.ra);
    if (!league) ompt::implicit_task_end(me, team, 0);
  }
  if (team->probe) forget_rescues_if_probe_passed(team);
  if (team->outside_counted) {
    team->outside_counted = false;
    ult::Worker::outside_team_closed();
  }
  restore_context(me, team);
  if (tool) [[unlikely]] ompt::parallel_end(me, team);
  release_threads(team, team->threads_reserved);
  if (team->gang_key) sched::gang_master_leave(team->gang_key);
  if (team->open_state_free) {
    team->open_state_free(team->open_state);
    team->open_state = nullptr;
    team->open_state_free = nullptr;
  }
}

// A gang-scheduled nested region (scheduler/gang.cpp has the protocol),
// opened: returns the team, whose thread 0 the caller now is. Nothing
// between the reservation and the queueing of the members may yield: the
// reservation lock is a kernel mutex. Returns null, having done nothing,
// when the team cannot be a gang of the size the spec requires (dyn-var
// false and fewer workers than threads): the caller forks it in steal mode
// instead.
Team* open_gang(Thread* me, const ForkRequest& req, int n, bool molded) {
  if (ult::Worker::pool_size() < num_places()) ult::Worker::ensure_pool(num_places(), &pin_worker);
  // Fewer threads than asked only where the spec allows it: dyn-var true;
  // and not when the model chose n: without the workers for it now, the
  // region runs in steal mode, whose members a worker takes once it is
  // free (a chain of moldable triad steps: 15% slower narrowed to 1 when
  // the other worker was a few microseconds from free).
  bool narrow = me->icv.dynamic && !molded;
  if (!narrow && n > ult::Worker::pool_size()) return nullptr;
  n = reserve_threads(me->team, n);
  if (narrow) n = std::min(n, ult::Worker::pool_size());
  Icvs icv = child_icvs(me->icv);
  // Descriptors first (this may yield), for as many members as could be granted.
  Team* team = hot_team(me);  // the one enter_team takes below: same context depth
  team->outermost = false;
  team->resize(n);
  for (int i = 1; i < n; ++i) team->members[std::size_t(i)] = member_descriptor(team, i);
  ult::Worker* here = ult::Worker::current();
  int creator = here && here->in_pool() ? here->id() : 0;
  Binding none{-1, me->binding.part_start, me->binding.part_len};
  int got = n;
  bool fits = true;
  uint64_t enclosing = 0;  // the innermost gang this thread is in (the new gang is inside it)
  for (const Team* t = me->team; t && !enclosing; t = t->parent) enclosing = t->gang_key;
  bool pool_only = outside_initial_tree(me);
  // A region opened by an explicit task (a tile library's panel) takes only
  // idle workers besides its creator's (in their idle loop, or running a
  // thread that waits for a task it has not found, which yields to the
  // member at once: ult::Worker::available): a busy one runs its team's other
  // tasks, and the member reserved there waited for the task it ran to end
  // (each of them, since the spin barrier's sched_yield handed the worker
  // back), while the member here spun: mpilu 2048 (1 rank x 2) 0.18 s,
  // tilelu medium 0.12-0.19, libomp 0.14 / 0.06-0.11. Without enough idle
  // workers the region runs in steal mode (or narrower, with dyn-var true):
  // its members queue here, where they take turns at their barrier's
  // sched_yield, and a worker that becomes idle takes those not started
  // (0.13 / 0.06-0.09 s); a member that spins without yielding is the
  // progress monitor's, whose memory then gives that region kernel threads.
  bool idle_only = !me->current_task->implicit;
  sched::GangReservation res = sched::reserve_gang(creator, n, enclosing, pool_only, idle_only,
                                                   [&](sched::GangReservation& r) {
    int width = int(r.workers.size());
    if (!narrow && width < n) {
      fits = false;
      sched::cancel_reservation(r);
      return;
    }
    got = width;
    std::vector<Thread*> members(team->members.begin(), team->members.begin() + got);
    enter_team(me, got, req.body, 0, requested_size(me, req), ToolRegion::Parallel,
               molded);  // the hot team above: same context depth
    team->gang_key = r.key;
    team->proc_bind = 0;  // gangs are formed only without a binding policy
    for (int i = 1; i < got; ++i) {
      Thread* m = members[std::size_t(i)];
      team->members[std::size_t(i)] = m;
      start_thread_in(m, team, i, icv, none);
      m->fiber.prepare(&member_main, m, /*movable=*/true);  // stealable only where eligible (G5)
      m->fiber.set_order_key(r.key);
      m->fiber.set_pool_only(pool_only);
      ult::Worker::at(r.workers[std::size_t(i)])->submit(&m->fiber);
    }
  });
  if (!fits) {
    release_threads(me->team, n);
    return nullptr;
  }
  if (got < n) {
    report_smaller_gang(n, got);
    release_threads(me->team, n - got + 1);
  }
  team->threads_reserved = got;
  sched::run_earlier_gangs(res.key);  // G4: the fork is a scheduling point
  sched::gang_master_enter(res.key);  // left in close_region (team->gang_key)
  start_thread_in(me, team, 0, icv, none);
  return team;
}

void pin_initial_thread(const Thread* me) {
  if (me != g_initial || g_initial_pinned) return;
  g_initial_pinned = true;
  if (g_pin_initial) take_place(initial_binding().place);
}

// Fork steps 1-3: returns the new team, whose thread 0 the caller now is.
Team* open_region(Thread* me, const ForkRequest& req) {
  pin_initial_thread(me);
  // With bind-var false, binding is disabled and proc_bind clauses have no
  // effect (spec 12.1.3).
  int bind = me->icv.bind == 0 ? 0 : req.proc_bind >= 0 ? req.proc_bind : me->pushed_bind >= 0 ? me->pushed_bind : me->icv.bind;
  int n = choose_team_size(me, req);
  // A program thread other than the initial one is bound to a place at its
  // first region with binding on, as the initial thread is at start-up
  // (libomp's rule; LLVM's root-threads-affinity): it keeps that place.
  if (bind != 0 && me->binding.place < 0 && me->team->level == 0 && me != g_initial)
    me->binding = bind_root_thread(me->gtid);
  // A region opened inside another active region (or by a team of a
  // league) is nested: gang-scheduled unless steal mode is chosen.
  bool nested = me->team->active_level >= 1 || me->team->league_size > 1;
  sched::MoldModel::Decision mold;
  uintptr_t mold_where = 0;
  int mold_leader = 0;
  int asked = n;
  bool molded = nested && n > 1 && !req.league && molding(me);
  if (molded) {
    // Where its data lives: the task list an affinity clause of the
    // encountering task named, else the one under the node holding the
    // data its depend clauses declare (1 + its index), else unknown (0).
    int list = me->current_task ? data_list_of(me->current_task) : -1;
    mold_where = list >= 0 ? uintptr_t(list) + 1 : 0;
    mold_leader = modelled_memory_node_here();
    // Tasks of this one's function open regions of this kind: the next
    // ones are queued at the leader the model picks (mold_leader_list).
    if (Task* cur = me->current_task; cur && !cur->implicit && memory_node_lists() > 1) {
      if (const void* routine = task_routine(cur)) {
        mold_model().opened_by(routine, req.body.fn);
        note_mold_openers();
      }
    }
    int idle = idle_for_region(me);
    sched::MoldModel::Key key{req.body.fn, mold_where, mold_leader};
    mold = mold_model().choose(key, n, idle);
    wait_for_room(me, mold, idle, key);
    n = mold.width;
  }
  auto mark = [&](Team* t) {
    t->mold_fn = molded ? req.body.fn : nullptr;
    if (!molded) return t;
    t->mold_asked = asked;
    t->mold_where = mold_where;
    t->mold_leader = mold_leader;
    t->mold_predicted_ns = uint64_t(mold.predicted_ns);
    t->mold_exploring = mold.exploring;
    t->mold_start_ns = now_ns();
    return t;
  };
  if (n > 1) start_progress_monitor();
  // Not a gang when the pool already has more workers than processors (an
  // outermost team wider than the machine): every worker then carries an
  // outer thread in user code, and a gang's members, reserved on the others'
  // workers, would wait for those threads' next scheduling point, and their
  // masters for them (G4): 37 ms per inner region of nested 3 x 3 on 2 cores.
  // Queued on the creator's worker instead, the members run there as fibers
  // while their team meets in the runtime, and the monitor rescues them when
  // one holds the worker (ult/monitor.cpp).
  // Nor under an outermost team run as fibers wider than the machine (every
  // worker carries outer threads): nested 8 x 2 on 2 cores, 11 ms as gangs,
  // 1.9 ms with the members queued on their creator's worker.
  ult::Worker* creator_worker = ult::Worker::current();
  // Thread-local data of the program's own: a kernel thread per member, so
  // no gang (its members run on other workers' kernel threads).
  // Likewise a team opened by a program thread other than the initial one
  // (outside_initial_tree): its members would otherwise share the kernel
  // threads of the pool's workers (and, started at the join, their
  // creator's: start_own_members).
  bool own_tls = !req.league && (nested || outside_initial_tree(me)) && n > 1 && nested_members_need_threads();
  bool gang = !own_tls && !req.league && nested && n > 1 && mode_for_next_region(me) == 1 && bind == 0 &&
              ult::Worker::pool_size() <= g_gang_procs && creator_worker && creator_worker->in_pool() &&
              !under_wide_fibers(me);
  if (gang) {
    if (Team* team = open_gang(me, req, n, molded)) {
      display_affinity_if_enabled();
      return mark(team);
    }
  }
  n = outermost_limit(me, n, req.league);  // before the reservation, which close_region gives back
  if (!req.league) n = reserve_threads(me->team, n);
  Icvs icv = child_icvs(me->icv);
  std::vector<Binding>& bindings = me->bindings_scratch;
  assign_places(me->binding, n > 1 ? bind : 0, n, bindings);
  if (n == 1 || bind == 0) bindings.assign(std::size_t(n), Binding{-1, me->binding.part_start, me->binding.part_len});
  Team* team = enter_team(me, n, req.body, req.league ? 0 : n, requested_size(me, req),
                          req.league ? ToolRegion::League : ToolRegion::Parallel, molded);
  team->proc_bind = n > 1 ? bind : 0;
  team->league = req.league;

  // Checked first: ensure_pool takes a mutex and rewrites a flag that every
  // spinning worker polls.
  if (team->outermost && ult::Worker::pool_size() < n) ult::Worker::ensure_pool(n, &pin_worker);
  // An unbound outermost team whose members may open active nested regions
  // is spread over the pool's workers once the pool is wider than the team
  // (the first gang grows it to a worker per place): member i on worker
  // i x pool / n, the workers in tree order, so that each member's nested
  // team, a gang that takes the free workers nearest its creator, has a
  // subtree of its own, as BubbleSched spreads separate bubbles. Packed by
  // id, two outer threads on two packages of 4 took workers 0 and 1, and
  // the second one's inner team of 4 went to the other package, its master
  // apart. The pool is not grown for it: on modelled machines, 16 workers
  // for a team of 4 made task-only programs 4-6 times slower on 2 cores.
  int outer_pool = ult::Worker::pool_size();
  bool spread_outer = team->outermost && !req.league && bind == 0 && n > 1 && n < outer_pool &&
                      team->active_level < me->icv.max_active_levels;
  if (team->outermost) {
    unpin_oversubscribed_pool(outer_pool);
    keep_initial_thread_apart(outer_pool);
  }
  // An outermost team run as fibers: on every worker of the machine. Its
  // members are queued on the creator's worker, as a nested team's, and the
  // other workers steal them. Queued round-robin on the workers instead, the
  // next fork often waited about 230 us (EPCC parallel at 4 threads on 2
  // cores: 1.3-1.5 us per region against 3.8 or 230; not understood yet).
  // And the program's thread (worker 0, not pinned) kept off the others'
  // processors, as for an outermost team that fits: sharing one with a
  // pinned worker, it held that worker off for whole time slices while the
  // other processor idled (a first region of 8 fibers with tasks on 2
  // cores ran every task on worker 0, and the next fork began 1.8 ms late).
  if (team->wide_fibers) {
    if (ult::Worker::pool_size() < num_places()) ult::Worker::ensure_pool(num_places(), &pin_worker);
    keep_initial_thread_apart(ult::Worker::pool_size());
  }
  // Another tree's members need a dedicated worker (outside_initial_tree).
  bool pool_only = n > 1 && outside_initial_tree(me);
  if (pool_only && ult::Worker::pool_size() < 2) ult::Worker::ensure_pool(2, &pin_worker);
  ult::Worker* here = ult::Worker::current();
  // Its master's kernel thread runs beside the workers until the join:
  // counted, so that waits yield the processor while threads outnumber the
  // processors (8 program threads opening regions of 2 on 2 cores: their
  // masters' spins at the join took 10% of the time).
  team->outside_counted = n > 1 && here && !here->in_pool() && !here->spare();
  // And the pool is unpinned once they and the workers outnumber the places,
  // as when the pool alone does: a pinned worker in the run queue of a
  // processor where a program thread spins cannot be moved to the other.
  if (team->outside_counted) {
    ult::Worker::outside_team_opened();
    unpin_oversubscribed_pool(ult::Worker::pool_size(), ult::Worker::outside_teams());
  }
  // A region that needed the monitor's rescue before, or one of a program
  // with thread-local data (own_tls): a kernel thread per member.
  team->probe = false;
  bool own_threads = n > 1 && !team->outermost && (own_tls || wants_own_threads(req.body, team));
  bool queued_movable = false;
  for (int i = 1; i < n; ++i) {
    // On a worker, the loop tells the monitor every 64 members that it is
    // still in the runtime. A league of 4500 teams took milliseconds to
    // queue, and the monitor took the worker for one held by a fiber that
    // waits outside the runtime: it moved the queued teams to spares, a
    // kernel thread each (teams_huge: 1500 of them, 2 s for the league).
    if (here && (i & 63) == 0) here->runtime_progress();
    Thread* m = member_descriptor(team, i);
    keep_or_set(team->members[std::size_t(i)], m);
    const Binding& b = bindings[std::size_t(i)];
    start_thread_in(m, team, i, icv, b);
    // Nested members bound to a place run on a worker pinned there
    // (worker_on_place); others move. A bound one is movable too, but only
    // to a spare kernel thread (which takes its place as it starts it):
    // idle workers do not steal a fiber with a place
    // (scheduler/worker_loop.cpp), the monitor moves it when preempting the
    // member that holds its worker fails (one that spins in a library's
    // code, ult/monitor.cpp), and a region the monitor rescued before gives
    // it a spare at once (own_threads).
    ult::Worker* place_worker = !team->outermost && b.place >= 0 ? worker_on_place(b.place, here) : nullptr;
    if (pool_only && place_worker && !place_worker->dedicated()) place_worker = nullptr;
    m->fiber.prepare(&member_main, m, /*movable=*/!team->outermost);
    m->fiber.set_pool_only(pool_only);
    if (place_worker) m->fiber.set_place(b.place);
    if (team->outermost) {
      // One worker per member, unless the pool could not grow (ensure_pool).
      ult::Worker::at(spread_outer ? int(int64_t(i) * outer_pool / n) : i % outer_pool)->submit(&m->fiber);
    } else if (ult::Worker* spare = own_threads ? ult::Worker::take_spare() : nullptr) {
      spare->submit(&m->fiber);
    } else if (place_worker) {
      place_worker->submit(&m->fiber);
    } else {
      if (pool_only && !own_tls && here && !here->in_pool() && !here->spare()) m->fiber.set_helper(here);
      sched::spread(&m->fiber, here);
      queued_movable = true;
    }
  }
  if (queued_movable) ult::monitor_kick();

  start_thread_in(me, team, 0, icv, n > 1 && bind != 0 ? bindings[0] : me->binding);
  display_affinity_if_enabled();
  return mark(team);
}

void fork(const ForkRequest& req) {
  Thread* me = current_thread_fast();
  Team* team = open_region(me, req);
  if (ompt::on() && !req.league) [[unlikely]] ompt::implicit_task_begin(me, team, 0);
  invoke(req.body, me);
  close_region(me, team);
}

void fork_open(const ForkRequest& req) {
  Thread* me = current_thread_fast();
  Team* team = open_region(me, req);
  if (ompt::on()) [[unlikely]] ompt::implicit_task_begin(me, team, 0);
}

void fork_close() {
  Thread* me = current_thread_fast();
  Team* team = me->team;
  if (team->level == 0 || me->tid != 0 || team->members[0] != me) {
    fatal("the end of a parallel region on a thread that is not the primary thread of an open region");
  }
  close_region(me, team);
}

// ---- nested mode ---------------------------------------------------------------


void set_nested_mode(int mode, bool next_only) {
  if (mode < 0 || mode > 2) return;
  if (next_only) current_thread_fast()->next_nested_mode = mode;
  else g_nested_override.store(mode, memory_order_relaxed);
}

int nested_mode() {
  int m = g_nested_override.load(memory_order_relaxed);
  return m ? m : settings().nested_mode;
}

void print_scheduler_state() {
  auto stacks = sched::gang_stacks();
  int n = ult::Worker::pool_size();
  for (int i = 0; i < n; ++i) {
    ult::Worker* w = ult::Worker::at(i);
    std::string line = "bobbin: worker " + std::to_string(i) + ": " + std::to_string(w ? w->ready_count() : 0) +
                       " queued, gang stack [" + stacks[std::size_t(i)] + "]\n";
    fputs(line.c_str(), stderr);
  }
}

void push_num_threads(int n) { current_thread_fast()->pushed_nthreads = n; }
void push_proc_bind(int bind) { current_thread_fast()->pushed_bind = bind; }

void begin_serialized() {
  Thread* me = current_thread_fast();
  pin_initial_thread(me);
  Icvs icv = child_icvs(me->icv);
  // The program runs the body itself: to a tool, its invoker (a DataPointer body).
  RegionBody body{};
  body.kind = RegionBody::Kind::DataPointer;
  Team* team = enter_team(me, 1, body, 0, 1);
  team->proc_bind = 0;
  start_thread_in(me, team, 0, icv, me->binding);
  if (ompt::on()) [[unlikely]] ompt::implicit_task_begin(me, team, 0);
  display_affinity_if_enabled();
}

void end_serialized() {
  Thread* me = current_thread_fast();
  Team* team = me->team;
  if (team->level == 0) fatal("the end of a serialized parallel region without its beginning");
  help_until(me, [&] { return team_quiescent(team); });
  if (me->current_task->domain) deps_clear_domain(me->current_task);
  bool tool = ompt::on();
  if (tool) [[unlikely]] ompt::implicit_task_end(me, team, 0);
  restore_context(me, team);
  if (tool) [[unlikely]] ompt::parallel_end(me, team);
}

// ---- queries ------------------------------------------------------------------

int global_thread_id() { return current_thread_fast()->gtid; }
int thread_num() { return current_thread_fast()->tid; }
int num_threads() { return current_thread_fast()->team->nthreads; }
int max_threads() {
  int n = current_thread_fast()->icv.nthreads;
  int lim = settings().thread_limit;
  return lim > 0 && n > lim ? lim : n;
}
int level() { return current_thread_fast()->team->level; }
int active_level() { return current_thread_fast()->team->active_level; }
bool in_parallel() { return current_thread_fast()->team->active_level > 0; }
int num_procs() {
  ensure_initialized();
  return g_num_procs;
}
int thread_limit() {
  int own = current_thread_fast()->icv.thread_limit;
  if (own > 0) return own;
  int lim = settings().thread_limit;
  return lim > 0 ? lim : INT_MAX;
}

static const Team* team_at_level(const Thread* t, int lvl, int* tid) {
  const Team* team = t->team;
  int my = t->tid;
  if (lvl < 0 || lvl > team->level) return nullptr;
  while (team->level > lvl) {
    my = team->parent_tid;
    team = team->parent;
  }
  *tid = my;
  return team;
}

int ancestor_thread_num(int lvl) {
  int tid;
  return team_at_level(current_thread_fast(), lvl, &tid) ? tid : -1;
}

int team_size(int lvl) {
  int tid;
  const Team* team = team_at_level(current_thread_fast(), lvl, &tid);
  return team ? team->nthreads : -1;
}

void set_num_threads(int n) {
  if (n > 0) writable_icvs(current_thread_fast()).nthreads = n;
}
void set_dynamic(bool on) { writable_icvs(current_thread_fast()).dynamic = on; }
bool get_dynamic() { return current_thread_fast()->icv.dynamic; }
void set_max_active_levels(int n) {
  if (n >= 0) writable_icvs(current_thread_fast()).max_active_levels = n;
}
int get_max_active_levels() { return current_thread_fast()->icv.max_active_levels; }
int supported_active_levels() { return INT_MAX; }
void set_schedule(Schedule s) { writable_icvs(current_thread_fast()).sched = s; }
Schedule get_schedule() { return current_thread_fast()->icv.sched; }

double wtime() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
double wtick() { return 1e-9; }

// ---- host teams ----------------------------------------------------------------
// A teams construct forks a league: one initial thread per team, each of
// which presents itself as thread 0 of a team of one at level 0 (so
// omp_get_level() is 0 and omp_in_parallel() false inside), with the team's
// thread limit as its nthreads-var.

namespace {
Atomic<int> g_nteams_var{0};          // omp_set_num_teams
Atomic<int> g_teams_limit_var{0};     // omp_set_teams_thread_limit

struct League {
  RegionBody body;
  int size;
  int limit;
};

// Runs `body` on the calling thread as the initial thread of a new
// contention group: thread 0 of a team of one at level 0 (team `number` of
// a league of `size`), with `icv`, its tasks finished before it returns.
void run_as_initial_thread(Thread* th, const RegionBody& body, const Icvs& icv, int number, int size) {
  Team* own = enter_team(th, 1, body, 0, 0, ToolRegion::None);
  ContentionGroup group;  // outlives every region forked in it: they end before `body` returns
  group.limit = icv.thread_limit;
  own->cg = &group;
  own->level = 0;
  own->active_level = 0;
  own->league_num = number;
  own->league_size = size;
  start_thread_in(th, own, 0, icv, th->binding);
  bool tool = ompt::on();
  if (tool) [[unlikely]] {
    ompt::league_initial_task(th, own, ompt_scope_begin);
    ompt::league_team_region(th, own, ompt_scope_begin);
  }
  invoke(body, th);
  help_until(th, [&] { return team_quiescent(own); });
  if (th->current_task->domain) deps_clear_domain(th->current_task);
  if (tool) [[unlikely]] {
    ompt::league_team_region(th, own, ompt_scope_end);
    ompt::league_initial_task(th, own, ompt_scope_end);
  }
  restore_context(th, own);
}

void league_member(void* p) {
  auto* lg = static_cast<League*>(p);
  Thread* th = current_thread_fast();
  Icvs icv = th->icv;
  icv.nthreads = lg->limit;
  icv.thread_limit = lg->limit;
  run_as_initial_thread(th, lg->body, icv, th->tid, lg->size);
}

const Team* league_team(const Thread* t) {
  const Team* team = t->team;
  while (team->level > 0 && team->parent) team = team->parent;
  return team;
}
}  // namespace

void fork_teams(const TeamsRequest& req) {
  Thread* me = current_thread_fast();
  const Settings& st = settings();
  int n = req.num_teams_upper > 0   ? req.num_teams_upper
          : me->pushed_teams_upper > 0 ? me->pushed_teams_upper
          : g_nteams_var.load(memory_order_relaxed) > 0 ? g_nteams_var.load(memory_order_relaxed)
          : st.num_teams > 0 ? st.num_teams
                             : 1;  // as libomp: one team unless asked
  int limit = req.thread_limit > 0        ? req.thread_limit
              : me->pushed_teams_limit > 0 ? me->pushed_teams_limit
              : g_teams_limit_var.load(memory_order_relaxed) > 0 ? g_teams_limit_var.load(memory_order_relaxed)
              : st.teams_thread_limit > 0 ? st.teams_thread_limit
                                          : std::max(1, g_num_procs / n);
  me->pushed_teams_lower = me->pushed_teams_upper = me->pushed_teams_limit = 0;
  League lg{req.body, n, limit};
  ForkRequest f;
  f.body = RegionBody{RegionBody::Kind::DataPointer, reinterpret_cast<void*>(&league_member), 0, nullptr, &lg};
  f.num_threads = n;
  f.league = true;
  f.proc_bind = st.teams_proc_bind;  // KMP_TEAMS_PROC_BIND; bind-var false still binds nothing
  fork(f);
}

void push_num_teams(int lower, int upper, int limit) {
  Thread* me = current_thread_fast();
  me->pushed_teams_lower = lower;
  me->pushed_teams_upper = upper;
  me->pushed_teams_limit = limit;
}
int team_num() { return league_team(current_thread_fast())->league_num; }
int num_teams() { return league_team(current_thread_fast())->league_size; }
void set_num_teams(int n) {
  if (n > 0) g_nteams_var.store(n, memory_order_relaxed);
}
int get_max_teams() {
  int v = g_nteams_var.load(memory_order_relaxed);
  if (v > 0) return v;
  return std::max(settings().num_teams, 0);  // 0: nteams-var's initial value (spec 5.2 table 2.1)
}
void set_teams_thread_limit(int n) {
  if (n > 0) g_teams_limit_var.store(n, memory_order_relaxed);
}
int get_teams_thread_limit() {
  int v = g_teams_limit_var.load(memory_order_relaxed);
  if (v > 0) return v;
  return settings().teams_thread_limit;
}

// ---- target regions on the host -----------------------------------------------------
// With no offload device a target region runs on the encountering thread
// as the initial thread of a new contention group (what libgomp's host
// fallback does): thread 0 of a team of one at level 0, with the ICVs the
// program started with, its own tasks finished before it returns. A teams
// construct in it runs its teams one after another on this thread (the
// compiler's loop asks for each), numbered in the region's own level-0 team.

void run_target_region(void (*fn)(void*), void* data, int thread_limit) {
  RegionBody body{RegionBody::Kind::DataPointer, reinterpret_cast<void*>(fn), 0, nullptr, data};
  Icvs icv = g_start_icvs;
  if (thread_limit > 0) icv.thread_limit = thread_limit;
  run_as_initial_thread(current_thread_fast(), body, icv, 0, 1);
}

bool target_teams_next(int lower, int thread_limit, bool first) {
  Thread* th = current_thread_fast();
  auto* team = const_cast<Team*>(league_team(th));
  if (first) {
    if (thread_limit > 0) {
      th->icv.thread_limit = thread_limit;
      if (team->cg) team->cg->limit = thread_limit;
    }
    team->league_size = lower > 0 ? lower : 1;
    team->league_num = 0;
    return true;
  }
  if (team->league_num + 1 < team->league_size) {
    ++team->league_num;
    return true;
  }
  team->league_num = 0;  // after the construct: one team again
  team->league_size = 1;
  return false;
}

// ---- pause ------------------------------------------------------------------------
// omp_pause_resource: release the workers and their stacks; the next call
// into the runtime from the initial thread starts them again.

namespace {
Atomic<bool> g_paused{false};
}  // namespace

int pause_resources(int kind) {
  if (kind != 1 && kind != 2) return -1;  // omp_pause_soft, omp_pause_hard
  ult::Fiber* f = ult::Worker::current_fiber();
  if (!f || f->user() != g_initial || g_initial->team != &g_initial_team) return -1;
  // Members of the last outermost team may still be leaving it, one of them
  // parked until a team-mate's end_part wakes it: stopped now, its worker
  // would exit without it, and the next fork would wait for it forever
  // (pause_resource at 4 threads with a kernel thread each: hung within 10
  // runs beside two other runs, with only the monitor and worker 0 left).
  wait_initial_teams_left(g_initial);
  ult::Worker::shutdown_pool();
  g_paused.store(true, memory_order_release);
  return 0;
}

static bool resume_after_pause() {
  if (!g_paused.load(memory_order_acquire)) return false;
  ult::Worker::ensure_pool(1, &pin_worker);
  ult::Worker::current_fiber()->set_user(g_initial);
  g_paused.store(false, memory_order_relaxed);
  return true;
}

void unsupported(const char* what) { fatal("%s is not supported yet", what); }
const char* version_string() { return "Bobbin " BOBBIN_VERSION; }

}  // namespace bobbin::rt
