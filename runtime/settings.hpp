// Every OMP_*, KMP_* and BOBBIN_* variable, in one table (settings.cpp): name,
// type, default, parser, printer and a one-line doc. Read once at start-up.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/api.hpp"

namespace bobbin::rt {

// OMP_ALLOCATOR: a predefined allocator, or a predefined memory space with
// traits (spec 21.5.1); alloc.cpp parses it and builds the allocator.
struct AllocatorSetting {
  uintptr_t predefined = 1;  // an omp_allocator_handle_t below 100; 0 when `memspace` is used
  uintptr_t memspace = 0;    // omp_memspace_handle_t
  std::vector<std::pair<int, uintptr_t>> traits;  // (omp_alloctrait_key_t, value)
  std::string text;          // normalised, for displays
};

struct Settings {
  std::vector<int> num_threads;      // OMP_NUM_THREADS, one value per nesting level; empty = default
  Schedule schedule{1, 0, false};    // OMP_SCHEDULE (run-sched-var); static by default, as libomp
  bool dynamic = false;              // OMP_DYNAMIC
  int max_active_levels = -1;        // OMP_MAX_ACTIVE_LEVELS / OMP_NESTED; -1 = derive
  bool nested_set = false, nested = false;  // OMP_NESTED given?
  int thread_limit = 0;              // OMP_THREAD_LIMIT, 0 = unlimited
  std::size_t stacksize = 4u << 20;  // OMP_STACKSIZE / KMP_STACKSIZE; default: the system thread stack, at least this
  int wait_policy = 0;               // OMP_WAIT_POLICY: 0 unset, 1 active, 2 passive
  int64_t blocktime_us = 200'000;    // KMP_BLOCKTIME or GOMP_SPINCOUNT (us); INT64_MAX = infinite
  std::string gomp_spincount;        // GOMP_SPINCOUNT as given, for displays
  std::string display_env;           // OMP_DISPLAY_ENV
  bool kmp_settings = false;         // KMP_SETTINGS: print the settings at start-up, libomp's way
  int max_task_priority = 0;         // OMP_MAX_TASK_PRIORITY
  bool cancellation = false;         // OMP_CANCELLATION
  std::string places;                // OMP_PLACES, raw (parsed by places.cpp against the topology)
  std::string proc_bind;             // OMP_PROC_BIND, raw (parsed by places.cpp)
  std::string kmp_affinity;          // KMP_AFFINITY, raw (mapped onto places by places.cpp)
  int nested_mode = 1;               // BOBBIN_NESTED / OMP_GANG_SCHED: 1 gang, 2 steal
  int wide_teams = 0;                // BOBBIN_WIDE_TEAMS: 0 auto, 1 threads, 2 fibers
  int nested_threads = 0;            // BOBBIN_NESTED_THREADS: 0 auto, 1 threads, 2 fibers
  int num_teams = 0;                 // OMP_NUM_TEAMS, 0 = unset
  int teams_thread_limit = 0;        // OMP_TEAMS_THREAD_LIMIT, 0 = unset
  int teams_proc_bind = 4;           // KMP_TEAMS_PROC_BIND: how teams' initial threads are placed (spread)
  int default_device = 0;            // OMP_DEFAULT_DEVICE (default-device-var)
  bool display_affinity = false;     // OMP_DISPLAY_AFFINITY (display-affinity-var)
  std::string affinity_format;       // OMP_AFFINITY_FORMAT (affinity-format-var)
  AllocatorSetting allocator;        // OMP_ALLOCATOR (def-allocator-var)
  bool tool = true;                  // OMP_TOOL (tool-var): enabled unless disabled
  bool tool_set = false;             // OMP_TOOL given?
  std::string tool_libraries;        // OMP_TOOL_LIBRARIES (tool-libraries-var)
  std::string tool_verbose_init;     // OMP_TOOL_VERBOSE_INIT (tool-verbose-init-var)
  int target_offload = 0;            // OMP_TARGET_OFFLOAD: 0 default, 1 mandatory, 2 disabled
  bool debug = false;                // OMP_DEBUG (debug-var)
  int watchdog_s = 30;               // BOBBIN_WATCHDOG: seconds without progress before the report; 0 off
  int stuck_us = 2000;               // BOBBIN_STUCK_US: a worker held this long with fibers queued is rescued
  bool preempt = true;               // BOBBIN_PREEMPT: the rescue may preempt a fiber (ult/preempt_linux.cpp)
  int mold = 0;                      // BOBBIN_MOLD: 0 auto (nested regions with dyn-var true), 1 on (every nested region), -1 off
  std::string task_sched = "steal";  // BOBBIN_SCHED: the task scheduler's row (scheduler/sched_registry.cpp)
  int tree_threshold = -1;           // BOBBIN_TREE_THRESHOLD: -1 dynamic
  int polling_slots = -1;            // BOBBIN_POLLING_SLOTS: -1 the scheduler's default, 0 off, 1 on (task.cpp)
  bool immediate_successor = false;  // BOBBIN_IMMEDIATE_SUCCESSOR: a finished task's first ready successor runs next (task.cpp)
  bool mpi_fiber_wait = true;        // BOBBIN_MPI_WAIT: blocking MPI calls on a worker wait as fibers (ult/mpi_wait.cpp)
  bool task_throttling = true;       // KMP_ENABLE_TASK_THROTTLING: a creator may run a new task at once (task.cpp)
  int disp_num_buffers = 7;          // KMP_DISP_NUM_BUFFERS: dynamic loops in flight per team (loop_state.hpp)
  bool hidden_helper_tasks = true;   // LIBOMP_USE_HIDDEN_HELPER_TASK: target tasks run on hidden helpers
  int hidden_helper_threads = 8;     // LIBOMP_NUM_HIDDEN_HELPER_THREADS (0: none, target tasks are ordinary)
  std::string trace_file;            // BOBBIN_TRACE: where the scheduler trace goes at exit (trace.cpp); empty: none
};

// Parses the environment (once). Bad values warn and keep the default.
const Settings& settings();
// For the libomp extensions that change a setting at run time (kmp_ext.cpp):
// kmp_set_stacksize, kmp_set_blocktime, kmp_set_library.
Settings& mutable_settings();
// Parses one variable as if it came from the environment (kmp_set_defaults);
// false if the name is unknown or the value invalid (which warns).
bool apply_setting(const std::string& name, const std::string& value);
// One row of the table as displays show it (OMP_DISPLAY_ENV, bobbin-info).
struct SettingLine {
  std::string name, value, doc;
  bool vendor;  // a KMP_* or BOBBIN_* variable: shown under verbose only
};
// Every variable with the initial value of what it sets; vendor rows only if
// `verbose`. Call after initialisation for the values the runtime derived
// (places, binding).
std::vector<SettingLine> describe_settings(bool verbose);

// Bounds of KMP_DISP_NUM_BUFFERS, libomp's: a ring of one buffer serialises
// the loops of a team; 4096 is libomp's upper bound.
constexpr int kMinDispatchBuffers = 1, kMaxDispatchBuffers = 4096;
// At most this many hidden helper threads (libomp's bound too).
constexpr int kMaxHiddenHelpers = 16;

// A warning about the environment variable `var`. The OMP_*, KMP_* and
// GOMP_* variables are shared with libomp, whose warnings read "OMP:
// Warning #<n>: <text>", and job scripts and test suites written for it
// look for that shape; so these warnings take it, <n> being the kind of
// complaint below (Bobbin's own numbers, not libomp's catalogue) and <text>
// Bobbin's one line naming the variable and what is used instead. The
// BOBBIN_* variables are Bobbin's alone: their warnings start "bobbin: ".
enum class SettingWarning {
  Invalid = 1,     // not a valid value: ignored, the default is used
  TooSmall = 2,    // below the smallest value: the smallest is used
  TooLarge = 3,    // above the largest value: the largest is used
  NotApplied = 4,  // valid, but (part of) it cannot take effect here
};
// The number in "OMP: Warning #N:" of a user's error directive (runtime/workshare.cpp).
constexpr int kErrorDirectiveMessage = 5;
void warn_setting(const char* var, SettingWarning kind, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// Spin budgets derived from the wait policy (ns): how long a blocked fiber
// spins before parking, and how long an idle worker spins before sleeping.
uint64_t fiber_spin_ns();
uint64_t worker_spin_ns();

}  // namespace bobbin::rt
