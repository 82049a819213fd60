// The only surface abi/ calls. Nothing here knows how a compiler spells a
// call: entry points translate their arguments into these types, make one
// call, and translate the result back.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
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
  bool league = false;    // a teams construct's league: exactly num_threads initial threads
};

void fork(const ForkRequest& req);
// The same region in two calls, for an ABI whose encountering thread runs its
// part of the body itself between them: fork_open starts the other threads
// and returns with the caller as thread 0 of the new team; fork_close, on
// that thread, is the region's end (the closing barrier and the join).
void fork_open(const ForkRequest& req);
void fork_close();
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
// libomp's extension kind for OMP_SCHEDULE=trapezoidal and
// omp_set_schedule (kmp_sched_trapezoidal): a schedule(runtime) loop then
// hands out trapezoid self-scheduling chunks (loop.cpp).
constexpr int kSchedTrapezoidal = 101;
struct Schedule {
  int kind = 2;  // omp_sched_dynamic
  int chunk = 0;
  bool monotonic = false;
};
void set_schedule(Schedule s);
Schedule get_schedule();

// ---- barriers and simple constructs ----------------------------------------

// A full fence; on a fiber, runnable fibers of its worker run first (sync.cpp).
void flush();
void barrier();
bool single_begin();  // true for the one thread that runs the block
void single_end();
bool masked_begin(int filter);
// copyprivate: `data` of the thread that ran single (`did_it`) is copied to
// every other thread's `data` with `copy(dst, src)`.
void copyprivate(void* data, void (*copy)(void* dst, void* src), bool did_it);

// ---- worksharing loops --------------------------------------------------

enum class LoopKind : uint8_t {
  Static, StaticChunked, StaticBalancedChunked, Dynamic, Guided, Runtime, Auto,
  Distribute, DistributeChunked,  // split over the teams of a league, not the threads of a team
  // libomp's extensions: guided chunks that are multiples of the chunk (the
  // simd width; schedule(simd:guided)), schedule(simd:runtime) (the chunk
  // argument is the simd width), and trapezoid self-scheduling.
  GuidedSimd, RuntimeSimd, Trapezoidal,
};

// One loop as the compiler describes it, in a signed/unsigned width-neutral
// form: bounds are inclusive, `incr` non-zero.
struct LoopBounds {
  int64_t lower, upper, incr;
  bool is_unsigned;  // the iteration variable's type, for the trip count
  int width;         // 4 or 8 bytes
  // 1 counts up, -1 down; 0: as incr's sign says. gcc's unsigned long long
  // loops say which (an increment of 2^63 or more is negative as int64).
  int dir = 0;
};
// Iterations of the loop (0 if it has none).
uint64_t loop_trip_count(const LoopBounds& b);

// Static schedule: this thread's part. Returns false if it has none.
struct StaticPart {
  int64_t lower, upper, stride;
  bool last;
};
StaticPart static_part(LoopKind kind, int64_t chunk, const LoopBounds& b);
// distribute parallel for: this team's distribute chunk (upper in *team_upper),
// then this thread's part of it under `kind`.
StaticPart dist_static_part(LoopKind kind, int64_t chunk, const LoopBounds& b, int64_t* team_upper);
// dist_schedule(static, chunk) as its own step: this team's first chunk
// (upper bound clamped to the loop's last iteration; empty if the team has
// none), the stride from one of its chunks to its next, and whether it runs
// the loop's last iteration. A chunk below 1 counts as 1.
StaticPart team_static_part(int64_t chunk, const LoopBounds& b);

// Dynamic dispatch (every schedule kind, ordered or not).
void dispatch_init(LoopKind kind, bool ordered, int64_t chunk, const LoopBounds& b);
// distribute parallel for with a dispatched schedule: dispatch_init over this
// team's part of the distribute space (divided as dist_static_part divides
// it). Returns whether that part holds the loop's last iteration.
bool dist_dispatch_init(LoopKind kind, bool ordered, int64_t chunk, const LoopBounds& b);
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
bool lock_test(void* lock);
void nest_lock_init(void* lock);
void nest_lock_destroy(void* lock);
void nest_lock_set(void* lock);
void nest_lock_unset(void* lock);
int nest_lock_test(void* lock);  // the new nesting count, 0 if not acquired

// `name` is storage the compiler zero-fills, at least 4 bytes.
void critical_begin(void* name);
void critical_end(void* name);

// The uncontended halves of lock_set/critical_begin and of the unlock
// (critical_end, omp_unset_lock), inline in the entry points (one call less
// on the paths EPCC's lock and critical measure): a free word (0) is taken
// with one CAS to 1; an unlock finds 1 unless a waiter marked the word 2
// (sync.cpp has the protocol), and only then calls lock_wake.
void lock_wake(void* lock);
inline std::atomic<uint32_t>* lock_word(void* lock) { return static_cast<std::atomic<uint32_t>*>(lock); }
inline void lock_set_inline(void* lock) {
  uint32_t expect = 0;
  // acquire: pairs with the release of the unlock, as in sync.cpp.
  if (!lock_word(lock)->compare_exchange_strong(expect, 1, std::memory_order_acquire, std::memory_order_relaxed))
    lock_set(lock);
}
inline void lock_unset_inline(void* lock) {
  if (lock_word(lock)->exchange(0, std::memory_order_release) == 2) lock_wake(lock);
}
// The unnamed critical section's word (workshare.cpp), for the inline paths.
extern std::atomic<uint32_t>& unnamed_critical_word;

// ---- reductions ------------------------------------------------------------

// `blocking`: the others wait until reduce_end (the construct's barrier).
// Returns 1 for the thread that must combine into the original variables
// (after the runtime combined every thread's private copies into its own),
// which then calls reduce_end; 0: nothing left to do; 2 (only when `atomic_ok`, the compiler
// having emitted an atomic form, and only for nowait): every thread combines
// its own copies with atomics, and the construct's closing barrier (or the
// region's join) orders the result.
int reduce_begin(void* data, void (*combine)(void* lhs, void* rhs), bool blocking, bool atomic_ok);
void reduce_end(bool blocking);

// ---- threadprivate without TLS ----------------------------------------------
// `cache` is a pointer-sized slot the compiler keeps per variable.
void* threadprivate_cached(void* original, std::size_t size, void*** cache);
void threadprivate_register(void* original, void* (*ctor)(void*), void* (*cctor)(void*, void*), void (*dtor)(void*));
// The same without the compiler's cache slot (a lookup by address).
void* threadprivate_lookup(void* original, std::size_t size);
// A threadprivate array of vector_length elements built and destroyed by
// vector constructors (libomp's *_register_vec): ctor(copy, n), cctor(copy, original, n).
void threadprivate_register_vec(void* original, void* (*ctor)(void*, std::size_t),
                                void* (*cctor)(void*, void*, std::size_t), void (*dtor)(void*, std::size_t),
                                std::size_t vector_length);
// The initial value other threads' copies start from (data, size bytes),
// given ahead of their first use.
void threadprivate_set_initial(void* original, const void* data, std::size_t size);
// Runs the current region's outlined body for the calling thread (libomp's
// task-function invoker). Returns false outside a parallel region.
bool invoke_current_body();

// ---- tasks -------------------------------------------------------------------

struct TaskSpec {
  void (*run)(void* payload, int gtid);      // runs the body
  void (*cleanup)(void* payload, int gtid) = nullptr;  // after the body, deferred or not (destructors)
  bool tied = true;
  bool final_ = false;
  int priority = 0;
  // The compiler may write the priority after allocation: if >= 0, the
  // payload offset of an int that task_submit reads it from.
  int priority_offset = -1;
  // A target construct's task: it runs on a hidden helper thread
  // (hidden_helper.cpp) unless they are turned off.
  bool hidden_helper = false;
};
// Storage for a task whose compiler-visible part is `payload_size` bytes
// (16-byte aligned). The task is not scheduled until task_submit.
void* task_alloc(const TaskSpec& spec, std::size_t payload_size);
// The program's function that tasks run by thunk `run` execute, read from
// their payload (the kind of task for the moldable model: which regions
// its tasks open). Called at load time, by each kind of thunk.
void register_task_routine(void (*run)(void* payload, int gtid), const void* (*routine)(void* payload));
std::size_t task_payload_size(void* payload);

// kDepAllMemory: depend(omp_all_memory), a writer of every location (its
// address is ignored).
enum DepKind : uint8_t { kDepIn = 1, kDepOut = 2, kDepInout = 3, kDepMutexInoutset = 4, kDepInoutset = 8, kDepAllMemory = 0x80 };
struct DepItem {
  uintptr_t addr;
  uint8_t kind;  // DepKind
};
void task_submit(void* payload, const DepItem* deps, int ndeps);
// Whether a ready task of the given priority (no dependences, no affinity)
// that the caller created now would run at once (task.cpp, run_now); if so,
// the caller may allocate it without a copy of its data (the data outlives
// the run) and must start it with task_run_created, not task_submit.
bool task_runs_now(int priority);
void task_run_created(void* payload);
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
// task_query.cpp: whether the current task is an explicit one; a task's
// completion event (the one task_detach_event armed) without arming it again;
// libomp's task ids (its release builds give every task ~0; 0 is "no task").
bool in_explicit_task();
void* task_event(void* payload);
uint64_t current_task_id();
uint64_t parent_task_id();

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
// reduction(task, ...) on parallel and worksharing constructs. Every thread
// of the team calls begin at the construct's start with its own items
// (`shar`: its private copy of the variable): it opens a taskgroup whose
// reductions share one set of copies with the rest of the team, and returns
// its handle. end closes that taskgroup; the last thread of the team to end
// combines every copy into its own `shar`. Neither waits for the team.
void* task_reduction_scope_begin(const TaskRedItem* items, int n);
void task_reduction_scope_end();

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
// A target region's host fallback: fn(data) as the initial thread of a new
// contention group on the calling thread (thread_limit: 0 if not given).
void run_target_region(void (*fn)(void*), void* data, int thread_limit);
// A teams construct inside such a region, lowered as a loop that asks for
// the next team: the teams run one after another; true while there is a
// team to run (`first` on the loop's first call).
bool target_teams_next(int lower, int thread_limit, bool first);

// Cancellation. kind: 1 parallel, 2 loop, 3 sections, 4 taskgroup.
bool cancellation_enabled();
bool cancel(int kind);              // true: the construct is cancelled, leave it
bool cancellation_point(int kind);  // true: cancelled, leave the construct
bool cancel_barrier();              // a barrier; true if the region was cancelled

// Nested regions: 1 gang, 2 steal, 0 the default (BOBBIN_NESTED). `next_only`:
// only the next region the calling thread opens; otherwise every later one.
void set_nested_mode(int mode, bool next_only);
int nested_mode();
void print_scheduler_state();  // every worker's queue and gang stack, to stderr

// omp_pause_resource: 1 soft, 2 hard. Returns 0 on success.
int pause_resources(int kind);

// ---- memory allocators (alloc.cpp) --------------------------------------------
// Handles are omp.h's: a predefined allocator or memory space is a small
// integer, a user allocator points to its descriptor. Every block carries a
// header naming the allocator that made it, so mem_free needs no handle.

using AllocatorHandle = uintptr_t;
using MemspaceHandle = uintptr_t;
struct AllocTrait {  // omp_alloctrait_t
  int key;
  uintptr_t value;
};
// A new allocator, or 0 (omp_null_allocator) if a trait is not valid.
AllocatorHandle init_allocator(MemspaceHandle space, int ntraits, const AllocTrait* traits);
void destroy_allocator(AllocatorHandle a);
// def-allocator-var of the current task.
void set_default_allocator(AllocatorHandle a);
AllocatorHandle default_allocator();
// `a` 0: def-allocator-var. `align` 0: the allocator's own alignment. A
// failed allocation follows the allocator's fallback trait (null, another
// allocator, or abort); size 0 gives null.
void* mem_alloc(std::size_t size, std::size_t align, AllocatorHandle a);
void* mem_calloc(std::size_t n, std::size_t size, std::size_t align, AllocatorHandle a);
// `free_a` is ignored: the block's header names its allocator.
void* mem_realloc(void* p, std::size_t size, AllocatorHandle a, AllocatorHandle free_a);
void mem_free(void* p);
// libomp's kmp_aligned_malloc: posix_memalign's contract, so an alignment
// that is not a power of two gives null with errno EINVAL (omp_aligned_alloc's
// caller breaks a precondition there, and is stopped).
void* mem_aligned_malloc(std::size_t size, std::size_t align);

// ---- displays (display.cpp) -----------------------------------------------------

// omp_display_env: the initial ICVs, in the format of OMP_DISPLAY_ENV.
void display_env(bool verbose);
// affinity-format-var. `len` is the format's length (it need not end in NUL).
void set_affinity_format(const char* format, std::size_t len);
std::string affinity_format();
// The calling thread's affinity line in `format` (null or empty: the ICV).
std::string capture_affinity(const char* format, std::size_t len);
void display_affinity(const char* format, std::size_t len);
// OMP_DISPLAY_AFFINITY: call on each thread of a new team, on that thread,
// once its binding is set and before the body; prints the thread's line when
// it differs from the last one printed for that thread.
void display_affinity_if_enabled();

// ---- devices and tools (device.cpp) ---------------------------------------------

int num_devices();      // no offload devices: 0
int initial_device();   // the host's device number (= num_devices(), spec 18.7.7)
int device_num();       // the device the caller runs on: the host
void set_default_device(int device);
int default_device();   // default-device-var of the current task
int control_tool(int command, int modifier, void* arg);  // omp_control_tool_result_t
enum class TargetOffload { Default, Mandatory, Disabled };
TargetOffload target_offload();  // OMP_TARGET_OFFLOAD (target-offload-var), for libomptarget
// Interop objects: Bobbin creates none, so every object is omp_interop_none.
int interop_num_properties(const void* interop);
intptr_t interop_int(const void* interop, int property, int* rc);
void* interop_ptr(const void* interop, int property, int* rc);
const char* interop_str(const void* interop, int property, int* rc);
const char* interop_name(const void* interop, int property);
const char* interop_type_desc(const void* interop, int property);
const char* interop_rc_desc(const void* interop, int rc);

// ---- diagnostics --------------------------------------------------------------
[[noreturn]] void unsupported(const char* what);
const char* version_string();


// ---- added for the GOMP ABI ----
// What gcc's code generation needs beyond the calls above, in ABI-neutral
// terms: worksharing constructs that the caller steps through chunk by chunk
// (an ordered turn passed per chunk, a team-shared scratch block, task
// reductions of the construct), combined parallel worksharing regions, one
// thread's data handed to the others at the end of a single, tasks whose body
// is a function plus a copy of a data block, and task reductions whose private
// copies the compiler lays out, initialises and combines itself (the runtime
// only allocates them and says where they are). Implemented in workshare.cpp,
// task_closure.cpp and block_reduction.cpp.

// Task reductions on compiler-laid-out storage (block_reduction.cpp). Each
// thread of the team owns `per_thread` bytes of every block, zero-filled; an
// item is a reduced variable, found by its original address, at `offset`
// within a thread's part.
struct BlockReductionItem {
  uintptr_t addr;
  std::size_t offset;
};
struct ReductionBlock {
  std::size_t per_thread = 0;  // a multiple of `align`
  std::size_t align = 1;
  const BlockReductionItem* items = nullptr;  // sorted by offset
  int nitems = 0;
  char* storage = nullptr;     // out: nthreads * per_thread bytes (null if never allocated)
  // Where else the storage's address goes, as soon as it is allocated: the
  // compiler's code may read it (in other threads, in tasks) before the call
  // that allocated it returns. May be null.
  uintptr_t* publish = nullptr;
};
// Allocates the blocks for this team and binds them to the innermost taskgroup
// of the current task: until that taskgroup ends they are visible to it and
// to every task created in it. Returns the handle reductions_unregister takes.
void* reductions_register(ReductionBlock* blocks, int n);
// Frees the storage (after the taskgroup ended and the compiler combined it).
void reductions_unregister(void* handle);
// Replaces each of ptrs[0..n) (an original variable's address, or an address
// inside any thread's copy of it) with the same item in the calling thread's
// copy; for i < norigs also stores the original's address in origs[i].
void reductions_remap(void** ptrs, std::size_t n, void** origs, std::size_t norigs);
// Ends the innermost taskgroup and the task reductions bound to it.
void taskgroup_end_bound();

// A worksharing construct as gcc's entry points describe it (workshare.cpp).
struct WorkshareStart {
  bool loop = true;            // false: no iterations (scope; a block of scratch only)
  bool sections = false;       // the loop is a sections construct's (for a tool)
  LoopKind kind = LoopKind::Static;
  bool ordered = false;        // ordered regions take turns per chunk (see dispatch_next_ordered)
  int64_t chunk = 0;
  LoopBounds bounds{0, -1, 1, false, 8};
  bool claim = true;           // false: join only; the caller's first call is dispatch_next
  int doacross_ndims = 0;      // ordered(n): the dependence space, over which the loop runs its first dimension
  const DoacrossDim* doacross = nullptr;
  std::size_t scratch_size = 0;  // > 0: a zero-filled block shared by the team until every thread left
  void* scratch = nullptr;       // out
  ReductionBlock* reductions = nullptr;  // task reductions of the construct: opens a taskgroup in
  int nreductions = 0;                   // each thread, bound to storage the first thread allocates
};
// Joins the construct; with a loop and `claim`, returns the first chunk as
// dispatch_next does (false: nothing for this thread).
bool workshare_begin(WorkshareStart& w, int64_t* lower, int64_t* upper, int64_t* stride, bool* last);
// The next chunk of an ordered loop: first hands the ordered turn on past the
// chunk this thread finished (waiting for the turn if the thread never entered
// an ordered region in it), then claims the next chunk. ordered_begin() waits
// for the chunk's first iteration, and ordered_end() must not be called.
bool dispatch_next_ordered(int64_t* lower, int64_t* upper, int64_t* stride, bool* last);
// Leaves the construct: its scratch block, doacross space and barrier.
enum class WorkshareWait : uint8_t { None, Barrier, CancellableBarrier };
bool workshare_end(WorkshareWait wait);  // true: the region was cancelled
// The end of a worksharing construct's task reductions: ends the taskgroup
// workshare_begin opened, releases the storage, then waits at a barrier
// unless the construct was cancelled.
void workshare_reductions_end(bool cancelled);
// doacross_wait for an ABI that passes the vector as separate arguments:
// `first` is its first element and next(ctx) returns each further one, as
// many as the current doacross loop has dimensions.
void doacross_wait_each(int64_t first, int64_t (*next)(void* ctx), void* ctx);

// A parallel region whose threads first join a worksharing construct, or
// bind task reductions, before the body (combined `parallel for`,
// `parallel sections`, `parallel reduction(task, ...)`).
struct RegionSetup {
  WorkshareStart* workshare = nullptr;   // joined without claiming (claim is ignored)
  ReductionBlock* reductions = nullptr;  // allocated for the largest team the request allows
  int nreductions = 0;
  int team_size = 0;                     // out: the team that ran
  void* reductions_handle = nullptr;     // out: for reductions_unregister
};
void fork_with(const ForkRequest& req, RegionSetup& setup);
// fork_open for a combined parallel worksharing construct: every thread of
// the new team, the caller included (before this returns), joins the
// worksharing construct `w` (without claiming) before its part of the body.
void fork_open_with(const ForkRequest& req, const WorkshareStart& w);

// single with copyprivate: null for the thread that runs the block; every
// other thread gets, once that thread called single_copy_end(data), `data`.
void* single_copy_begin();
void single_copy_end(void* data);

// The lock for atomics the compiler cannot make lock-free.
// sections as LLVM 19's entry points ask: the next section number of an
// n-section construct for this thread (a dynamic loop its first ask joins),
// n when none is left (the thread has left the construct).
int64_t section_next(int64_t n);
void atomic_fallback_begin();
void atomic_fallback_end();

// The allocate clause's allocations: mem_alloc, except that a failed
// allocation ends the program with a message (spec 6.6: null_fb acts as
// abort_fb for them).
void* mem_alloc_clause(std::size_t size, std::size_t align, AllocatorHandle a);

// The error directive at execution time: prints `msg` (`len` bytes; null: no
// message); `fatal` then ends the program. The line is what the program's
// own runtime prints, since scripts and test harnesses match it: Bobbin's
// warning line, or for gcc's calls (`libgomp_spelling`) libgomp's
// "libgomp: error directive encountered: msg" and a blank line.
void error_directive(const char* msg, std::size_t len, bool fatal, bool libgomp_spelling);

// Tasks whose body is fn(copy of a data block) (task_closure.cpp).
struct ClosureTask {
  void (*fn)(void*) = nullptr;
  void* data = nullptr;
  void (*copy)(void* dst, void* src) = nullptr;  // null: the block is copied bytewise
  std::size_t size = 0, align = 1;
  bool if_clause = true, tied = true, final_ = false;
  int priority = 0;
  const DepItem* deps = nullptr;
  int ndeps = 0;
  // detach: the event handle is stored at these places before the block is copied.
  void** event_slots[2] = {nullptr, nullptr};
};
void task_closure(const ClosureTask& t);
// taskloop over [start, end) by `step` (gcc's form): each task's copy of the
// block gets its own bounds in its first two 8-byte words.
struct ClosureTaskloop {
  ClosureTask task;  // deps and detach are not used
  int64_t start = 0, end = 0, step = 1;  // step: the two's complement of the decrement when counting down
  bool is_unsigned = false;
  bool up = true;       // counting up (start < end) or down
  int sched = 0;        // 0: default, 1: grainsize, 2: num_tasks
  uint64_t grain = 0;
  bool strict = false, nogroup = false;
  ReductionBlock* reductions = nullptr;  // taskloop reduction: bound in the taskloop's taskgroup
  int nreductions = 0;
  void* reductions_handle = nullptr;     // out (null: the loop was empty and nothing was allocated)
};
void taskloop_closure(ClosureTaskloop& t);

// ---- libomp's kmp_* extensions (kmp_ext.cpp) ----
void kmp_set_stacksize(std::size_t bytes);  // fibers started from now on
std::size_t kmp_stacksize();
void kmp_set_blocktime(int ms);
int kmp_blocktime();
void kmp_set_library(int mode);  // 1 serial, 2 turnaround, 3 throughput
int kmp_library();
void kmp_set_defaults(const char* text);  // before the runtime starts
void kmp_set_disp_num_buffers(int n);     // before the runtime starts only (KMP_DISP_NUM_BUFFERS)
int kmp_affinity_max_proc();
void kmp_create_mask(void** mask);
void kmp_destroy_mask(void** mask);
int kmp_mask_proc(int proc, void** mask, int op);  // op: 1 set, -1 clear, 0 query
int kmp_get_affinity(void** mask);
int kmp_set_affinity(void** mask);  // not supported: says so once, returns -1
// Clauses served only in part: one warning per kind and process, naming what is left out.
enum class Partial { NumThreadsStrict, NumThreadsList, ThreadLimit };
void warn_partial(Partial what);
// Binding the calling OpenMP thread to the whole machine: refused (-1, with one warning).
int kmp_unbind_thread();
int kmp_cancellation_status(int kind);
int kmp_known_threads();

}  // namespace bobbin::rt
