// What the runtime shows the user about itself (OpenMP 5.2 sections 18.15,
// 21.2.4, 21.2.5, 21.7): OMP_DISPLAY_ENV and omp_display_env, the affinity
// format (OMP_AFFINITY_FORMAT, omp_capture_affinity, omp_display_affinity) and
// OMP_DISPLAY_AFFINITY.
//
// KMP_SETTINGS (libomp's): "User settings:" (the variables set, as given)
// and "Effective settings:" (every value in effect), from the same table.
//
// Environment display: the values come from the one settings table
// (settings.cpp), so a variable added there is displayed with no change here.
// The format is the spec's: a BEGIN line, `  _OPENMP='yyyymm'`, one
// `  [host] NAME='value'` line per ICV-backed variable (vendor KMP_* and
// BOBBIN_* rows only when verbose), an END line; all of it on stderr in one
// write, so it is never interleaved with another thread's output.
//
// Affinity format: a field is `%[[[0].]size]type`, type one letter or
// `{long_name}`. `0.` pads numbers with zeros on the left, `.` pads with
// spaces on the left, a size alone pads on the right; a field Bobbin cannot
// fill, or a malformed one, prints "undefined" (as libomp). Lines go to
// stdout, as libomp's do.
//
// OMP_DISPLAY_AFFINITY: each thread of a new team, serialized teams and
// teams of one included, calls display_affinity_if_enabled on itself; its
// line is printed when the thread's nesting level, its team's size or
// binding policy, its place or its place partition differs from what they
// were at the last line printed for that
// OpenMP thread, or at its first region (spec 21.2.4: "when there is any
// change in the information accessed by the format specifiers"; libomp's
// rule, which LLVM's affinity tests check: a new format alone prints
// nothing, and a run of regions alike prints once). The last values live
// in a side table keyed by the thread descriptor, under a mutex: the
// feature is off by default and costs a formatted line per change anyway.
#include "runtime/display.hpp"

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "omp.h"
#include "runtime/api.hpp"
#include "runtime/places.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "ult/pin.hpp"
#include "ult/thread_info.hpp"

namespace bobbin::rt {


namespace {

// clang 14's _OPENMP (OpenMP 5.0), which is what the programs Bobbin runs
// were compiled against.
constexpr const char* kOpenmpVersion = "201811";

std::mutex g_format_mutex;  // a leaf lock
// The two tables below are never destroyed: workers, which are not joined at
// exit, may display or format while the exiting thread runs static destructors.
// affinity-format-var; guarded by g_format_mutex. Built on first use (clang 14
// cannot constant-initialise a string: ult/eternal.hpp); never destroyed.
std::string& format_var() {
  static auto& s = *new std::string;
  return s;
}
bool g_format_set = false;  // guarded by g_format_mutex

std::mutex g_shown_mutex;  // a leaf lock
// What a thread's last OMP_DISPLAY_AFFINITY line showed.
struct Shown {
  int level, nthreads, proc_bind, place, part_start, part_len;
  bool operator==(const Shown&) const = default;
};
// Built on first use (a map has no constant initialiser: ult/eternal.hpp); never destroyed.
std::unordered_map<const Thread*, Shown>& shown_threads() {
  static auto& m = *new std::unordered_map<const Thread*, Shown>;
  return m;
}

std::string current_format() {
  std::lock_guard<std::mutex> g(g_format_mutex);
  if (!g_format_set) {
    const std::string& env = settings().affinity_format;
    format_var() = env.empty() ? default_affinity_format() : env;
    g_format_set = true;
  }
  return format_var();
}

// "0-3,8,10-11".
std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += (j == i + 1 ? "," : "-") + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string host_name() {
  char buf[256];
  if (gethostname(buf, sizeof buf) != 0) return "undefined";
  buf[sizeof buf - 1] = 0;
  return buf;
}

// The value of one field for the calling thread; false if `type` is not a field.
bool field_value(char type, std::string* out, bool* numeric) {
  *numeric = true;
  long v;
  switch (type) {
    case 't': v = team_num(); break;
    case 'T': v = num_teams(); break;
    case 'L': v = level(); break;
    case 'n': v = thread_num(); break;
    case 'N': v = num_threads(); break;
    case 'a': v = ancestor_thread_num(level() - 1); break;
    case 'P': v = long(getpid()); break;
    case 'i': v = ult::native_thread_id(); break;
    case 'H':
      *numeric = false;
      *out = host_name();
      return true;
    case 'A':
      *numeric = false;
      // An unbound thread's: the process's processors, as libomp shows
      // them (the worker under it is pinned all the same).
      *out = cpu_list(ult::reads_process_mask() ? ult::allowed_cpus() : ult::current_thread_cpus());
      return true;
    default:
      return false;
  }
  *out = std::to_string(v);
  return true;
}

char long_field(const std::string& name) {
  static const struct {
    const char* name;
    char type;
  } kNames[] = {{"team_num", 't'},      {"num_teams", 'T'},     {"nesting_level", 'L'}, {"thread_num", 'n'},
                {"num_threads", 'N'},   {"ancestor_tnum", 'a'}, {"host", 'H'},          {"process_id", 'P'},
                {"native_thread_id", 'i'}, {"thread_affinity", 'A'}};
  for (const auto& n : kNames)
    if (name == n.name) return n.type;
  return 0;
}

std::string format_affinity(const std::string& fmt) {
  std::string out;
  std::size_t i = 0, n = fmt.size();
  while (i < n) {
    char c = fmt[i++];
    if (c != '%') {
      out += c;
      continue;
    }
    if (i < n && fmt[i] == '%') {
      out += '%';
      ++i;
      continue;
    }
    bool zeros = false, right = false;
    if (i + 1 < n && fmt[i] == '0' && fmt[i + 1] == '.') {
      zeros = right = true;
      i += 2;
    } else if (i < n && fmt[i] == '.') {
      right = true;
      ++i;
    }
    std::size_t width = 0;
    // Nine digits at most: a wider field is not a width anyone means.
    for (int d = 0; i < n && fmt[i] >= '0' && fmt[i] <= '9'; ++i, ++d)
      if (d < 9) width = width * 10 + std::size_t(fmt[i] - '0');
    char type = 0;
    if (i < n && fmt[i] == '{') {
      std::size_t close = fmt.find('}', i);
      if (close != std::string::npos) type = long_field(fmt.substr(i + 1, close - i - 1));
      i = close == std::string::npos ? n : close + 1;
    } else if (i < n) {
      type = fmt[i++];
    }
    std::string value;
    bool numeric = false;
    if (!type || !field_value(type, &value, &numeric)) {
      value = "undefined";
      numeric = false;
    }
    if (value.size() < width) {
      std::size_t pad = width - value.size();
      if (!right) {
        value.append(pad, ' ');
      } else if (zeros && numeric) {
        value.insert(value[0] == '-' ? 1 : 0, pad, '0');
      } else {
        value.insert(0, pad, ' ');
      }
    }
    out += value;
  }
  return out;
}

void print_line(FILE* f, std::string line) {
  line += '\n';
  fwrite(line.data(), 1, line.size(), f);
  fflush(f);
}

const char* bind_name(int b) {
  switch (b) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_master: return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    default: return "?";
  }
}

// The environment display; the runtime must be initialised (places, binding).
void print_env(bool verbose) {
  std::string text = "OPENMP DISPLAY ENVIRONMENT BEGIN\n  _OPENMP='";
  text += kOpenmpVersion;
  text += "'\n";
  for (const SettingLine& l : describe_settings(verbose)) text += "  [host] " + l.name + "='" + l.value + "'\n";
  text += "OPENMP DISPLAY ENVIRONMENT END\n";
  fflush(stderr);
  fwrite(text.data(), 1, text.size(), stderr);
  fflush(stderr);
}

// KMP_SETTINGS, as libomp prints it: the variables the user set, as given,
// then every setting's value in effect (the place list by its abstract
// name when it has one), on stderr in one write.
void print_kmp_settings() {
  std::vector<SettingLine> lines = describe_settings(true);
  std::string text = "\nUser settings:\n\n";
  for (const SettingLine& l : lines)
    if (const char* v = getenv(l.name.c_str())) text += "   " + l.name + "=" + v + "\n";
  text += "\nEffective settings:\n\n";
  for (const SettingLine& l : lines) {
    const std::string& value = l.name == "OMP_PLACES" && !places_name().empty() ? places_name() : l.value;
    text += "   " + l.name + "='" + value + "'\n";
  }
  text += "\n";
  fflush(stderr);
  fwrite(text.data(), 1, text.size(), stderr);
  fflush(stderr);
}

}  // namespace

// Runs inside initialisation, so it must not call ensure_initialized (nor
// anything that does): print_env reads only what initialize has set.
void report_at_startup() {
  const std::string& d = settings().display_env;
  if (settings().kmp_settings) print_kmp_settings();
  if (d == "true" || d == "verbose") print_env(d == "verbose");
}

void display_env(bool verbose) {
  ensure_initialized();
  print_env(verbose);
}

std::string places_for_display() {
  std::string out;
  for (const std::vector<int>& p : places()) {
    if (!out.empty()) out += ',';
    bool run = !p.empty();
    for (std::size_t k = 1; k < p.size(); ++k) run = run && p[k] == p[k - 1] + 1;
    if (run && p.size() > 1) {
      out += "{" + std::to_string(p[0]) + ":" + std::to_string(p.size()) + "}";
    } else {
      out += "{";
      for (std::size_t k = 0; k < p.size(); ++k) out += (k ? "," : "") + std::to_string(p[k]);
      out += "}";
    }
  }
  return out;
}

std::string proc_bind_for_display() {
  std::string out;
  for (int pos = 0;; ++pos) {
    int b = bind_at(pos, -1);
    if (b < 0) break;
    out += (pos ? "," : "") + std::string(bind_name(b));
  }
  return out;
}

void set_affinity_format(const char* format, std::size_t len) {
  std::string f = format ? std::string(format, len) : std::string();
  std::lock_guard<std::mutex> g(g_format_mutex);
  format_var() = f;
  g_format_set = true;
}

std::string affinity_format() { return current_format(); }

std::string capture_affinity(const char* format, std::size_t len) {
  std::string f = format && len ? std::string(format, len) : current_format();
  return format_affinity(f);
}

void display_affinity(const char* format, std::size_t len) { print_line(stdout, capture_affinity(format, len)); }

void display_affinity_if_enabled() {
  if (!settings().display_affinity) return;
  const Thread* me = current_thread_fast();
  const Team* t = me->team;
  Shown now{t->level, t->nthreads, t->proc_bind, me->binding.place, me->binding.part_start, me->binding.part_len};
  {
    std::lock_guard<std::mutex> g(g_shown_mutex);
    auto [it, first] = shown_threads().try_emplace(me, now);
    if (!first && it->second == now) return;
    it->second = now;
  }
  print_line(stdout, format_affinity(current_format()));
}

}  // namespace bobbin::rt
