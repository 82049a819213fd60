// The only surface abi/ calls. Nothing here knows how a compiler spells a
// call: entry points translate their arguments into these types, make one
// call, and translate the result back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bobbin::rt {

// ---- parallel regions ------------------------------------------------------

// How a region's body is invoked; the difference between the two ABIs is one
// field of the request, not a second fork path.
struct RegionBody {
  enum class Kind : uint8_t { VarargsMicrotask, DataPointer };
  Kind kind;
  void* fn;     // VarargsMicrotask: void(int* gtid, int* tid, void* a0, ...); DataPointer: void(void*)
  int argc;     // VarargsMicrotask only
  void** argv;  // VarargsMicrotask only: the captured arguments, in order
  void* data;   // DataPointer only
};

struct ForkRequest {
  RegionBody body;
  int num_threads = 0;    // num_threads clause, 0 if absent (a pushed value is used then)
  int proc_bind = -1;     // proc_bind clause (omp_proc_bind_t), -1 if absent
  bool if_clause = true;  // false: the region is inactive (a team of one)
};

void fork(const ForkRequest& req);
// Clause values a compiler passes in separate calls before fork.
void push_num_threads(int n);
void push_proc_bind(int bind);
// Inactive region entered and left around a body the caller runs itself.
void begin_serialized();
void end_serialized();

// ---- identity and queries ---------------------------------------------------

void ensure_initialized();
int global_thread_id();  // stable per OpenMP thread; dense for the outermost team
int thread_num();
int num_threads();
int max_threads();
int level();
int active_level();
int ancestor_thread_num(int level);
int team_size(int level);
bool in_parallel();
int num_procs();
int thread_limit();
void set_num_threads(int n);
void set_dynamic(bool on);
bool get_dynamic();
void set_max_active_levels(int n);
int get_max_active_levels();
int supported_active_levels();
double wtime();
double wtick();

// Run-time schedule (omp_sched_t values; monotonic flag as in omp.h).
struct Schedule {
  int kind = 2;  // omp_sched_dynamic
  int chunk = 0;
  bool monotonic = false;
};
void set_schedule(Schedule s);
Schedule get_schedule();

// ---- barriers and simple constructs ----------------------------------------

void barrier();
bool single_begin();  // true for the one thread that runs the block
void single_end();
bool masked_begin(int filter);
// copyprivate: `data` of the thread that ran single (`did_it`) is copied to
// every other thread's `data` with `copy(dst, src)`.
void copyprivate(void* data, void (*copy)(void* dst, void* src), bool did_it);

// ---- worksharing loops --------------------------------------------------

enum class LoopKind : uint8_t { Static, StaticChunked, StaticBalancedChunked, Dynamic, Guided, Runtime, Auto };

// One loop as the compiler describes it, in a signed/unsigned width-neutral
// form: bounds are inclusive, `incr` non-zero.
struct LoopBounds {
  int64_t lower, upper, incr;
  bool is_unsigned;  // the iteration variable's type, for the trip count
  int width;         // 4 or 8 bytes
};

// Static schedule: this thread's part. Returns false if it has none.
struct StaticPart {
  int64_t lower, upper, stride;
  bool last;
};
StaticPart static_part(LoopKind kind, int64_t chunk, const LoopBounds& b);

// Dynamic dispatch (every schedule kind, ordered or not).
void dispatch_init(LoopKind kind, bool ordered, int64_t chunk, const LoopBounds& b);
// Next chunk for this thread; false when the loop is done (the thread has left it).
bool dispatch_next(int64_t* lower, int64_t* upper, int64_t* stride, bool* last);
// End of one iteration of an ordered loop.
void dispatch_iteration_done();
void ordered_begin();
void ordered_end();

// Doacross loops: dims as (lower, upper, stride) triples.
struct DoacrossDim {
  int64_t lower, upper, stride;
};
void doacross_init(int ndims, const DoacrossDim* dims);
void doacross_wait(const int64_t* vec);
void doacross_post(const int64_t* vec);
void doacross_fini();

// ---- critical sections and locks --------------------------------------------
// One implementation serves both ABIs: a simple lock is one 32-bit word, a
// nestable lock two (owner and count).

void lock_init(void* lock);
void lock_destroy(void* lock);
void lock_set(void* lock);
void lock_unset(void* lock);
bool lock_test(void* lock);
void nest_lock_init(void* lock);
void nest_lock_destroy(void* lock);
void nest_lock_set(void* lock);
void nest_lock_unset(void* lock);
int nest_lock_test(void* lock);  // the new nesting count, 0 if not acquired

// `name` is storage the compiler zero-fills, at least 4 bytes.
void critical_begin(void* name);
void critical_end(void* name);

// ---- reductions ------------------------------------------------------------

// Returns true for the thread that must combine into the original variables
// (after the runtime combined every thread's private copies into its own).
// `blocking`: the others wait until reduce_end (the construct's barrier).
bool reduce_begin(void* data, void (*combine)(void* lhs, void* rhs), bool blocking);
void reduce_end(bool blocking);

// ---- threadprivate without TLS ----------------------------------------------
// `cache` is a pointer-sized slot the compiler keeps per variable.
void* threadprivate_cached(void* original, std::size_t size, void*** cache);
void threadprivate_register(void* original, void* (*ctor)(void*), void* (*cctor)(void*, void*), void (*dtor)(void*));

// ---- tasks -------------------------------------------------------------------

struct TaskSpec {
  void (*run)(void* payload, int gtid);  // runs the body (and any destructors)
  bool tied = true;
  bool final_ = false;
  int priority = 0;
  // The compiler may write the priority after allocation: if >= 0, the
  // payload offset of an int that task_submit reads it from.
  int priority_offset = -1;
};
// Storage for a task whose compiler-visible part is `payload_size` bytes
// (16-byte aligned). The task is not scheduled until task_submit.
void* task_alloc(const TaskSpec& spec, std::size_t payload_size);
std::size_t task_payload_size(void* payload);

enum DepKind : uint8_t { kDepIn = 1, kDepOut = 2, kDepInout = 3, kDepMutexInoutset = 4, kDepInoutset = 8 };
struct DepItem {
  uintptr_t addr;
  uint8_t kind;  // DepKind
};
void task_submit(void* payload, const DepItem* deps, int ndeps);
// An undeferred task (if(0)): the caller runs the body between these two.
void task_begin_undeferred(void* payload);
void task_end_undeferred(void* payload);
// Waits until the listed dependences of earlier sibling tasks are met.
void task_wait_deps(const DepItem* deps, int ndeps);
void task_set_affinity(void* payload, const void* addr, std::size_t len);
// Detach: the task completes when its body has ended and the event is fulfilled.
void* task_detach_event(void* payload);
void fulfill_event(void* event);

void taskwait();
void taskyield();
void taskgroup_begin();
void taskgroup_end();
bool in_final();
int max_task_priority();

// taskloop: `copy(dst, src, last)` duplicates a pattern task's payload for one
// chunk (the ABI's task_dup), after which the runtime stores the chunk's
// bounds at `lb_offset` / `ub_offset` of the copy.
struct TaskloopSpec {
  void* pattern;  // payload from task_alloc, never submitted itself
  std::size_t lb_offset, ub_offset;
  int64_t stride;
  bool if_clause, nogroup, strict;
  int sched;  // 0: default, 1: grainsize, 2: num_tasks
  uint64_t grain;
  void (*copy)(void* dst, void* src, bool last, void* ctx);
  void* ctx;
};
void taskloop(const TaskloopSpec& spec);

// Task reductions registered in the innermost taskgroup.
struct TaskRedItem {
  void* shar;   // the reduction variable as the tasks name it
  void* orig;   // where the result goes (null: shar)
  std::size_t size;
  void (*init)(void* priv);                         // one of these two, or neither (zero-fill)
  void (*init_with_orig)(void* priv, void* orig);
  void (*fini)(void* priv);                         // may be null
  void (*comb)(void* lhs, void* rhs);
};
void* task_reduction_init(const TaskRedItem* items, int n);  // returns the taskgroup handle
void* task_reduction_data(void* group, void* shared);        // this thread's copy

// ---- places, binding, host teams, cancellation, pause (places.cpp, teams.cpp, cancel.cpp) ----

int num_places();
int place_num_procs(int place);                   // 0 if out of range
void place_proc_ids(int place, int* ids);         // OS processor ids of a place
int place_num();                                  // -1 if the thread is not bound
int partition_num_places();
void partition_place_nums(int* out);
int proc_bind();                                  // omp_proc_bind_t of the next region
const std::vector<std::vector<int>>& places();    // every place's OS processors

// Host teams (a league of initial threads).
struct TeamsRequest {
  RegionBody body;
  int num_teams_lower = 0, num_teams_upper = 0;   // 0: not given
  int thread_limit = 0;                           // 0: not given
};
void fork_teams(const TeamsRequest& req);
void push_num_teams(int lower, int upper, int thread_limit);
int team_num();
int num_teams();
void set_num_teams(int n);
int get_max_teams();
void set_teams_thread_limit(int n);
int get_teams_thread_limit();

// Cancellation. kind: 1 parallel, 2 loop, 3 sections, 4 taskgroup.
bool cancellation_enabled();
bool cancel(int kind);              // true: the construct is cancelled, leave it
bool cancellation_point(int kind);  // true: cancelled, leave the construct
bool cancel_barrier();              // a barrier; true if the region was cancelled

// omp_pause_resource: 1 soft, 2 hard. Returns 0 on success.
int pause_resources(int kind);

// ---- diagnostics --------------------------------------------------------------
[[noreturn]] void unsupported(const char* what);
const char* version_string();

}  // namespace bobbin::rt
