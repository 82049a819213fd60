// OMPT, the OpenMP tools interface (OpenMP 5.2 chapter 19): tool discovery,
// the entry points a tool looks up, and the callbacks the runtime makes.
//
// With no tool attached every hook in the runtime is one relaxed load of
// `g_state` and a branch that is not taken; the work is out of line in ompt.cpp.
//
// What a tool calls a thread is an OpenMP thread: a Thread descriptor, so a
// fiber's data stays its own when its worker switches to another fiber. The
// initial thread is ompt_thread_initial; every member descriptor is a worker
// thread, begun when it first runs and ended when the tool is finalized.
#pragma once

#include <omp-tools.h>

#include <cstddef>

#include "ult/atomic.hpp"

namespace bobbin::rt {
struct Thread;
struct Team;
struct Task;
}  // namespace bobbin::rt

namespace bobbin::rt::ompt {

// The tool's state kept per OpenMP thread (Thread::ompt).
struct ThreadState {
  ompt_data_t data{};           // the tool's thread data
  const void* ra = nullptr;     // return address of the entry point the program called, until it returns
  ompt_state_t state = ompt_state_work_serial;
  ompt_wait_id_t wait_id = 0;
  bool begun = false;           // thread_begin delivered
  bool reducing = false;        // a reduction's end callback is owed at reduce_end
  bool reduce_barrier = false;  // and its barrier's end
  bool yielding = false;        // in taskyield: the next task switch is a yield
  int doacross_dims = 0;        // dimensions of the doacross loop this thread is in
  int workshare = 0;            // the ompt_work_t gcc's loop or sections this thread is in (0: none)
};

// Per task (Task::ompt): the tool's task data and the frames of the task's
// transitions between the program and the runtime.
struct TaskState {
  ompt_data_t data{};
  ompt_frame_t frame{};
  int type = 0;                 // ompt_task_flag_t bits, as reported at creation
  Task* sched_parent = nullptr; // while it runs: the task its thread ran before it (the ancestor a tool sees)
};

// Per team (Team::ompt).
struct TeamState {
  ompt_data_t data{};           // the tool's parallel data
  const void* ra = nullptr;     // the parallel construct's return address
  int flags = 0;                // ompt_parallel_flag_t bits
  // A team of a league: the region of one its body runs in for a tool
  // (league_team_region), and its initial task's data while that runs.
  ompt_data_t inner{};
  ompt_data_t initial_task{};
};

// 0 before the runtime's initialization, 1 without a tool, 2 with one
// attached and initialized.
extern Atomic<uint8_t> g_state;

inline bool on() { return g_state.load(memory_order_relaxed) == 2; }

// Start-up: discovery (the program's or a preloaded library's
// ompt_start_tool, then OMP_TOOL_LIBRARIES), the tool's initializer, and
// the initial thread's and initial task's begin. Called once, at the end of
// the runtime's initialization, on the initial thread.
void start(Thread* initial);

// An entry point the program called: on the current task, the frame the
// program left by (enter_frame) and the return address into the program,
// each kept only by the outermost entry and cleared when it returns.
struct Entry {
  Task* task = nullptr;
  bool set_ra = false;
  // Before the initialization too: the program's first call may start the tool.
  __attribute__((always_inline)) Entry(void* fp, const void* ra) {
    if (g_state.load(memory_order_relaxed) != 1) [[unlikely]] enter(fp, ra);
  }
  __attribute__((always_inline)) ~Entry() {
    if (task || set_ra) [[unlikely]] leave();
  }
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;
  void enter(void* fp, const void* ra);
  void leave();
};
#define BOBBIN_OMPT_ENTRY \
  ::bobbin::rt::ompt::Entry bobbin_ompt_entry_(__builtin_frame_address(0), __builtin_return_address(0))

// The program's code runs for the current task: `set_exit_frame`, from the
// function that calls it (the frame the program's code returns to);
// `user_code_begin` hides the return address of the entry point the thread
// is in (callbacks from the program's code report their own) and returns it
// for `user_code_end`, which also clears the task's exit frame.
void set_exit_frame(void* fp);
void clear_enter_frame();  // of the current task
const void* user_code_begin(Thread* th);
void user_code_end(Thread* th, Task* t, const void* saved_ra);

// A wait the spec calls a synchronization region (barrier, taskwait,
// taskgroup): its sync_region and sync_region_wait callbacks, and the
// thread's state.
void sync_enter(ompt_sync_region_t kind, Thread* th, const void* ra);
void sync_leave(ompt_sync_region_t kind, Thread* th, const void* ra);
// The end of a parallel region's closing barrier: the region has ended, so
// its callbacks name no parallel region (as libomp's do).
void join_barrier_leave(Thread* th, const void* ra);
// The kind libomp 14 reports for an implicit barrier (5.0's
// ompt_sync_region_barrier_implicit; 5.1 split it into _parallel and _workshare).
constexpr ompt_sync_region_t kImplicitBarrier = ompt_sync_region_barrier_implicit;

// The return address of the entry point the current thread is in (null
// outside one).
const void* return_address();

// Callbacks, each delivered only if the tool registered it.
void thread_begin(Thread* th, ompt_thread_t type);
// A program thread other than the initial one becomes an OpenMP initial
// thread (its first OpenMP call): thread begin and its initial task.
void initial_thread_begin(Thread* th);
void parallel_begin(Thread* master, Team* team, int requested, bool runtime_invoker, bool league);
void parallel_end(Thread* master, Team* team);
void implicit_task_begin(Thread* th, Team* team, int tid);
void implicit_task_end(Thread* th, Team* team, int tid);
// The initial task of a team of a league (the teams construct): `own` is
// the team of one the thread runs the teams region in; its parent, the league.
void league_initial_task(Thread* th, Team* own, ompt_scope_endpoint_t ep);
// Inside a team's initial task, around its body: a parallel region of one
// forked by the runtime, and its implicit task, as libomp reports them (it
// runs a team's body that way; tools written against it expect the shape).
void league_team_region(Thread* th, Team* own, ompt_scope_endpoint_t ep);
void task_create(Thread* th, Task* t, int type, bool has_deps);
void task_schedule(Task* prior, ompt_task_status_t status, Task* next);
void dependences(Task* t, const void* items, int n);  // runtime DepItem list
void task_dependence(Task* pred, Task* succ);
// taskwait with depend clauses: to a tool, an undeferred taskwait task with
// those dependences, created, and complete once they are met.
void taskwait_deps_begin(Thread* th, TaskState& tw, const void* items, int n);
void taskwait_deps_end(Thread* th, TaskState& tw);
// ordered depend(source) / depend(sink: vec) of a doacross loop of `dims`
// dimensions (set at its start): dependences of the implicit task, one per
// dimension, the iteration as the variable.
void doacross_start(int dims);
void doacross_dependence(bool source, const int64_t* vec);
void sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, Thread* th, const void* ra);
void sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, Thread* th, const void* ra);
void work(ompt_work_t kind, ompt_scope_endpoint_t ep, Thread* th, uint64_t count, const void* ra);
void dispatch(Thread* th, ompt_dispatch_t kind, ompt_data_t instance);
void masked(ompt_scope_endpoint_t ep, Thread* th, const void* ra);
void reduction(ompt_scope_endpoint_t ep, Thread* th, const void* ra);
void mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, const void* wait_id, const void* ra);
void mutex_acquired(ompt_mutex_t kind, const void* wait_id, const void* ra);
void mutex_released(ompt_mutex_t kind, const void* wait_id, const void* ra);
void nest_lock(ompt_scope_endpoint_t ep, const void* wait_id, const void* ra);
void lock_init(ompt_mutex_t kind, unsigned hint, unsigned impl, const void* wait_id, const void* ra);
void lock_destroy(ompt_mutex_t kind, const void* wait_id, const void* ra);
void cancel(Thread* th, int flags, const void* ra);
void flush(Thread* th, const void* ra);
int control_tool(uint64_t command, uint64_t modifier, void* arg, const void* ra);
void error(bool fatal, const char* message, std::size_t length, const void* ra);  // the error directive
void set_state(Thread* th, ompt_state_t s, ompt_wait_id_t wait_id = 0);

// The lock routines, critical and barrier with their callbacks, for the
// entry points to call instead of the plain ones while a tool is attached.
// `ra`: the return address into the program.
void traced_lock_init(void* lock, bool nest, unsigned hint, const void* ra);
void traced_lock_destroy(void* lock, bool nest, const void* ra);
void traced_lock_set(void* lock, const void* ra);
void traced_lock_unset(void* lock, const void* ra);
int traced_lock_test(void* lock, const void* ra);
void traced_nest_lock_set(void* lock, const void* ra);
void traced_nest_lock_unset(void* lock, const void* ra);
int traced_nest_lock_test(void* lock, const void* ra);
void traced_critical_begin(void* name, unsigned hint, const void* ra);
void traced_critical_end(void* name, const void* ra);
void traced_barrier(ompt_sync_region_t kind, const void* ra);
bool traced_cancel_barrier(ompt_sync_region_t kind, const void* ra);
bool traced_masked_begin(int filter, const void* ra);
void traced_masked_end(const void* ra);
bool traced_single_begin(const void* ra);
void traced_single_end(const void* ra);
bool traced_single_start(const void* ra);  // gcc's single: begin and end in one call
void traced_flush(const void* ra);  // the callback only
// cancel and cancellation point (kind: 1 parallel, 2 loop, 3 sections, 4
// taskgroup); a task discarded because its group or region was cancelled.
bool traced_cancel(int kind, const void* ra);
bool traced_cancellation_point(int kind, const void* ra);
void task_discarded(Thread* th, Task* t);
// A worksharing construct's begin or end, and a dispatched chunk (its first
// iteration), on the current thread.
void work_here(ompt_work_t kind, ompt_scope_endpoint_t ep, uint64_t count, const void* ra);
void dispatch_chunk_here(int64_t first);
// ordered, and the reductions whose combining thread ends them later: begin and end.
void traced_ordered_begin(const void* ra);
void traced_ordered_end(const void* ra);
int traced_reduce_begin(void* data, void (*combine)(void*, void*), bool blocking, bool atomic_ok, const void* ra);
void traced_reduce_end(bool blocking, const void* ra);


}  // namespace bobbin::rt::ompt
