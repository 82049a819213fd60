// Explicit tasks: descriptors, counting, dependences (see task.cpp, depend.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/api.hpp"
#include "runtime/ompt.hpp"
#include "scheduler/task_list.hpp"
#include "scheduler/task_sched.hpp"
#include "ult/atomic.hpp"
#include "ult/spinlock.hpp"

namespace bobbin::rt {

struct Team;
struct Thread;
struct Task;
struct DepDomain;

struct TaskGroup {
  Atomic<int64_t> pending{0};  // tasks created in the group (any depth) not yet complete
  TaskGroup* outer = nullptr;
  Atomic<bool> cancelled{false};
  void* reduction = nullptr;   // task reduction data registered in this group (task_reduction.cpp)
  // The implicit group of a worksharing construct's task reductions (GOMP):
  // `cancel taskgroup` in it cancels the group around the construct, as
  // libgomp does.
  bool workshare = false;
};

// Dependence bookkeeping of a task that has depend clauses (depend.cpp).
struct DepNode {
  SpinLock lock;
  Atomic<bool> done{false};                   // set under lock; read lock-free by waiters
  Atomic<int> npred{0};                       // unfinished predecessors (+1 while being registered)
  std::vector<Task*> succ GUARDED_BY(lock);   // tasks waiting for this one
  // The task's declared data, for the moldable model's `where` when it has
  // no affinity clause: the first address it writes (out, inout,
  // mutexinoutset, inoutset), else the first it reads; 0 for depend(omp_all_memory).
  uintptr_t data = 0;
};

// Counter layout, one 64-bit word per task (Task::count):
//   high 32 bits: "alive" = 1 for the task itself until it completes, plus one
//                  per child whose own alive count has not reached 0;
//   low 32 bits:  children created and not yet complete (what taskwait waits for).
// alive reaches 0 once the task and every descendant completed (for an
// implicit task: its part of the team is quiescent). Memory is separate:
// Task::refs counts the task tree (one unit, dropped when alive reaches 0)
// plus each dependence-table entry naming the task; it is freed at 0 refs.
constexpr int64_t kAliveOne = int64_t(1) << 32;
constexpr int64_t kChildOne = 1;
inline uint32_t alive_of(int64_t c) { return uint32_t(uint64_t(c) >> 32); }
inline uint32_t incomplete_of(int64_t c) { return uint32_t(uint64_t(c)); }

struct alignas(kCacheLine) Task {
  void (*run)(void* payload, int gtid) = nullptr;      // the body (abi's thunk)
  void (*cleanup)(void* payload, int gtid) = nullptr;  // after the body (destructors), may be null
  Team* team = nullptr;
  Task* parent = nullptr;       // the generating task (implicit tasks: null)
  TaskGroup* group = nullptr;   // innermost taskgroup the task was created in
  Atomic<int64_t> count{0};     // see the layout above
  Atomic<int> completion_left{1};  // 1, or 2 while a detach event is unfulfilled
  Atomic<int> refs{1};             // memory references, see the counter layout
  DepNode* deps = nullptr;      // null unless the task has depend clauses
  DepDomain* domain = nullptr;  // dependences among this task's children (lazy)
  TaskGroup* running_group = nullptr;  // innermost taskgroup while this task runs (its stack of groups)
  uint32_t depth = 0;           // 0 for implicit tasks
  // Who this task is to the nestable locks it owns (sync.cpp), given at its
  // first nestable-lock call; 0 until then. Written and read only by the
  // thread executing the task.
  uint32_t lock_owner = 0;
  int priority = 0;
  int priority_offset = -1;     // see TaskSpec
  int affinity_list = -1;       // task list chosen from an affinity clause, -1 if none
  bool implicit = false;
  bool tied = true;
  bool final_ = false;          // final clause true, or a descendant of a final task
  bool detachable = false;
  bool running = false;         // its body is executing (set and read by the executing thread)
  bool requeued = false;        // an untied task's routine re-submitted it: run it again
  bool hidden_helper = false;   // runs on a hidden helper thread only (hidden_helper.cpp)
  // Counted in its parent's incomplete children and its group's pending
  // tasks. A tied, non-detachable task run at its creation is not: it
  // completes before its creator can reach a taskwait or the group's end
  // (task.cpp, task_submit).
  bool counted = true;
  uint8_t size_class = 0;       // task_alloc.cpp
  // The NUMA node whose list the moldable model queued the task at, as the
  // leader of the region it opens (team.cpp, mold_leader_list); kNoLeader if
  // none. Workers of other nodes leave it there a moment (task.cpp).
  static constexpr uint8_t kNoLeader = 0xff;
  uint8_t leader_node = kNoLeader;
  std::size_t payload_size = 0;
  union {
    // Creation order in the team of a task with a priority (task.cpp,
    // priority_key); 0 for the others.
    uint64_t seq = 0;
    // A task queued at a leader (never one with a priority): when (now_ns).
    uint64_t leader_since;
  };
  ompt::TaskState ompt;          // the tool's data and frames (ompt.cpp); untouched without a tool
  // An ancestor further up than the parent, for finding a task's ancestor
  // at a given depth in O(log depth) steps (is_descendant): the parent, or
  // the parent's jump's jump when the parent's two jumps span equal depths
  // (skew-binary jump pointers). Ancestors outlive their descendants.
  Task* jump = nullptr;
  // While queued: the last waiting task that found this one not among its
  // descendants (admits, task.cpp). Read and written under the lock of the
  // list holding it. A later task at the same address cannot be an
  // ancestor: it was created after this one.
  const Task* not_below = nullptr;
  // The payload follows the header (sizeof(Task): a multiple of the cache line).
  void* payload() { return reinterpret_cast<char*>(this) + sizeof(Task); }
};

// The ready tasks of one team.
struct TeamTasks {
  TeamTasks(std::unique_ptr<sched::TaskScheduler> s, int nthreads)
      : sched(std::move(s)), slots(new PollSlot[std::size_t(nthreads > 0 ? nthreads : 1)]), nslots(nthreads > 0 ? nthreads : 1) {}
  std::unique_ptr<sched::TaskScheduler> sched;  // where ready tasks wait (BOBBIN_SCHED)
  sched::TaskList priority;  // tasks with a priority above 0, served first
  // Polling slots (BOBBIN_POLLING_SLOTS), one per thread of the team: 0 when
  // its thread is not polling, kPolling while it waits with nothing to run,
  // else the Task a producer handed it (task.cpp says who writes what).
  static constexpr uintptr_t kPolling = 1;
  struct alignas(kCacheLine) PollSlot {
    Atomic<uintptr_t> v{0};
  };
  std::unique_ptr<PollSlot[]> slots;
  int nslots;
  Atomic<int> pollers{0};  // slots at kPolling or holding a task (a hint for producers)
  alignas(kCacheLine) Atomic<uint64_t> next_seq{1};  // Task::seq
  // The NUMA nodes (bit l: node l) of the workers the team's threads looked
  // for tasks on, once some task opened a molded region: where a task the
  // moldable model places may be queued (team.cpp, mold_leader_list).
  Atomic<uint64_t> nodes_seen{0};
};

// Per-worker task memory (task_alloc.cpp).
void* task_memory_alloc(std::size_t bytes, uint8_t* size_class);
void task_memory_free(void* p, uint8_t size_class);
// Worker core k's NUMA domain (Placement::numa_of_worker_core): which pool its worker uses.
void task_memory_place(const std::vector<int>& node_of_core);

// task.cpp
void tasking_init();
Task* task_from_payload(void* payload);
// A task whose dependences are met. `may_run_inline`: the caller may run it
// right away (throttling, final); false on completion paths, which would recurse.
void task_schedule_ready(Thread* th, Task* t, bool may_run_inline);

bool run_one_task(Thread* th);                  // a task scheduling point: runs at most one task
void leave_polling(Thread* th);                 // withdraws th's polling slot (it stops waiting)
void run_task(Thread* th, Task* t);             // runs a task taken from a queue of its own (a hidden helper's)
bool team_quiescent(Team* team);                // every task of the team has completed
void hold_task(Task* t);                        // one more memory reference
void release_task_ref(Task* t);                 // one less (frees at zero)
// The task list nearest where the task's data lives: its affinity clause's,
// else the one under the NUMA node holding its declared data (the first
// address of its depend clauses, DepNode::data); for a task with neither
// clause, those of its nearest ancestor that has one; -1 if none names one
// (a single-node machine, no clause, memory the kernel cannot place).
int data_list_of(const Task* t);
// The program's function the task runs (register_task_routine); null if its thunk registered none.
const void* task_routine(Task* t);
// The task list under NUMA node `node` (-1 if none), and how many such
// nodes the placement has (0 or 1 on a machine of one).
int list_of_memory_node(int node);
int memory_node_lists();
// Ready tasks waiting in the lists of `team`'s task pool (a hint, read
// without locks): a worker idle now takes one of them in a moment.
std::size_t queued_ready(Team* team);
// The task list the moldable model chose for a ready task that opens
// nested regions (its leader's, runtime/team.cpp); -1 when it has no choice.
// Asked only once note_mold_openers() was called: a task opened a molded
// region on a machine of several NUMA nodes.
int mold_leader_list(Task* t);
void note_mold_openers();
// Some task was queued at a leader: thieves start checking (task.cpp).
void note_leader_tasks();

// hidden_helper.cpp
// The global thread ids 1..n the hidden helper threads have (n: 0 when they
// are off); the program's other threads have 0 or ids above n.
int hidden_helper_gtids();
// Starts the hidden helper threads (the first time); false if they are off
// or could not start, when target tasks are ordinary tasks.
bool hidden_helpers_start();
// Queues a ready hidden helper task for them.
void hidden_helper_push(Task* t);

// cancel.cpp
bool task_cancelled(const Task* t);

// task_reduction.cpp
void taskgroup_finish_reductions(Thread* th, TaskGroup* g);

// depend.cpp
// Registers t's dependences in its parent's domain; returns true if t is ready now.
bool deps_register(Task* parent, Task* t, const DepItem* items, int n);
void deps_release(Thread* th, Task* t);   // t completed: wakes its successors
void deps_clear_domain(Task* owner);      // all children complete: drop the table
// Waits (running tasks) until the given dependences of the current task's earlier children are met.
void deps_wait(Thread* th, const DepItem* items, int n);

}  // namespace bobbin::rt
