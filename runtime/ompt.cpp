// OMPT (see ompt.hpp): discovery, the entry points of the lookup function,
// the inquiry functions, and the callbacks, each delivered only when the tool
// registered it.
#include "runtime/ompt.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sched.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "omp.h"
#include "runtime/api.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "ult/log.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt::ompt {

Atomic<uint8_t> g_state{0};

namespace {

constexpr int kCallbacks = 64;
Atomic<ompt_callback_t> g_cb[kCallbacks];
ompt_start_tool_result_t* g_tool = nullptr;
Atomic<uint64_t> g_next_id{1};
std::mutex g_threads_mutex;
std::vector<Thread*> g_threads;  // begun, for thread_end at finalization
Thread* g_initial = nullptr;
std::vector<Thread*> g_initials;  // program threads other than the initial one (initial_thread_begin)
// While finalization ends another thread, ompt_get_thread_data answers for it.
thread_local Thread* t_ending = nullptr;

template <class F>
F cb(ompt_callbacks_t e) {
  return reinterpret_cast<F>(g_cb[e].load(memory_order_relaxed));
}
#define OMPT_CB(name) cb<name##_t>(name)

// The OpenMP thread running here (null off a fiber), without adopting the
// kernel thread as current_thread() would.
Thread* running_thread() {
  ult::Fiber* f = ult::Worker::current_fiber();
  return f ? static_cast<Thread*>(f->user()) : nullptr;
}

// The current OpenMP thread, for the inquiry functions: none while no tool
// is active (a tool whose initializer declined may still call them).
Thread* here() {
  if (t_ending) return t_ending;
  return on() ? running_thread() : nullptr;
}

// The state of a thread working in its team (not waiting).
ompt_state_t working_state(const Thread* th) {
  return th->team && th->team->level > 0 ? ompt_state_work_parallel : ompt_state_work_serial;
}

// The callbacks Bobbin delivers; the others (devices, target regions) never
// happen on a host-only runtime.
bool delivered(int e) {
  switch (e) {
    case ompt_callback_thread_begin:
    case ompt_callback_thread_end:
    case ompt_callback_parallel_begin:
    case ompt_callback_parallel_end:
    case ompt_callback_task_create:
    case ompt_callback_task_schedule:
    case ompt_callback_implicit_task:
    case ompt_callback_control_tool:
    case ompt_callback_sync_region_wait:
    case ompt_callback_mutex_released:
    case ompt_callback_dependences:
    case ompt_callback_task_dependence:
    case ompt_callback_work:
    case ompt_callback_masked:
    case ompt_callback_sync_region:
    case ompt_callback_lock_init:
    case ompt_callback_lock_destroy:
    case ompt_callback_mutex_acquire:
    case ompt_callback_mutex_acquired:
    case ompt_callback_nest_lock:
    case ompt_callback_flush:
    case ompt_callback_cancel:
    case ompt_callback_reduction:
    case ompt_callback_dispatch:
    case ompt_callback_error:
      return true;
    default:
      return false;
  }
}

bool valid_callback(int e) { return e >= ompt_callback_thread_begin && e <= ompt_callback_error; }

// ---- entry points of the lookup function -----------------------------------

ompt_set_result_t set_callback(ompt_callbacks_t e, ompt_callback_t f) {
  if (!valid_callback(e)) return ompt_set_error;
  if (!delivered(e)) return ompt_set_never;
  g_cb[e].store(f, memory_order_relaxed);
  return ompt_set_always;
}

int get_callback(ompt_callbacks_t e, ompt_callback_t* f) {
  if (!valid_callback(e) || !f) return 0;
  ompt_callback_t c = g_cb[e].load(memory_order_relaxed);
  if (!c) return 0;
  *f = c;
  return 1;
}

ompt_data_t* get_thread_data() {
  Thread* th = here();
  return th ? &th->ompt.data : nullptr;
}

uint64_t get_unique_id() { return g_next_id.fetch_add(1, memory_order_relaxed); }

int get_num_procs() { return rt::num_procs(); }
int get_num_places() { return rt::num_places(); }
int get_place_proc_ids(int place, int size, int* ids) {
  int n = rt::place_num_procs(place);
  if (n <= 0) return 0;
  if (ids && size >= n) rt::place_proc_ids(place, ids);
  return n;
}
int get_place_num() { return here() ? rt::place_num() : -1; }
int get_partition_place_nums(int size, int* nums) {
  if (!here()) return 0;
  int n = rt::partition_num_places();
  if (nums && size >= n) rt::partition_place_nums(nums);
  return n;
}
int get_proc_id() { return here() ? sched_getcpu() : -1; }

int get_state(ompt_wait_id_t* wait_id) {
  Thread* th = here();
  if (!th) return ompt_state_work_serial;  // not an OpenMP thread: what libomp 14 answers
  if (wait_id) *wait_id = th->ompt.wait_id;
  return th->ompt.state;
}

// Ancestor `level` of the current team: the team and the thread's number in it.
const Team* team_at(Thread* th, int level, int* tid) {
  const Team* t = th->team;
  int id = th->tid;
  for (; t && level > 0; --level) {
    id = t->parent_tid;
    t = t->parent;
  }
  if (tid) *tid = id;
  return t;
}

int get_parallel_info(int level, ompt_data_t** parallel_data, int* team_size) {
  Thread* th = here();
  if (!th || level < 0) return 0;
  const Team* t = team_at(th, level, nullptr);
  if (!t) return 0;
  if (parallel_data) *parallel_data = const_cast<ompt_data_t*>(&t->ompt.data);
  if (team_size) *team_size = t->nthreads;
  return 2;
}

// The task at `level` above the current one: an explicit task's parent is
// the task that created it; an implicit task's is the task that met the
// parallel construct (the primary thread's task before the fork).
int get_task_info(int level, int* flags, ompt_data_t** task_data, ompt_frame_t** frame, ompt_data_t** parallel_data,
                  int* thread_num) {
  Thread* th = here();
  if (!th || level < 0) return 0;
  Task* t = th->current_task;
  const Team* team = th->team;
  int tid = th->tid;
  for (; t && level > 0; --level) {
    if (!t->implicit) {
      t = t->ompt.sched_parent ? t->ompt.sched_parent : t->parent;
      continue;
    }
    if (!team || !team->parent) return 0;
    t = team->saved.current_task;
    tid = team->parent_tid;
    team = team->parent;
  }
  if (!t) return 0;
  if (flags) *flags = t->ompt.type ? t->ompt.type : t->implicit ? int(ompt_task_implicit) : int(ompt_task_explicit);
  if (task_data) *task_data = &t->ompt.data;
  if (frame) *frame = &t->ompt.frame;
  if (parallel_data) *parallel_data = t->team ? &t->team->ompt.data : nullptr;
  if (thread_num) *thread_num = tid;
  return 2;
}

int get_task_memory(void** addr, size_t* size, int block) {
  Thread* th = here();
  if (!th || block != 0 || !th->current_task || th->current_task->implicit) return 0;
  Task* t = th->current_task;
  if (!t->payload_size) return 0;
  if (addr) *addr = t->payload();
  if (size) *size = t->payload_size;
  return 0;  // no further blocks
}

int get_target_info(uint64_t*, ompt_id_t*, ompt_id_t*) { return 0; }
int get_num_devices() { return 0; }

// States and mutex implementations a tool may enumerate.
struct Named {
  int value;
  const char* name;
};
const Named kStates[] = {
#define BOBBIN_OMPT_STATE(name, value) {value, #name},
    FOREACH_OMPT_STATE(BOBBIN_OMPT_STATE)
#undef BOBBIN_OMPT_STATE
};
const Named kMutexImpls[] = {
#define BOBBIN_OMPT_IMPL(name, value) {value, #name},
    FOREACH_KMP_MUTEX_IMPL(BOBBIN_OMPT_IMPL)
#undef BOBBIN_OMPT_IMPL
};

// ompt_state_undefined starts the enumeration and is not one of its states.
int enumerate_states(int current, int* next, const char** name) {
  std::size_t n = sizeof kStates / sizeof kStates[0];
  std::size_t i = 0;
  if (current != ompt_state_undefined) {
    while (i < n && kStates[i].value != current) ++i;
    if (i == n) return 0;
    ++i;
  }
  while (i < n && kStates[i].value == ompt_state_undefined) ++i;
  if (i == n) return 0;
  *next = kStates[i].value;
  *name = kStates[i].name;
  return 1;
}

int enumerate_mutex_impls(int current, int* next, const char** name) {
  std::size_t n = sizeof kMutexImpls / sizeof kMutexImpls[0];
  if (current == kmp_mutex_impl_none) {
    *next = kMutexImpls[1].value;
    *name = kMutexImpls[1].name;
    return 1;
  }
  for (std::size_t i = 1; i + 1 < n; ++i) {
    if (kMutexImpls[i].value == current) {
      *next = kMutexImpls[i + 1].value;
      *name = kMutexImpls[i + 1].name;
      return 1;
    }
  }
  return 0;
}

void finish();
void finalize_tool() { finish(); }

struct Function {
  const char* name;
  ompt_interface_fn_t fn;
};
#define BOBBIN_OMPT_FN(name, f) {name, reinterpret_cast<ompt_interface_fn_t>(&f)}
const Function kFunctions[] = {
    BOBBIN_OMPT_FN("ompt_enumerate_states", enumerate_states),
    BOBBIN_OMPT_FN("ompt_enumerate_mutex_impls", enumerate_mutex_impls),
    BOBBIN_OMPT_FN("ompt_set_callback", set_callback),
    BOBBIN_OMPT_FN("ompt_get_callback", get_callback),
    BOBBIN_OMPT_FN("ompt_get_thread_data", get_thread_data),
    BOBBIN_OMPT_FN("ompt_get_num_procs", get_num_procs),
    BOBBIN_OMPT_FN("ompt_get_num_places", get_num_places),
    BOBBIN_OMPT_FN("ompt_get_place_proc_ids", get_place_proc_ids),
    BOBBIN_OMPT_FN("ompt_get_place_num", get_place_num),
    BOBBIN_OMPT_FN("ompt_get_partition_place_nums", get_partition_place_nums),
    BOBBIN_OMPT_FN("ompt_get_proc_id", get_proc_id),
    BOBBIN_OMPT_FN("ompt_get_state", get_state),
    BOBBIN_OMPT_FN("ompt_get_parallel_info", get_parallel_info),
    BOBBIN_OMPT_FN("ompt_get_task_info", get_task_info),
    BOBBIN_OMPT_FN("ompt_get_task_memory", get_task_memory),
    BOBBIN_OMPT_FN("ompt_get_target_info", get_target_info),
    BOBBIN_OMPT_FN("ompt_get_num_devices", get_num_devices),
    BOBBIN_OMPT_FN("ompt_get_unique_id", get_unique_id),
    BOBBIN_OMPT_FN("ompt_finalize_tool", finalize_tool),
};
#undef BOBBIN_OMPT_FN

ompt_interface_fn_t lookup(const char* name) {
  if (!name) return nullptr;
  for (const Function& f : kFunctions)
    if (std::strcmp(f.name, name) == 0) return f.fn;
  return nullptr;
}

// ---- discovery ------------------------------------------------------------

// OMP_TOOL_VERBOSE_INIT: where discovery says what it tried, in the
// layout tools' own tests read (LLVM's lit tests and Archer's match these
// lines): one START line, a line per step, its outcome appended to the
// step's line after " ... " (or on the next line when the tool printed
// something meanwhile), one END line, written before the tool's initializer
// runs.
struct InitLog {
  FILE* out = nullptr;
  bool own = false;
  explicit InitLog(const std::string& where) {
    if (where.empty() || where == "disabled" || where == "DISABLED") return;
    if (where == "stdout" || where == "STDOUT") out = stdout;
    else if (where == "stderr" || where == "STDERR") out = stderr;
    else {
      out = std::fopen(where.c_str(), "w");
      own = out != nullptr;
      if (!out)
        warn_setting("OMP_TOOL_VERBOSE_INIT", SettingWarning::NotApplied,
                     "OMP_TOOL_VERBOSE_INIT=%s: the file cannot be opened; not logging tool discovery", where.c_str());
    }
    print("----- START LOGGING OF TOOL REGISTRATION -----\n");
  }
  ~InitLog() { end(); }
  // The END line; the log is complete once discovery has decided.
  void end() {
    if (!out) return;
    print("----- END LOGGING OF TOOL REGISTRATION -----\n");
    std::fflush(out);
    if (own) std::fclose(out);
    out = nullptr;
  }
  void print(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    if (!out) return;
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(out, fmt, ap);
    va_end(ap);
    std::fflush(out);  // before the tool's own output, which shares the stream
  }
};

using StartTool = ompt_start_tool_result_t* (*)(unsigned int, const char*);

// The runtime's own ompt_start_tool (below) answers no tool; so does a peer
// runtime's (libomp's looks further itself, and is not ours to call).
bool foreign_runtime(void* fn) {
  Dl_info info;
  if (!dladdr(fn, &info) || !info.dli_fname) return false;
  const char* base = std::strrchr(info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  return std::strncmp(base, "libomp.so", 9) == 0 || std::strncmp(base, "libiomp5", 8) == 0 ||
         std::strncmp(base, "libgomp.so", 10) == 0;
}

// Whether `fn` is this library's own (weak) ompt_start_tool. Compared by
// module: the address of the name, taken here, is the interposing
// definition's when the program has one.
bool own_definition(void* fn) {
  Dl_info mine, theirs;
  if (!dladdr(reinterpret_cast<void*>(&lookup), &mine) || !dladdr(fn, &theirs)) return false;
  return mine.dli_fbase == theirs.dli_fbase;
}

// The first ompt_start_tool in the global scope's order (the program, then
// preloaded libraries, then the others as loaded) that is neither this
// library's nor a peer runtime's. RTLD_DEFAULT alone stops at the first
// definition, which is this library's when it comes before the tool: a tool
// preloaded after Bobbin, or linked after it (`-lomp tool.so`). The objects
// are listed first and looked into after: dlopen is not called while
// dl_iterate_phdr holds the loader's list.
void* find_start_tool() {
  void* fn = dlsym(RTLD_DEFAULT, "ompt_start_tool");
  if (!fn || (!own_definition(fn) && !foreign_runtime(fn))) return fn;
  std::vector<std::string> objects;  // "" for the program
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name ? info->dlpi_name : "");
        return 0;
      },
      &objects);
  for (const std::string& name : objects) {
    void* h = dlopen(name.empty() ? nullptr : name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    void* f = dlsym(h, "ompt_start_tool");  // also searches the object's dependencies
    // Only a definition in the object itself: its module is the handle's.
    Dl_info where;
    link_map* defined = nullptr;
    link_map* object = nullptr;
    bool here = f && dladdr1(f, &where, reinterpret_cast<void**>(&defined), RTLD_DL_LINKMAP) &&
                dlinfo(h, RTLD_DI_LINKMAP, &object) == 0 && defined == object;
    dlclose(h);
    if (here && !own_definition(f) && !foreign_runtime(f)) return f;
  }
  return nullptr;
}

constexpr unsigned kOmpVersion = 201811;  // _OPENMP of the compilers the ABI follows
constexpr const char* kRuntimeVersion = "Bobbin (OMPT 5.2 host interface)";

ompt_start_tool_result_t* discover(InitLog& log) {
  log.print("Search for OMP tool in current address space... ");
  if (void* fn = find_start_tool()) {
    if (auto* r = reinterpret_cast<StartTool>(fn)(kOmpVersion, kRuntimeVersion)) {
      log.print("Success.\nTool was started and is using the OMPT interface.\n");
      return r;
    }
  }
  log.print("Failed.\n");
  const std::string& libs = settings().tool_libraries;
  if (libs.empty()) {
    log.print("No OMP_TOOL_LIBRARIES defined.\n...searching tool libraries failed.\nNo OMP tool loaded.\n");
    return nullptr;
  }
  log.print("Searching tool libraries...\nOMP_TOOL_LIBRARIES = %s\n", libs.c_str());
  std::size_t pos = 0;
  while (pos <= libs.size()) {
    std::size_t end = libs.find(':', pos);
    if (end == std::string::npos) end = libs.size();
    std::string path = libs.substr(pos, end - pos);
    pos = end + 1;
    if (path.empty()) continue;
    log.print("Opening %s... ", path.c_str());
    void* h = dlopen(path.c_str(), RTLD_LAZY);
    if (!h) {
      const char* err = dlerror();
      log.print("Failed: %s\n", err ? err : "(no reason given)");
      continue;
    }
    log.print("Success.\nSearching for ompt_start_tool in %s... ", path.c_str());
    dlerror();
    void* f = dlsym(h, "ompt_start_tool");
    if (!f) {
      const char* err = dlerror();
      log.print("Failed: %s\n", err ? err : "ompt_start_tool is NULL");
      continue;
    }
    if (auto* r = reinterpret_cast<StartTool>(f)(kOmpVersion, kRuntimeVersion)) {
      log.print("Success.\nTool was started and is using the OMPT interface.\n");
      return r;
    }
    log.print("Found but not using the OMPT interface.\nContinuing search...\n");
  }
  log.print("...searching tool libraries failed.\nNo OMP tool loaded.\n");
  return nullptr;
}

void implicit_initial(Thread* th, ompt_scope_endpoint_t ep) {
  if (auto f = OMPT_CB(ompt_callback_implicit_task)) {
    Task* t = th->current_task;
    // At the end too, the implicit parallel region (a tool frees what it
    // keeps there); libomp 14 reports an actual parallelism of 0 then.
    f(ep, &th->team->ompt.data, &t->ompt.data, ep == ompt_scope_begin ? 1 : 0, 1, ompt_task_initial);
  }
}

Atomic<bool> g_finished{false};

void finish() {
  if (!g_tool || g_finished.exchange(true, memory_order_acq_rel)) return;
  std::vector<Thread*> initials;
  {
    std::lock_guard<std::mutex> g(g_threads_mutex);
    initials = g_initials;
  }
  initials.insert(initials.begin(), g_initial);
  for (Thread* th : initials) {
    if (!th || !th->current_task || !th->team || th->team->level != 0) continue;
    t_ending = th;
    implicit_initial(th, ompt_scope_end);
    t_ending = nullptr;
  }
  // Each thread's end on a kernel thread of its own: tools keep per-thread
  // state in thread-local storage (Archer frees its pools in thread_end), and
  // the OpenMP threads' kernel threads (the workers) are not at hand here.
  // The program's thread's own end comes last, here.
  if (auto f = OMPT_CB(ompt_callback_thread_end)) {
    std::vector<Thread*> threads;
    {
      std::lock_guard<std::mutex> g(g_threads_mutex);
      threads = g_threads;
    }
    Thread* self = here();
    for (Thread* th : threads) {
      if (th == self) continue;
      auto end_one = [f, th] {
        t_ending = th;
        f(&th->ompt.data);
        t_ending = nullptr;
      };
      try {
        std::thread(end_one).join();
      } catch (const std::system_error&) {
        end_one();  // no thread to spare: on this one
      }
    }
    if (self && self->ompt.begun) {
      t_ending = self;
      f(&self->ompt.data);
      t_ending = nullptr;
    }
  }
  g_state.store(1, memory_order_relaxed);
  if (g_tool->finalize) g_tool->finalize(&g_tool->tool_data);
  for (auto& c : g_cb) c.store(nullptr, memory_order_relaxed);
}

}  // namespace

void start(Thread* initial) {
  const Settings& st = settings();
  InitLog log(st.tool_verbose_init);
  if (!st.tool) {
    log.print("OMP_TOOL=disabled: no tool is searched for.\n");
    g_state.store(1, memory_order_relaxed);
    return;
  }
  ompt_start_tool_result_t* r = discover(log);
  log.end();
  if (!r) {
    g_state.store(1, memory_order_relaxed);
    return;
  }
  g_tool = r;
  g_initial = initial;
  if (!r->initialize || !r->initialize(&lookup, /*initial_device_num=*/0, &r->tool_data)) {
    g_state.store(1, memory_order_relaxed);
    g_tool = nullptr;
    for (auto& c : g_cb) c.store(nullptr, memory_order_relaxed);
    return;
  }
  g_state.store(2, memory_order_relaxed);
  std::atexit(&finish);
  thread_begin(initial, ompt_thread_initial);
  initial->current_task->ompt.type = ompt_task_initial;
  implicit_initial(initial, ompt_scope_begin);
}

void initial_thread_begin(Thread* th) {
  if (!on()) return;
  thread_begin(th, ompt_thread_initial);
  th->current_task->ompt.type = ompt_task_initial;
  implicit_initial(th, ompt_scope_begin);
  std::lock_guard<std::mutex> g(g_threads_mutex);
  g_initials.push_back(th);
}

// ---- frames and return addresses -----------------------------------------------

void Entry::enter(void* fp, const void* ra) {
  if (g_state.load(memory_order_relaxed) == 0) ensure_initialized();
  if (!on()) return;
  Thread* th = running_thread();
  if (!th) return;
  if (Task* t = th->current_task; t && !t->ompt.frame.enter_frame.ptr) {
    t->ompt.frame.enter_frame.ptr = fp;
    t->ompt.frame.enter_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
    task = t;
  }
  if (!th->ompt.ra) {
    th->ompt.ra = ra;
    set_ra = true;
  }
}

void Entry::leave() {
  if (task) {
    task->ompt.frame.enter_frame.ptr = nullptr;
    task->ompt.frame.enter_frame_flags = 0;
  }
  if (set_ra) {
    if (Thread* th = running_thread()) th->ompt.ra = nullptr;
  }
}

void set_exit_frame(void* fp) {
  Thread* th = running_thread();
  if (!th || !th->current_task) return;
  th->current_task->ompt.frame.exit_frame.ptr = fp;
  th->current_task->ompt.frame.exit_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
}

void clear_enter_frame() {
  Thread* th = running_thread();
  if (th && th->current_task) th->current_task->ompt.frame.enter_frame = ompt_frame_t{}.enter_frame;
}

const void* user_code_begin(Thread* th) {
  const void* ra = th->ompt.ra;
  th->ompt.ra = nullptr;
  return ra;
}

void user_code_end(Thread* th, Task* t, const void* saved_ra) {
  if (t) {
    t->ompt.frame.exit_frame.ptr = nullptr;
    t->ompt.frame.exit_frame_flags = 0;
  }
  th->ompt.ra = saved_ra;
}

const void* return_address() {
  Thread* th = here();
  return th ? th->ompt.ra : nullptr;
}

// ---- callbacks ----------------------------------------------------------------

void thread_begin(Thread* th, ompt_thread_t type) {
  if (th->ompt.begun) return;
  th->ompt.begun = true;
  {
    std::lock_guard<std::mutex> g(g_threads_mutex);
    g_threads.push_back(th);
  }
  if (auto f = OMPT_CB(ompt_callback_thread_begin)) f(type, &th->ompt.data);
}

void parallel_begin(Thread* master, Team* team, int requested, bool runtime_invoker, bool league) {
  team->ompt.data = ompt_data_t{};
  team->ompt.ra = master->ompt.ra;
  team->ompt.flags = (runtime_invoker ? ompt_parallel_invoker_runtime : ompt_parallel_invoker_program) |
                     (league ? ompt_parallel_league : ompt_parallel_team);
  if (auto f = OMPT_CB(ompt_callback_parallel_begin)) {
    Task* enc = team->saved.current_task;
    f(&enc->ompt.data, &enc->ompt.frame, &team->ompt.data, unsigned(requested), team->ompt.flags, team->ompt.ra);
  }
}

void parallel_end(Thread* master, Team* team) {
  (void)master;
  if (auto f = OMPT_CB(ompt_callback_parallel_end)) {
    Task* enc = team->saved.current_task;
    f(&team->ompt.data, &enc->ompt.data, team->ompt.flags, team->ompt.ra);
  }
}

void implicit_task_begin(Thread* th, Team* team, int tid) {
  thread_begin(th, ompt_thread_worker);
  Task* t = &team->implicit[std::size_t(tid)];
  t->ompt = TaskState{};
  t->ompt.type = ompt_task_implicit | ompt_task_undeferred;  // as libomp reports them
  th->ompt.state = ompt_state_work_parallel;
  if (auto f = OMPT_CB(ompt_callback_implicit_task))
    f(ompt_scope_begin, &team->ompt.data, &t->ompt.data, unsigned(team->nthreads), unsigned(tid), ompt_task_implicit);
}

void implicit_task_end(Thread* th, Team* team, int tid) {
  (void)th;
  Task* t = &team->implicit[std::size_t(tid)];
  if (auto f = OMPT_CB(ompt_callback_implicit_task))
    f(ompt_scope_end, nullptr, &t->ompt.data, unsigned(team->nthreads), unsigned(tid), ompt_task_implicit);
}

void league_initial_task(Thread* th, Team* own, ompt_scope_endpoint_t ep) {
  // A team's initial thread other than the encountering one is a new OpenMP
  // thread to a tool: it begins before anything it reports.
  if (ep == ompt_scope_begin) thread_begin(th, ompt_thread_worker);
  Task* t = &own->implicit[0];
  Team* league = own->parent;
  if (ep == ompt_scope_begin) {
    t->ompt = TaskState{};
    t->ompt.type = ompt_task_initial;
  }
  if (auto f = OMPT_CB(ompt_callback_implicit_task))
    f(ep, league ? &league->ompt.data : nullptr, &t->ompt.data,
      ep == ompt_scope_begin ? unsigned(own->league_size) : 0u, unsigned(own->league_num), ompt_task_initial);
}

// The implicit task's data takes the initial task's place in the Task for
// as long as the body runs, so that what the body reports (a parallel
// region's encountering task, task queries) names the implicit task; the
// initial task's data comes back before its end is reported.
void league_team_region(Thread* th, Team* own, ompt_scope_endpoint_t ep) {
  Task* t = &own->implicit[0];
  const void* ra = th->ompt.ra;
  int flags = ompt_parallel_invoker_runtime | ompt_parallel_team;
  if (ep == ompt_scope_begin) {
    own->ompt.inner = ompt_data_t{};
    if (auto f = OMPT_CB(ompt_callback_parallel_begin)) f(&t->ompt.data, &t->ompt.frame, &own->ompt.inner, 1, flags, ra);
    own->ompt.initial_task = t->ompt.data;
    t->ompt.data = ompt_data_t{};
    if (auto f = OMPT_CB(ompt_callback_implicit_task))
      f(ompt_scope_begin, &own->ompt.inner, &t->ompt.data, 1, 0, ompt_task_implicit);
    return;
  }
  if (auto f = OMPT_CB(ompt_callback_implicit_task)) f(ompt_scope_end, nullptr, &t->ompt.data, 1, 0, ompt_task_implicit);
  t->ompt.data = own->ompt.initial_task;
  if (auto f = OMPT_CB(ompt_callback_parallel_end)) f(&own->ompt.inner, &t->ompt.data, flags, ra);
}

void task_create(Thread* th, Task* t, int type, bool has_deps) {
  t->ompt.data = ompt_data_t{};
  t->ompt.frame = ompt_frame_t{};
  t->ompt.type = type;
  if (auto f = OMPT_CB(ompt_callback_task_create)) {
    Task* enc = th->current_task;
    f(enc ? &enc->ompt.data : nullptr, enc ? &enc->ompt.frame : nullptr, &t->ompt.data, type, has_deps ? 1 : 0,
      th->ompt.ra);
  }
}

void task_schedule(Task* prior, ompt_task_status_t status, Task* next) {
  if (auto f = OMPT_CB(ompt_callback_task_schedule))
    f(&prior->ompt.data, status, next ? &next->ompt.data : nullptr);
}

namespace {
void report_dependences(ompt_data_t* task_data, const void* items, int n) {
  auto f = OMPT_CB(ompt_callback_dependences);
  if (!f) return;
  const auto* it = static_cast<const DepItem*>(items);
  std::vector<ompt_dependence_t> deps(std::size_t(n > 0 ? n : 0));
  for (int i = 0; i < n; ++i) {
    ompt_dependence_t& d = deps[std::size_t(i)];
    d.variable.ptr = reinterpret_cast<void*>(it[i].addr);
    switch (it[i].kind) {
      case kDepIn: d.dependence_type = ompt_dependence_type_in; break;
      case kDepOut: d.dependence_type = ompt_dependence_type_out; break;
      case kDepInout: d.dependence_type = ompt_dependence_type_inout; break;
      case kDepMutexInoutset: d.dependence_type = ompt_dependence_type_mutexinoutset; break;
      case kDepInoutset: d.dependence_type = ompt_dependence_type_inoutset; break;
      default: d.dependence_type = ompt_dependence_type_out; d.variable.ptr = nullptr; break;  // omp_all_memory
    }
  }
  f(task_data, deps.data(), n);
}
}  // namespace

void dependences(Task* t, const void* items, int n) { report_dependences(&t->ompt.data, items, n); }


void doacross_start(int dims) {
  if (Thread* th = here()) th->ompt.doacross_dims = dims;
}

void doacross_dependence(bool source, const int64_t* vec) {
  Thread* th = here();
  auto f = OMPT_CB(ompt_callback_dependences);
  if (!th || !f || !th->current_task) return;
  int n = th->ompt.doacross_dims;
  std::vector<ompt_dependence_t> deps(std::size_t(n > 0 ? n : 0));
  for (int i = 0; i < n; ++i) {
    deps[std::size_t(i)].variable.value = uint64_t(vec[i]);
    deps[std::size_t(i)].dependence_type = source ? ompt_dependence_type_source : ompt_dependence_type_sink;
  }
  f(&th->current_task->ompt.data, deps.data(), n);
}

void taskwait_deps_begin(Thread* th, TaskState& tw, const void* items, int n) {
  tw = TaskState{};
  tw.type = ompt_task_taskwait | ompt_task_undeferred | ompt_task_mergeable;
  if (auto f = OMPT_CB(ompt_callback_task_create)) {
    Task* enc = th->current_task;
    f(enc ? &enc->ompt.data : nullptr, enc ? &enc->ompt.frame : nullptr, &tw.data, tw.type, 1, th->ompt.ra);
  }
  report_dependences(&tw.data, items, n);
}

void taskwait_deps_end(Thread* th, TaskState& tw) {
  if (auto f = OMPT_CB(ompt_callback_task_schedule))
    f(&tw.data, ompt_taskwait_complete, th->current_task ? &th->current_task->ompt.data : nullptr);
}

void task_dependence(Task* pred, Task* succ) {
  if (auto f = OMPT_CB(ompt_callback_task_dependence)) f(&pred->ompt.data, &succ->ompt.data);
}

namespace {
ompt_state_t wait_state(ompt_sync_region_t kind) {
  switch (kind) {
    case ompt_sync_region_barrier_implicit_parallel: return ompt_state_wait_barrier_implicit_parallel;
    case ompt_sync_region_barrier_implicit_workshare: return ompt_state_wait_barrier_implicit_workshare;
    case ompt_sync_region_barrier_explicit: return ompt_state_wait_barrier_explicit;
    case ompt_sync_region_taskwait: return ompt_state_wait_taskwait;
    case ompt_sync_region_taskgroup: return ompt_state_wait_taskgroup;
    default: return ompt_state_wait_barrier;
  }
}
ompt_data_t* parallel_of(Thread* th) { return th->team ? &th->team->ompt.data : nullptr; }
ompt_data_t* task_of(Thread* th) { return th->current_task ? &th->current_task->ompt.data : nullptr; }
}  // namespace

void sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, Thread* th, const void* ra) {
  if (auto f = OMPT_CB(ompt_callback_sync_region)) f(kind, ep, parallel_of(th), task_of(th), ra);
}

void sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, Thread* th, const void* ra) {
  th->ompt.state = ep == ompt_scope_begin ? wait_state(kind) : working_state(th);
  if (auto f = cb<ompt_callback_sync_region_t>(ompt_callback_sync_region_wait)) f(kind, ep, parallel_of(th), task_of(th), ra);
}

void sync_enter(ompt_sync_region_t kind, Thread* th, const void* ra) {
  sync_region(kind, ompt_scope_begin, th, ra);
  sync_region_wait(kind, ompt_scope_begin, th, ra);
}

void sync_leave(ompt_sync_region_t kind, Thread* th, const void* ra) {
  sync_region_wait(kind, ompt_scope_end, th, ra);
  sync_region(kind, ompt_scope_end, th, ra);
}

void join_barrier_leave(Thread* th, const void* ra) {
  th->ompt.state = ompt_state_work_parallel;
  if (auto f = cb<ompt_callback_sync_region_t>(ompt_callback_sync_region_wait))
    f(kImplicitBarrier, ompt_scope_end, nullptr, task_of(th), ra);
  if (auto f = OMPT_CB(ompt_callback_sync_region)) f(kImplicitBarrier, ompt_scope_end, nullptr, task_of(th), ra);
}

void work(ompt_work_t kind, ompt_scope_endpoint_t ep, Thread* th, uint64_t count, const void* ra) {
  if (auto f = OMPT_CB(ompt_callback_work)) f(kind, ep, parallel_of(th), task_of(th), count, ra);
}

void dispatch(Thread* th, ompt_dispatch_t kind, ompt_data_t instance) {
  if (auto f = OMPT_CB(ompt_callback_dispatch)) f(parallel_of(th), task_of(th), kind, instance);
}

void masked(ompt_scope_endpoint_t ep, Thread* th, const void* ra) {
  if (auto f = OMPT_CB(ompt_callback_masked)) f(ep, parallel_of(th), task_of(th), ra);
}

void reduction(ompt_scope_endpoint_t ep, Thread* th, const void* ra) {
  if (auto f = cb<ompt_callback_sync_region_t>(ompt_callback_reduction))
    f(ompt_sync_region_reduction, ep, parallel_of(th), task_of(th), ra);
}

void mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, const void* wait_id, const void* ra) {
  if (Thread* th = here()) {
    th->ompt.wait_id = ompt_wait_id_t(reinterpret_cast<uintptr_t>(wait_id));
  }
  if (auto f = OMPT_CB(ompt_callback_mutex_acquire))
    f(kind, hint, impl, ompt_wait_id_t(reinterpret_cast<uintptr_t>(wait_id)), ra);
}

void mutex_acquired(ompt_mutex_t kind, const void* wait_id, const void* ra) {
  if (auto f = cb<ompt_callback_mutex_t>(ompt_callback_mutex_acquired))
    f(kind, ompt_wait_id_t(reinterpret_cast<uintptr_t>(wait_id)), ra);
}

void mutex_released(ompt_mutex_t kind, const void* wait_id, const void* ra) {
  if (auto f = cb<ompt_callback_mutex_t>(ompt_callback_mutex_released))
    f(kind, ompt_wait_id_t(reinterpret_cast<uintptr_t>(wait_id)), ra);
}

void nest_lock(ompt_scope_endpoint_t ep, const void* wait_id, const void* ra) {
  if (auto f = OMPT_CB(ompt_callback_nest_lock)) f(ep, ompt_wait_id_t(reinterpret_cast<uintptr_t>(wait_id)), ra);
}

void lock_init(ompt_mutex_t kind, unsigned hint, unsigned impl, const void* wait_id, const void* ra) {
  if (auto f = cb<ompt_callback_mutex_acquire_t>(ompt_callback_lock_init))
    f(kind, hint, impl, ompt_wait_id_t(reinterpret_cast<uintptr_t>(wait_id)), ra);
}

void lock_destroy(ompt_mutex_t kind, const void* wait_id, const void* ra) {
  if (auto f = cb<ompt_callback_mutex_t>(ompt_callback_lock_destroy))
    f(kind, ompt_wait_id_t(reinterpret_cast<uintptr_t>(wait_id)), ra);
}

void cancel(Thread* th, int flags, const void* ra) {
  if (auto f = OMPT_CB(ompt_callback_cancel)) f(task_of(th), flags, ra);
}

void flush(Thread* th, const void* ra) {
  if (auto f = OMPT_CB(ompt_callback_flush)) f(&th->ompt.data, ra);
}

int control_tool(uint64_t command, uint64_t modifier, void* arg, const void* ra) {
  if (!on()) return omp_control_tool_notool;
  auto f = OMPT_CB(ompt_callback_control_tool);
  if (!f) return omp_control_tool_nocallback;
  return f(command, modifier, arg, ra);
}

void error(bool fatal, const char* message, std::size_t length, const void* ra) {
  if (auto f = OMPT_CB(ompt_callback_error)) f(fatal ? ompt_fatal : ompt_warning, message, length, ra);
}

void set_state(Thread* th, ompt_state_t s, ompt_wait_id_t wait_id) {
  th->ompt.state = s;
  th->ompt.wait_id = wait_id;
}

// ---- traced operations ------------------------------------------------------------
// Bobbin's locks spin a while and then park (sync.cpp): libomp's name for
// that is a queuing lock.
namespace {
constexpr unsigned kLockImpl = kmp_mutex_impl_queuing;

// A nestable lock's owner and depth (sync.cpp's NestWords): whether the
// current task holds it already, so a set or test only nests.
bool nest_held_by_me(void* lock, int* depth) {
  struct Words {
    Atomic<uint32_t> owner;
    uint32_t count;
  };
  auto* w = static_cast<Words*>(lock);
  Thread* th = here();
  if (!th || !th->current_task || th->current_task->lock_owner == 0) return false;
  if ((w->owner.load(memory_order_relaxed) & 0x7fffffffu) != th->current_task->lock_owner) return false;
  if (depth) *depth = int(w->count);
  return true;
}
}  // namespace

void traced_lock_init(void* lock, bool nest, unsigned hint, const void* ra) {
  if (nest) nest_lock_init(lock);
  else rt::lock_init(lock);
  ompt::lock_init(nest ? ompt_mutex_nest_lock : ompt_mutex_lock, hint, kLockImpl, lock, ra);
}

void traced_lock_destroy(void* lock, bool nest, const void* ra) {
  if (nest) nest_lock_destroy(lock);
  else rt::lock_destroy(lock);
  ompt::lock_destroy(nest ? ompt_mutex_nest_lock : ompt_mutex_lock, lock, ra);
}

void traced_lock_set(void* lock, const void* ra) {
  mutex_acquire(ompt_mutex_lock, 0, kLockImpl, lock, ra);
  rt::lock_set(lock);
  mutex_acquired(ompt_mutex_lock, lock, ra);
}

void traced_lock_unset(void* lock, const void* ra) {
  rt::lock_unset_inline(lock);
  mutex_released(ompt_mutex_lock, lock, ra);
}

// omp_test_lock and omp_test_nest_lock report the kinds of the set routines,
// as libomp 14 does.
int traced_lock_test(void* lock, const void* ra) {
  mutex_acquire(ompt_mutex_lock, 0, kLockImpl, lock, ra);
  bool got = rt::lock_test(lock);
  if (got) mutex_acquired(ompt_mutex_lock, lock, ra);
  return got ? 1 : 0;
}

// A set of a nestable lock the task holds already only nests: the wait,
// then nest_lock's begin instead of the acquisition.
void traced_nest_lock_set(void* lock, const void* ra) {
  mutex_acquire(ompt_mutex_nest_lock, 0, kLockImpl, lock, ra);
  bool held = nest_held_by_me(lock, nullptr);
  rt::nest_lock_set(lock);
  if (held) nest_lock(ompt_scope_begin, lock, ra);
  else mutex_acquired(ompt_mutex_nest_lock, lock, ra);
}

void traced_nest_lock_unset(void* lock, const void* ra) {
  int depth = 0;
  bool mine = nest_held_by_me(lock, &depth);
  rt::nest_lock_unset(lock);
  if (mine && depth > 1) nest_lock(ompt_scope_end, lock, ra);
  else mutex_released(ompt_mutex_nest_lock, lock, ra);
}

int traced_nest_lock_test(void* lock, const void* ra) {
  mutex_acquire(ompt_mutex_nest_lock, 0, kLockImpl, lock, ra);
  bool held = nest_held_by_me(lock, nullptr);
  int d = rt::nest_lock_test(lock);
  if (d && held) nest_lock(ompt_scope_begin, lock, ra);
  else if (d) mutex_acquired(ompt_mutex_nest_lock, lock, ra);
  return d;
}

void traced_critical_begin(void* name, unsigned hint, const void* ra) {
  Thread* th = here();
  mutex_acquire(ompt_mutex_critical, hint, kLockImpl, name, ra);
  if (th) set_state(th, ompt_state_wait_critical, ompt_wait_id_t(reinterpret_cast<uintptr_t>(name)));
  rt::critical_begin(name);
  if (th) set_state(th, working_state(th));
  mutex_acquired(ompt_mutex_critical, name, ra);
}

void traced_critical_end(void* name, const void* ra) {
  rt::critical_end(name);
  mutex_released(ompt_mutex_critical, name, ra);
}

void traced_barrier(ompt_sync_region_t kind, const void* ra) {
  Thread* th = current_thread_fast();
  sync_enter(kind, th, ra);
  rt::barrier();
  sync_leave(kind, th, ra);
}

bool traced_masked_begin(int filter, const void* ra) {
  bool mine = rt::masked_begin(filter);
  if (mine) masked(ompt_scope_begin, current_thread_fast(), ra);
  return mine;
}

void traced_masked_end(const void* ra) { masked(ompt_scope_end, current_thread_fast(), ra); }

bool traced_single_begin(const void* ra) {
  Thread* th = current_thread_fast();
  bool mine = rt::single_begin();
  work(mine ? ompt_work_single_executor : ompt_work_single_other, ompt_scope_begin, th, 1, ra);
  if (!mine) work(ompt_work_single_other, ompt_scope_end, th, 1, ra);
  return mine;
}

bool traced_single_start(const void* ra) {
  bool mine = traced_single_begin(ra);
  if (mine) work(ompt_work_single_executor, ompt_scope_end, current_thread_fast(), 1, ra);
  return mine;
}

void work_here(ompt_work_t kind, ompt_scope_endpoint_t ep, uint64_t count, const void* ra) {
  if (Thread* th = here()) work(kind, ep, th, count, ra);
}

void dispatch_chunk_here(int64_t first) {
  Thread* th = here();
  if (!th) return;
  ompt_data_t instance{};
  instance.value = uint64_t(first);
  dispatch(th, ompt_dispatch_iteration, instance);
}

// The wait id of an ordered region: its team (one ordered sequence per loop).
void traced_ordered_begin(const void* ra) {
  Thread* th = current_thread_fast();
  const void* id = th->team;
  mutex_acquire(ompt_mutex_ordered, 0, kLockImpl, id, ra);
  rt::ordered_begin();
  mutex_acquired(ompt_mutex_ordered, id, ra);
}

void traced_ordered_end(const void* ra) {
  Thread* th = current_thread_fast();
  const void* id = th->team;
  rt::ordered_end();
  mutex_released(ompt_mutex_ordered, id, ra);
}

// A thread's part of a reduction is from its call to the combination of its
// value: the end is at reduce_end when it combines there (1), else at once.
// A blocking reduction (a loop's without nowait) is also a barrier the
// runtime adds (ompt_sync_region_barrier_implementation, as libomp reports
// it): the threads that do not combine wait in reduce_begin, the one that
// does until its reduce_end.
int traced_reduce_begin(void* data, void (*combine)(void*, void*), bool blocking, bool atomic_ok, const void* ra) {
  Thread* th = current_thread_fast();
  bool barrier = blocking && th->team->nthreads > 1;
  if (barrier) sync_enter(ompt_sync_region_barrier_implementation, th, ra);
  reduction(ompt_scope_begin, th, ra);
  int rc = rt::reduce_begin(data, combine, blocking, atomic_ok);
  if (rc == 1) {
    th->ompt.reducing = true;
    th->ompt.reduce_barrier = barrier;
    return rc;
  }
  reduction(ompt_scope_end, th, ra);
  if (barrier) sync_leave(ompt_sync_region_barrier_implementation, th, ra);
  return rc;
}

void traced_reduce_end(bool blocking, const void* ra) {
  Thread* th = current_thread_fast();
  bool owed = th->ompt.reducing, barrier = th->ompt.reduce_barrier;
  th->ompt.reducing = th->ompt.reduce_barrier = false;
  rt::reduce_end(blocking);
  if (owed) reduction(ompt_scope_end, th, ra);
  if (barrier) sync_leave(ompt_sync_region_barrier_implementation, th, ra);
}

bool traced_cancel_barrier(ompt_sync_region_t kind, const void* ra) {
  Thread* th = current_thread_fast();
  sync_enter(kind, th, ra);
  bool cancelled = rt::cancel_barrier();
  sync_leave(kind, th, ra);
  return cancelled;
}

namespace {
int cancel_flag(int kind) {
  switch (kind) {
    case 1: return ompt_cancel_parallel;
    case 2: return ompt_cancel_loop;
    case 3: return ompt_cancel_sections;
    case 4: return ompt_cancel_taskgroup;
    default: return 0;
  }
}
}  // namespace

bool traced_cancel(int kind, const void* ra) {
  bool done = rt::cancel(kind);
  if (done) cancel(current_thread_fast(), cancel_flag(kind) | ompt_cancel_activated, ra);
  return done;
}

bool traced_cancellation_point(int kind, const void* ra) {
  bool seen = rt::cancellation_point(kind);
  if (seen) cancel(current_thread_fast(), cancel_flag(kind) | ompt_cancel_detected, ra);
  return seen;
}

void task_discarded(Thread* th, Task* t) {
  (void)th;
  if (auto f = OMPT_CB(ompt_callback_cancel))
    f(&t->ompt.data, ompt_cancel_taskgroup | ompt_cancel_discarded_task, nullptr);
}

void traced_flush(const void* ra) {
  if (Thread* th = here()) flush(th, ra);
}

void traced_single_end(const void* ra) {
  rt::single_end();
  work(ompt_work_single_executor, ompt_scope_end, current_thread_fast(), 1, ra);
}

}  // namespace bobbin::rt::ompt

// The runtime's own ompt_start_tool, weak, as the spec's discovery asks of
// every implementation: a program linked against this library that defines
// one of its own has it exported (the link sees a shared library defining
// the name), so discovery finds it. This one is never a tool.
extern "C" __attribute__((weak, visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(unsigned int,
                                                                                                const char*) {
  return nullptr;
}
