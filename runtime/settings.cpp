// The settings table. Each row: the variable, a parser that writes the
// Settings field (returning false on a bad value, which keeps the default and
// warns once), a printer for displays, and a doc line.
#include "runtime/settings.hpp"

#include <pthread.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

#include "omp.h"
#include "runtime/alloc.hpp"
#include "ult/atomic.hpp"
#include "runtime/display.hpp"
#include "scheduler/task_sched.hpp"
#include "scheduler/tree_sched.hpp"
#include "ult/log.hpp"
#include "ult/pin.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt {

namespace {

// Built by parse_all, which the first call of any accessor runs; not a
// namespace-scope Settings, since it holds strings, which clang 14 cannot
// constant-initialise, and the accessors may run before this library's
// constructors (ult/eternal.hpp). Never destroyed: workers, which are not
// joined at exit, read it at every fork and task start, also while the
// exiting thread runs static destructors.
constinit Settings* g_settings = nullptr;
std::once_flag g_once;
// Set once parse_all has run: std::call_once alone costs a __tls_get_addr
// (libstdc++ passes the callable through thread-local storage) at every
// call, and settings() is read at every fork and every task's start.
Atomic<bool> g_parsed{false};

std::string trim(const char* s) {
  std::string v(s);
  size_t a = v.find_first_not_of(" \t"), b = v.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : v.substr(a, b - a + 1);
}

// What one spin of libgomp's wait loop (a load, a compare, a pause) takes
// here, in ns: the best of three timings of 4096 such spins. The pause's
// length varies tenfold across processors, which is why a count of spins is
// timed rather than taken at some fixed rate.
double ns_per_spin() {
  Atomic<int> word{0};
  double best = 1e30;
  for (int trial = 0; trial < 3; ++trial) {
    timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 4096; ++i) {
      if (word.load(memory_order_relaxed) != 0) break;
      cpu_relax();
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = double(b.tv_sec - a.tv_sec) * 1e9 + double(b.tv_nsec - a.tv_nsec);
    best = std::min(best, ns / 4096.0);
  }
  return best;
}

bool parse_int(const std::string& s, long lo, long hi, long* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end;
  long v = strtol(s.c_str(), &end, 10);
  while (*end == ' ' || *end == '\t') ++end;
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_bool(std::string s, bool* out) {
  for (auto& c : s) c = char(tolower(c));
  if (s == "true" || s == "1" || s == "yes" || s == "on") { *out = true; return true; }
  if (s == "false" || s == "0" || s == "no" || s == "off") { *out = false; return true; }
  return false;
}

// Sizes: a number with an optional B/K/M/G/T suffix; no suffix means KiB (OpenMP spec 6.6).
// At most kMaxSize: every OpenMP thread's fiber reserves that much address
// space, and a few such stacks fill the 128 TiB a process has on x86-64
// (a guess at a bound no real program reaches; 100G, which libomp refuses,
// still runs).
constexpr unsigned long long kMaxSize = 1ull << 40;

bool parse_size(const std::string& s, std::size_t* out) {
  // strtoull accepts a sign and negates: "-1" would be 2^64-1 KiB, which
  // wraps to a stack of 0 bytes once rounded to pages.
  if (s.empty() || !isdigit(static_cast<unsigned char>(s[0]))) return false;
  char* end;
  errno = 0;
  unsigned long long v = strtoull(s.c_str(), &end, 10);
  if (errno || end == s.c_str()) return false;
  while (*end == ' ') ++end;
  unsigned long long mult = 1024;
  switch (toupper(*end)) {
    case 0: break;
    case 'B': mult = 1; ++end; break;
    case 'K': mult = 1ull << 10; ++end; break;
    case 'M': mult = 1ull << 20; ++end; break;
    case 'G': mult = 1ull << 30; ++end; break;
    case 'T': mult = 1ull << 40; ++end; break;
    default: return false;
  }
  if (*end == 'b' || *end == 'B') ++end;  // "16MB" as libomp accepts
  if (*end || v == 0 || v > kMaxSize / mult) return false;
  *out = std::size_t(v * mult);
  return true;
}

bool parse_num_threads(const std::string& s, Settings& st) {
  std::vector<int> list;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    std::string item = trim(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos).c_str());
    long v;
    if (!parse_int(item, 1, INT_MAX, &v)) return false;
    // A team never has more threads than the pool can have workers (the
    // fork would abort); libomp likewise caps a request at its thread
    // capacity with a warning.
    if (v > ult::Worker::kMaxWorkers) {
      warn_setting("OMP_NUM_THREADS", SettingWarning::TooLarge,
                   "OMP_NUM_THREADS: %ld threads is more than the %d Bobbin can run; using %d", v,
                   ult::Worker::kMaxWorkers, ult::Worker::kMaxWorkers);
      v = ult::Worker::kMaxWorkers;
    }
    list.push_back(int(v));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  st.num_threads = list;
  return !list.empty();
}

bool parse_schedule(std::string s, Settings& st) {
  for (auto& c : s) c = char(tolower(c));
  Schedule sch;
  sch.monotonic = false;
  size_t colon = s.find(':');
  if (colon != std::string::npos) {
    std::string mod = trim(s.substr(0, colon).c_str());
    if (mod == "monotonic") sch.monotonic = true;
    else if (mod != "nonmonotonic") return false;
    s = s.substr(colon + 1);
  }
  size_t comma = s.find(',');
  std::string kind = trim(s.substr(0, comma).c_str());
  if (kind == "static") sch.kind = 1;
  else if (kind == "dynamic") sch.kind = 2;
  else if (kind == "guided") sch.kind = 3;
  else if (kind == "auto") sch.kind = 4;
  else if (kind == "trapezoidal") sch.kind = kSchedTrapezoidal;
  // libomp's name for its nonmonotonic dynamic schedule, reported as dynamic.
  else if (kind == "static_steal") sch.kind = 2;
  else return false;
  sch.chunk = sch.kind == 1 ? 0 : 1;  // the kind's default chunk, reported as libomp does
  if (comma != std::string::npos) {
    long c;
    if (!parse_int(trim(s.substr(comma + 1).c_str()), 1, INT_MAX, &c)) return false;
    sch.chunk = int(c);
  }
  st.schedule = sch;
  return true;
}

struct Row {
  const char* name;
  const char* fallback;  // said in the warning: what is used instead
  bool (*parse)(const std::string& value, Settings& st);
  std::string (*print)(const Settings& st);
  const char* doc;
  bool vendor;  // KMP_*, BOBBIN_* and non-ICV rows: displayed under OMP_DISPLAY_ENV=verbose only
};

std::string sched_name(const Schedule& s) {
  static const char* names[] = {"?", "static", "dynamic", "guided", "auto"};
  std::string out = s.monotonic ? "monotonic:" : "";
  out += s.kind == kSchedTrapezoidal ? "trapezoidal" : names[s.kind >= 1 && s.kind <= 4 ? s.kind : 0];
  if (s.chunk > 0) out += "," + std::to_string(s.chunk);
  return out;
}

const Row kRows[] = {
    {"OMP_NUM_THREADS", "the number of processors",
     [](const std::string& v, Settings& st) { return parse_num_threads(v, st); },
     [](const Settings& st) {
       // Unset: nthreads-var starts at the number of processors (team.cpp).
       if (st.num_threads.empty()) return std::to_string(std::max<std::size_t>(1, ult::allowed_cpus().size()));
       std::string s;
       for (size_t i = 0; i < st.num_threads.size(); ++i) s += (i ? "," : "") + std::to_string(st.num_threads[i]);
       return s;
     },
     "threads per team, a comma-separated list per nesting level", false},
    {"OMP_SCHEDULE", "static",
     [](const std::string& v, Settings& st) { return parse_schedule(v, st); },
     [](const Settings& st) { return sched_name(st.schedule); }, "schedule of schedule(runtime) loops", false},
    {"OMP_DYNAMIC", "false",
     [](const std::string& v, Settings& st) { return parse_bool(v, &st.dynamic); },
     [](const Settings& st) { return std::string(st.dynamic ? "TRUE" : "FALSE"); },
     "whether the runtime may give a team fewer threads than asked", false},
    {"OMP_NESTED", "false",
     [](const std::string& v, Settings& st) { st.nested_set = true; return parse_bool(v, &st.nested); },
     [](const Settings& st) { return std::string(st.max_active_levels > 1 ? "TRUE" : "FALSE"); },
     "deprecated: true allows nested active regions (OMP_MAX_ACTIVE_LEVELS)", false},
    {"OMP_MAX_ACTIVE_LEVELS", "the supported maximum",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v, 0, INT_MAX, &n)) return false;
       st.max_active_levels = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.max_active_levels); }, "maximum number of nested active regions", false},
    {"OMP_THREAD_LIMIT", "no limit",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v, 1, INT_MAX, &n)) return false;
       st.thread_limit = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.thread_limit ? st.thread_limit : INT_MAX); },
     "maximum number of OpenMP threads in the program", false},
    {"OMP_STACKSIZE", "4M",
     [](const std::string& v, Settings& st) { return parse_size(v, &st.stacksize); },
     [](const Settings& st) { return std::to_string(st.stacksize / 1024) + "K"; }, "stack size of each OpenMP thread", false},
    {"KMP_STACKSIZE", "4M",
     [](const std::string& v, Settings& st) { return getenv("OMP_STACKSIZE") ? true : parse_size(v, &st.stacksize); },
     [](const Settings& st) { return std::to_string(st.stacksize / 1024) + "K"; }, "as OMP_STACKSIZE (which wins)", true},
    // libgomp's name for it (libomp reads it too): job scripts written for gcc builds set it.
    {"GOMP_STACKSIZE", "4M",
     [](const std::string& v, Settings& st) {
       return getenv("OMP_STACKSIZE") || getenv("KMP_STACKSIZE") ? true : parse_size(v, &st.stacksize);
     },
     [](const Settings& st) { return std::to_string(st.stacksize / 1024) + "K"; },
     "as OMP_STACKSIZE (OMP_STACKSIZE and KMP_STACKSIZE win)", true},
    {"OMP_WAIT_POLICY", "unset (spin for KMP_BLOCKTIME, then sleep)",
     [](const std::string& v0, Settings& st) {
       std::string v = v0;
       for (auto& c : v) c = char(toupper(c));
       if (v == "ACTIVE") st.wait_policy = 1;
       else if (v == "PASSIVE") st.wait_policy = 2;
       else return false;
       return true;
     },
     [](const Settings& st) { return std::string(st.wait_policy == 1 ? "ACTIVE" : "PASSIVE"); },
     "ACTIVE: waiting threads spin; PASSIVE: they sleep at once", false},
    {"KMP_BLOCKTIME", "200",
     [](const std::string& v0, Settings& st) {
       std::string v = v0;
       for (auto& c : v) c = char(tolower(c));
       if (v == "infinite") { st.blocktime_us = INT64_MAX; return true; }
       // A number of milliseconds, or with a unit as libomp accepts: us, ms, s.
       int64_t unit_us = 1000;
       auto strip = [&](const char* suffix, int64_t us) {
         std::size_t k = strlen(suffix);
         if (v.size() > k && v.compare(v.size() - k, k, suffix) == 0) {
           v.resize(v.size() - k);
           unit_us = us;
           return true;
         }
         return false;
       };
       if (!strip("us", 1) && !strip("ms", 1000)) strip("s", 1'000'000);
       long n;
       if (!parse_int(trim(v.c_str()), 0, INT_MAX, &n)) return false;
       st.blocktime_us = int64_t(n) * unit_us;
       return true;
     },
     [](const Settings& st) {
       if (st.blocktime_us == INT64_MAX) return std::string("infinite");
       if (st.blocktime_us % 1000) return std::to_string(st.blocktime_us) + "us";
       return std::to_string(st.blocktime_us / 1000);
     },
     "milliseconds (or a number with us, ms, s) a waiting thread spins before it sleeps", true},
    // libgomp's spelling of the same thing, in spins of its wait loop; job
    // scripts written for gcc builds set it (0 and INFINITE most often).
    {"GOMP_SPINCOUNT", "unset",
     [](const std::string& v0, Settings& st) {
       std::string v = trim(v0.c_str());
       std::string l = v;
       for (auto& c : l) c = char(tolower(c));
       uint64_t spins;
       if (l == "infinite" || l == "infinity") {
         spins = UINT64_MAX;
       } else {
         uint64_t mult = 1;
         if (!v.empty() && strchr("kMGT", v.back())) {
           mult = v.back() == 'k' ? 1000ull : v.back() == 'M' ? 1000'000ull : v.back() == 'G' ? 1000'000'000ull : 1000'000'000'000ull;
           v.pop_back();
         }
         long long n;
         char* end = nullptr;
         errno = 0;
         n = strtoll(v.c_str(), &end, 10);
         if (v.empty() || *end || errno || n < 0) return false;
         spins = uint64_t(n) > UINT64_MAX / mult ? UINT64_MAX : uint64_t(n) * mult;
       }
       st.gomp_spincount = v0;
       if (getenv("KMP_BLOCKTIME")) return true;  // the finer-grained setting wins
       if (spins == UINT64_MAX) {
         st.blocktime_us = INT64_MAX;
       } else {
         double us = double(spins) * ns_per_spin() / 1000.0;
         st.blocktime_us = us >= 9e18 ? INT64_MAX : int64_t(us);
       }
       return true;
     },
     [](const Settings& st) { return st.gomp_spincount.empty() ? std::string("unset") : st.gomp_spincount; },
     "as KMP_BLOCKTIME, in spins of libgomp's wait loop (timed on this machine at start-up); KMP_BLOCKTIME wins", true},
    {"OMP_DISPLAY_ENV", "false",
     [](const std::string& v, Settings& st) {
       std::string l = v;
       for (auto& c : l) c = char(tolower(c));
       if (l != "true" && l != "false" && l != "verbose") return false;
       st.display_env = l;
       return true;
     },
     [](const Settings& st) {
       std::string v = st.display_env.empty() ? std::string("false") : st.display_env;
       for (auto& c : v) c = char(toupper(c));
       return v;
     },
     "print the settings at start-up (true, verbose)", true},
    {"KMP_SETTINGS", "false",
     [](const std::string& v, Settings& st) { return parse_bool(v, &st.kmp_settings); },
     [](const Settings& st) { return std::string(st.kmp_settings ? "true" : "false"); },
     "print the settings at start-up as libomp does (User settings, then Effective settings)", true},
    {"OMP_MAX_TASK_PRIORITY", "0",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v, 0, INT_MAX, &n)) return false;
       st.max_task_priority = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.max_task_priority); }, "largest priority a task may be given", false},
    {"OMP_CANCELLATION", "false",
     [](const std::string& v, Settings& st) { return parse_bool(v, &st.cancellation); },
     [](const Settings& st) { return std::string(st.cancellation ? "TRUE" : "FALSE"); },
     "whether cancel constructs take effect", false},
    {"OMP_PLACES", "one place per core",
     [](const std::string& v, Settings& st) { st.places = v; return !v.empty(); },
     [](const Settings& st) {
       std::string v = places_for_display();
       return v.empty() ? st.places : v;
     },
     "the places threads are bound to", false},
    {"OMP_PROC_BIND", "false",
     [](const std::string& v, Settings& st) { st.proc_bind = v; return !v.empty(); },
     [](const Settings& st) {
       std::string v = proc_bind_for_display();
       return !v.empty() ? v : st.proc_bind.empty() ? std::string("false") : st.proc_bind;
     },
     "thread binding policy per nesting level (false, true, primary, close, spread)", false},
    {"KMP_AFFINITY", "no binding",
     [](const std::string& v, Settings& st) { st.kmp_affinity = v; return !v.empty(); },
     [](const Settings& st) { return st.kmp_affinity; }, "libomp's binding syntax, mapped onto places", true},
    {"OMP_NUM_TEAMS", "one team per place",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v, 1, INT_MAX, &n)) return false;
       st.num_teams = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.num_teams); }, "teams of a teams construct without num_teams", false},
    {"OMP_TEAMS_THREAD_LIMIT", "places / teams",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v, 1, INT_MAX, &n)) return false;
       st.teams_thread_limit = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.teams_thread_limit); }, "threads per team of a teams construct", false},
    {"KMP_TEAMS_PROC_BIND", "spread",
     [](const std::string& v, Settings& st) {
       std::string l = v;
       for (auto& c : l) c = char(tolower(c));
       if (l == "spread") st.teams_proc_bind = omp_proc_bind_spread;
       else if (l == "close") st.teams_proc_bind = omp_proc_bind_close;
       else if (l == "primary" || l == "master") st.teams_proc_bind = omp_proc_bind_master;
       else return false;
       return true;
     },
     [](const Settings& st) {
       return std::string(st.teams_proc_bind == omp_proc_bind_close    ? "close"
                          : st.teams_proc_bind == omp_proc_bind_master ? "primary"
                                                                       : "spread");
     },
     "how the initial threads of a teams construct's teams are placed (spread, close, primary), as libomp's", true},
    {"OMP_DEFAULT_DEVICE", "0",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v, 0, INT_MAX, &n)) return false;
       st.default_device = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.default_device); }, "device number of target constructs without a device clause", false},
    {"OMP_TARGET_OFFLOAD", "default",
     [](const std::string& v0, Settings& st) {
       std::string v = v0;
       for (auto& c : v) c = char(tolower(c));
       if (v == "default") st.target_offload = 0;
       else if (v == "mandatory") st.target_offload = 1;
       else if (v == "disabled") st.target_offload = 2;
       else return false;
       return true;
     },
     [](const Settings& st) {
       static const char* names[] = {"DEFAULT", "MANDATORY", "DISABLED"};
       return std::string(names[st.target_offload]);
     },
     "what a target construct does without a device (Bobbin has none)", false},
    {"OMP_ALLOCATOR", "omp_default_mem_alloc",
     [](const std::string& v, Settings& st) {
       std::string why;
       return parse_allocator_setting(v, &st.allocator, &why);
     },
     [](const Settings& st) { return st.allocator.text.empty() ? std::string("omp_default_mem_alloc") : st.allocator.text; },
     "allocator of omp_alloc(..., omp_null_allocator): a predefined allocator, or a memory space:traits", false},
    {"OMP_DISPLAY_AFFINITY", "false",
     [](const std::string& v, Settings& st) { return parse_bool(v, &st.display_affinity); },
     [](const Settings& st) { return std::string(st.display_affinity ? "TRUE" : "FALSE"); },
     "print each thread's affinity line when a region starts and it changed", false},
    {"OMP_AFFINITY_FORMAT", "the default format",
     [](const std::string& v, Settings& st) {
       // The raw value: leading and trailing spaces are part of the format.
       const char* raw = getenv("OMP_AFFINITY_FORMAT");
       st.affinity_format = raw ? raw : v;
       return true;
     },
     [](const Settings& st) { return st.affinity_format.empty() ? std::string(default_affinity_format()) : st.affinity_format; },
     "format of affinity lines (%n thread, %A processors, ...)", false},
    {"OMP_TOOL", "enabled",
     [](const std::string& v0, Settings& st) {
       std::string v = v0;
       for (auto& c : v) c = char(tolower(c));
       if (v == "enabled") st.tool = true;
       else if (v == "disabled") st.tool = false;
       else return false;
       st.tool_set = true;
       return true;
     },
     [](const Settings& st) { return std::string(st.tool ? "enabled" : "disabled"); },
     "whether an OMPT tool may be loaded", false},
    {"OMP_TOOL_LIBRARIES", "none",
     [](const std::string& v, Settings& st) { st.tool_libraries = v; return true; },
     [](const Settings& st) { return st.tool_libraries; }, "OMPT tool libraries to try, in order", false},
    {"OMP_TOOL_VERBOSE_INIT", "disabled",
     [](const std::string& v, Settings& st) { st.tool_verbose_init = v; return true; },
     [](const Settings& st) { return st.tool_verbose_init.empty() ? std::string("disabled") : st.tool_verbose_init; },
     "where to log OMPT tool loading", false},
    {"OMP_DEBUG", "disabled",
     [](const std::string& v0, Settings& st) {
       std::string v = v0;
       for (auto& c : v) c = char(tolower(c));
       if (v == "enabled") st.debug = true;
       else if (v == "disabled") st.debug = false;
       else return false;
       return true;
     },
     [](const Settings& st) { return std::string(st.debug ? "enabled" : "disabled"); },
     "OMPD debugging support (Bobbin has none)", false},
    {"BOBBIN_NESTED", "gang",
     [](const std::string& v, Settings& st) {
       if (v == "gang") st.nested_mode = 1;
       else if (v == "steal") st.nested_mode = 2;
       else return false;
       return true;
     },
     [](const Settings& st) { return std::string(st.nested_mode == 2 ? "steal" : "gang"); },
     "how nested parallel regions are scheduled: gang (no deadlock, no oversubscription) or steal", true},
    {"BOBBIN_WIDE_TEAMS", "auto",
     [](const std::string& v, Settings& st) {
       if (v == "auto") st.wide_teams = 0;
       else if (v == "threads") st.wide_teams = 1;
       else if (v == "fibers") st.wide_teams = 2;
       else return false;
       return true;
     },
     [](const Settings& st) { return std::string(st.wide_teams == 1 ? "threads" : st.wide_teams == 2 ? "fibers" : "auto"); },
     "how an outermost team with more threads than processors runs: threads (a kernel thread each, as libomp), "
     "fibers (on the workers), or auto (fibers unless the program has thread-local data of its own)",
     true},
    {"BOBBIN_NESTED_THREADS", "auto",
     [](const std::string& v, Settings& st) {
       if (v == "auto") st.nested_threads = 0;
       else if (v == "threads") st.nested_threads = 1;
       else if (v == "fibers") st.nested_threads = 2;
       else return false;
       return true;
     },
     [](const Settings& st) {
       return std::string(st.nested_threads == 1 ? "threads" : st.nested_threads == 2 ? "fibers" : "auto");
     },
     "how the members of a nested team run: fibers (on the workers), threads (a kernel thread each, as libomp), "
     "or auto (fibers unless the program has thread-local data of its own)",
     true},
    {"OMP_GANG_SCHED", "BOBBIN_NESTED's value",
     [](const std::string& v, Settings& st) {
       bool on;
       if (!parse_bool(v, &on)) return false;
       if (!getenv("BOBBIN_NESTED")) st.nested_mode = on ? 1 : 2;
       return true;
     },
     [](const Settings& st) { return std::string(st.nested_mode == 1 ? "1" : "0"); },
     "the HClib-based OpenMP runtime's spelling: 1 gang-schedules nested regions, 0 steals", true},
    {"BOBBIN_WATCHDOG", "30",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v.c_str(), 0, 86400, &n)) return false;
       st.watchdog_s = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.watchdog_s); },
     "seconds with no scheduling point anywhere while OpenMP threads wait before one report of every worker (0: never)",
     true},
    {"BOBBIN_STUCK_US", "2000",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v.c_str(), 100, 10'000'000, &n)) return false;
       st.stuck_us = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.stuck_us); },
     "microseconds a fiber may hold its worker while others wait for it before the monitor rescues them", true},
    {"BOBBIN_PREEMPT", "true",
     [](const std::string& v, Settings& st) { return parse_bool(v, &st.preempt); },
     [](const Settings& st) { return std::string(st.preempt ? "true" : "false"); },
     "whether the progress monitor may preempt a fiber that holds its worker while others wait (false: only moves "
     "fibers that have not started)",
     true},
    {"BOBBIN_MOLD", "auto",
     [](const std::string& v, Settings& st) {
       if (v == "auto") st.mold = 0;
       else if (v == "on") st.mold = 1;
       else if (v == "off") st.mold = -1;
       else return false;
       return true;
     },
     [](const Settings& st) { return std::string(st.mold == 0 ? "auto" : st.mold > 0 ? "on" : "off"); },
     "moldable nested regions: the width from an online model of each region's times (auto: nested regions with "
     "dyn-var true; on: every nested region, even with dyn-var false; off: never)",
     true},
    {"BOBBIN_SCHED", "steal",
     [](const std::string& v, Settings& st) {
       if (!sched::find_scheduler(v)) return false;
       st.task_sched = v;
       return true;
     },
     [](const Settings& st) { return st.task_sched; },
     "the task scheduler: steal (a list per leaf, idle threads steal) or tree (overflow up a tree of lists, idle "
     "leaves ask up)",
     true},
    {"BOBBIN_TREE_THRESHOLD", "dynamic",
     [](const std::string& v, Settings& st) {
       if (v == "dynamic") {
         st.tree_threshold = -1;
         return true;
       }
       long n;
       if (!parse_int(v.c_str(), 0, long(sched::TreeScheduler::kMaxThreshold), &n)) return false;
       st.tree_threshold = int(n);
       return true;
     },
     [](const Settings& st) { return st.tree_threshold < 0 ? std::string("dynamic") : std::to_string(st.tree_threshold); },
     "BOBBIN_SCHED=tree: how many tasks a leaf keeps before half move up (dynamic: from 0, doubled when overflow "
     "reaches the root, halved when an idle leaf asks it)",
     true},
    {"BOBBIN_POLLING_SLOTS", "auto",
     [](const std::string& v, Settings& st) {
       if (v == "auto") {
         st.polling_slots = -1;
         return true;
       }
       bool on;
       if (!parse_bool(v, &on)) return false;
       st.polling_slots = on ? 1 : 0;
       return true;
     },
     [](const Settings& st) { return std::string(st.polling_slots < 0 ? "auto" : st.polling_slots ? "true" : "false"); },
     "whether a thread with nothing to run publishes a slot that the next new task goes to directly, without a "
     "list (auto: the scheduler's default)",
     true},
    {"BOBBIN_IMMEDIATE_SUCCESSOR", "false",
     [](const std::string& v, Settings& st) { return parse_bool(v, &st.immediate_successor); },
     [](const Settings& st) { return std::string(st.immediate_successor ? "true" : "false"); },
     "whether the first successor a finishing task makes ready runs next on the same thread, without a task list",
     true},
    {"BOBBIN_MPI_WAIT", "fiber",
     [](const std::string& v, Settings& st) {
       if (v == "fiber" || v == "mpi") {
         st.mpi_fiber_wait = v == "fiber";
         return true;
       }
       return false;
     },
     [](const Settings& st) { return std::string(st.mpi_fiber_wait ? "fiber" : "mpi"); },
     "how a blocking MPI point-to-point call on a worker waits (fiber: tests between the worker's other fibers "
     "and gives the processor away; mpi: the MPI library's own wait)",
     true},
    {"KMP_ENABLE_TASK_THROTTLING", "true",
     [](const std::string& v, Settings& st) { return parse_bool(v, &st.task_throttling); },
     [](const Settings& st) { return std::string(st.task_throttling ? "true" : "false"); },
     "whether a thread that creates a task may run it at once instead of queueing it (false: every deferrable "
     "task is queued, however many wait)",
     true},
    // How many dynamic loops a team may have in flight: a thread that leaves
    // nowait loops behind waits at the next one once it is that many ahead
    // of the slowest thread (loop.cpp). Out of range, the nearest bound is
    // used, as libomp does.
    {"KMP_DISP_NUM_BUFFERS", "7",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v, 0, LONG_MAX, &n)) return false;
       if (n < kMinDispatchBuffers) {
         warn_setting("KMP_DISP_NUM_BUFFERS", SettingWarning::TooSmall,
                      "KMP_DISP_NUM_BUFFERS='%s' is too small; using %d", v.c_str(), kMinDispatchBuffers);
         n = kMinDispatchBuffers;
       } else if (n > kMaxDispatchBuffers) {
         warn_setting("KMP_DISP_NUM_BUFFERS", SettingWarning::TooLarge,
                      "KMP_DISP_NUM_BUFFERS='%s' is too large; using %d", v.c_str(), kMaxDispatchBuffers);
         n = kMaxDispatchBuffers;
       }
       st.disp_num_buffers = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.disp_num_buffers); },
     "dynamic loops a team may have in flight, 1 to 4096: a thread that runs that many nowait loops ahead of the "
     "slowest waits",
     true},
    // libomp's hidden helper threads (hidden_helper.cpp), under libomp's
    // names for them.
    {"LIBOMP_USE_HIDDEN_HELPER_TASK", "true",
     [](const std::string& v, Settings& st) { return parse_bool(v, &st.hidden_helper_tasks); },
     [](const Settings& st) { return std::string(st.hidden_helper_tasks ? "true" : "false"); },
     "whether the tasks of target constructs (target nowait, target with depend) run on hidden helper threads, "
     "kernel threads of their own with global thread ids 1 to LIBOMP_NUM_HIDDEN_HELPER_THREADS",
     true},
    {"LIBOMP_NUM_HIDDEN_HELPER_THREADS", "8",
     [](const std::string& v, Settings& st) {
       long n;
       if (!parse_int(v, 0, kMaxHiddenHelpers, &n)) return false;
       st.hidden_helper_threads = int(n);
       return true;
     },
     [](const Settings& st) { return std::to_string(st.hidden_helper_threads); },
     "hidden helper threads, 0 to 16 (0: none; target tasks are then ordinary tasks)", true},
    {"BOBBIN_TRACE", "no trace",
     [](const std::string& v, Settings& st) {
       st.trace_file = v;
       return !v.empty();
     },
     [](const Settings& st) { return st.trace_file; },
     "a file to write, at exit, a Chrome/Perfetto trace of what the scheduler did (fibers, tasks, steals, gangs, "
     "sleeps; %p in it stands for the process id); tools/bobbin-trace summarises it",
     true},
    {"BOBBIN_TOPOLOGY", "the real machine", [](const std::string&, Settings&) { return true; },
     [](const Settings&) { const char* v = getenv("BOBBIN_TOPOLOGY"); return std::string(v ? v : ""); },
     "an hwloc synthetic topology to model (read by the scheduler)", true},
};

// libomp's default stack for its threads is the system's default thread
// stack (glibc derives it from RLIMIT_STACK: 8 MiB on a stock Debian), never
// below 4 MiB; Bobbin's fibers get the same, so a program that fits on
// libomp fits here. Fiber stacks are reserved, not committed, memory.
std::size_t default_stacksize() {
  std::size_t size = 4u << 20;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) == 0) {
    std::size_t s = 0;
    if (pthread_attr_getstacksize(&attr, &s) == 0 && s > size && s <= (std::size_t(1) << 30)) size = s;
    pthread_attr_destroy(&attr);
  }
  return size;
}

void parse_all() {
  g_settings = new Settings;
  g_settings->stacksize = default_stacksize();
  for (const Row& r : kRows) {
    const char* raw = getenv(r.name);
    if (!raw) continue;
    Settings before = *g_settings;
    if (!r.parse(trim(raw), *g_settings)) {
      *g_settings = before;
      warn_setting(r.name, SettingWarning::Invalid, "ignoring %s='%s' (not a valid value); using %s", r.name, raw,
                   r.fallback);
    }
  }
  if (g_settings->max_active_levels < 0) {
    // OMP_NESTED only matters when OMP_MAX_ACTIVE_LEVELS is absent (spec 6.9).
    // Neither: as libomp, one active level, or as many as OMP_NUM_THREADS
    // lists (the initial ICV team.cpp sets; displays show this value).
    if (g_settings->nested_set) g_settings->max_active_levels = g_settings->nested ? INT_MAX : 1;
    else g_settings->max_active_levels = g_settings->num_threads.size() > 1 ? int(g_settings->num_threads.size()) : 1;
  }
  // Default run-sched-var: libomp reports static with no chunk.
  if (!getenv("OMP_SCHEDULE")) g_settings->schedule = Schedule{1, 0, false};
  g_parsed.store(true, memory_order_release);  // pairs with parse_once's acquire
}

void parse_once() {
  if (!g_parsed.load(memory_order_acquire)) std::call_once(g_once, parse_all);
}

}  // namespace

const Settings& settings() {
  parse_once();
  return *g_settings;
}

Settings& mutable_settings() {
  parse_once();
  return *g_settings;
}

bool apply_setting(const std::string& name, const std::string& value) {
  parse_once();
  for (const Row& r : kRows) {
    if (name != r.name) continue;
    Settings before = *g_settings;
    if (r.parse(trim(value.c_str()), *g_settings)) return true;
    *g_settings = before;
    warn_setting(r.name, SettingWarning::Invalid, "ignoring %s='%s' (not a valid value); using %s", r.name,
                 value.c_str(), r.fallback);
    return false;
  }
  return false;
}

void warn_setting(const char* var, SettingWarning kind, const char* fmt, ...) {
  char text[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (strncmp(var, "BOBBIN_", 7) == 0) {
    warn("%s", text);
    return;
  }
  char prefix[32];
  snprintf(prefix, sizeof prefix, "OMP: Warning #%d: ", int(kind));
  warn_as(prefix, "%s", text);
}

std::vector<SettingLine> describe_settings(bool verbose) {
  const Settings& st = settings();
  std::vector<SettingLine> out;
  for (const Row& r : kRows) {
    if (r.vendor && !verbose) continue;
    out.push_back(SettingLine{r.name, r.print(st), r.doc, r.vendor});
  }
  return out;
}

uint64_t fiber_spin_ns() {
  const Settings& st = settings();
  if (st.wait_policy == 2) return 0;
  if (st.wait_policy == 1 || st.blocktime_us == INT64_MAX) return UINT64_MAX;
  // A blocked fiber spins briefly and then parks, handing its worker to the
  // idle loop, which keeps spinning (below) but can also steal work. 50 us is
  // a guess at "longer than a barrier on a quiet machine"; measured later.
  return std::min<uint64_t>(uint64_t(st.blocktime_us) * 1000, 50'000);
}

uint64_t worker_spin_ns() {
  const Settings& st = settings();
  if (st.wait_policy == 2) return 0;
  if (st.wait_policy == 1 || st.blocktime_us == INT64_MAX) return UINT64_MAX;
  return uint64_t(st.blocktime_us) * 1000;
}

}  // namespace bobbin::rt
