// Every OMP_*, KMP_* and BOBBIN_* variable, in one table (settings.cpp): name,
// type, default, parser, printer and a one-line doc. Read once at start-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/api.hpp"

namespace bobbin::rt {

struct Settings {
  std::vector<int> num_threads;      // OMP_NUM_THREADS, one value per nesting level; empty = default
  Schedule schedule{1, 0, false};    // OMP_SCHEDULE (run-sched-var); static by default, as libomp
  bool dynamic = false;              // OMP_DYNAMIC
  int max_active_levels = -1;        // OMP_MAX_ACTIVE_LEVELS / OMP_NESTED; -1 = derive
  bool nested_set = false, nested = false;  // OMP_NESTED given?
  int thread_limit = 0;              // OMP_THREAD_LIMIT, 0 = unlimited
  std::size_t stacksize = 4u << 20;  // OMP_STACKSIZE / KMP_STACKSIZE
  int wait_policy = 0;               // OMP_WAIT_POLICY: 0 unset, 1 active, 2 passive
  int64_t blocktime_ms = 200;        // KMP_BLOCKTIME (ms); INT64_MAX = infinite
  std::string display_env;           // OMP_DISPLAY_ENV
  int max_task_priority = 0;         // OMP_MAX_TASK_PRIORITY
  bool cancellation = false;         // OMP_CANCELLATION
  std::string places;                // OMP_PLACES, raw (parsed by places.cpp against the topology)
  std::string proc_bind;             // OMP_PROC_BIND, raw (parsed by places.cpp)
  std::string kmp_affinity;          // KMP_AFFINITY, raw (mapped onto places by places.cpp)
  int num_teams = 0;                 // OMP_NUM_TEAMS, 0 = unset
  int teams_thread_limit = 0;        // OMP_TEAMS_THREAD_LIMIT, 0 = unset
};

// Parses the environment (once). Bad values warn and keep the default.
const Settings& settings();
// Lines of "NAME='value'" for OMP_DISPLAY_ENV and bobbin-info.
std::vector<std::string> describe_settings(bool verbose);

// Spin budgets derived from the wait policy (ns): how long a blocked fiber
// spins before parking, and how long an idle worker spins before sleeping.
uint64_t fiber_spin_ns();
uint64_t worker_spin_ns();

}  // namespace bobbin::rt
