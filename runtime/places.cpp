// Places and thread binding (OpenMP 5.2 §6.5, §6.4 and §12.1.3).
//
// A place is a set of OS processors. Workers are pinned one per place; an
// OpenMP thread bound to place p runs on a worker pinned to p. The outermost
// team's member i always runs on worker i (native TLS threadprivate lives on
// the worker), so when the rules give member i another place, worker i
// re-pins itself as it starts the member (follow_place) — the same thing
// libomp does when it re-binds a pooled thread.
//
// Assignment (T threads, the master at position m of a partition of P places):
//   primary: every thread on the master's place, partition unchanged.
//   close:   T <= P: thread i on place m+i (wrapping in the partition);
//            T > P: consecutive threads share a place, i*P/T places along.
//            Partition unchanged.
//   spread:  T <= P: the partition is cut into T runs of P/T places (the
//            first P%T one longer), starting at the master's place; thread i
//            gets run i as its partition and its first place.
//            T > P: as close, each thread's partition its one place.
// `true` means binding with an implementation-defined policy: spread for the
// outermost team, which matches libomp's choice and spreads a first team.
#include "runtime/places.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "omp.h"
#include "runtime/settings.hpp"
#include "scheduler/topology.hpp"
#include "ult/eternal.hpp"
#include "ult/log.hpp"
#include "ult/pin.hpp"

namespace bobbin::rt {

namespace {

// The tables below are never destroyed: the workers are not joined when the
// program exits, and one still starting (pin_unbound_worker) or in a
// region may read them while the exiting thread runs static destructors.
constinit ult::Eternal<std::vector<std::vector<int>>> g_places_storage;
constinit std::vector<std::vector<int>>& g_places = g_places_storage.value;
// g_places as masks ready for sched_setaffinity: follow_place binds from
// the preemption signal handler too, where hwloc (which allocates) may not run.
constinit ult::Eternal<std::vector<ult::CpuMask>> g_place_masks_storage;
constinit std::vector<ult::CpuMask>& g_place_masks = g_place_masks_storage.value;
constinit ult::Eternal<std::vector<int>> g_bind_list_storage;
constinit std::vector<int>& g_bind_list = g_bind_list_storage.value;  // OMP_PROC_BIND, one per level
// The abstract name the places came from ("" for a list). Built on first use
// (clang 14 cannot constant-initialise a string: ult/eternal.hpp); never destroyed.
std::string& places_name_var() {
  static auto& s = *new std::string;
  return s;
}
bool g_requested = false;
constexpr int kMaxWorkers = ult::Worker::kMaxWorkers;
// The place follow_place last pinned each pool worker to (-1: none yet),
// for others to read (worker_on_place): a hint, written by the worker's own
// thread.
std::atomic<int> g_worker_pin[kMaxWorkers];
bool g_places_are_cores = false;  // place k is core k (Topology::core_places), so a pin names a core

std::vector<std::vector<int>> group_by(const sched::Topology& topo, sched::Level level) {
  std::vector<std::vector<int>> out;
  std::map<const sched::TopoNode*, std::size_t> idx;
  for (int i = 0; i < topo.num_pus(); ++i) {
    const sched::TopoNode* n = level == sched::Level::PU ? &topo.pu(i) : &topo.ancestor_at(i, level);
    auto it = idx.find(n);
    if (it == idx.end()) {
      it = idx.emplace(n, out.size()).first;
      out.emplace_back();
    }
    std::vector<int>& place = out[it->second];
    int os = topo.pu(i).os_index;
    if (std::find(place.begin(), place.end(), os) == place.end()) place.push_back(os);
  }
  return out;
}

bool abstract_places(const sched::Topology& topo, const std::string& name, std::vector<std::vector<int>>* out) {
  if (name == "threads") *out = group_by(topo, sched::Level::PU);
  else if (name == "cores") *out = topo.core_places();
  else if (name == "ll_caches") *out = group_by(topo, sched::Level::L3);
  else if (name == "numa_domains") *out = group_by(topo, sched::Level::Numa);
  else if (name == "sockets") *out = group_by(topo, sched::Level::Package);
  else return false;
  return true;
}

// A small recursive-descent parser for the OMP_PLACES grammar.
class PlaceParser {
 public:
  PlaceParser(const std::string& s, const std::set<int>& allowed) : s_(s), allowed_(allowed) {}

  bool parse(std::vector<std::vector<int>>* out) {
    std::vector<std::vector<int>> places;
    std::vector<std::vector<int>> excluded;
    do {
      skip();
      bool exclude = eat('!');
      std::vector<int> place;
      if (!parse_place(&place)) return false;
      long len = 1, stride = 1;
      if (!exclude && eat(':')) {
        if (!number(&len) || len < 1) return false;
        if (eat(':') && !number(&stride)) return false;
      }
      for (long k = 0; k < len; ++k) {
        std::vector<int> p;
        for (int c : place) p.push_back(int(c + k * stride));
        (exclude ? excluded : places).push_back(p);
      }
      skip();
    } while (eat(','));
    skip();
    if (pos_ != s_.size()) return false;
    std::vector<std::vector<int>> result;
    for (auto& p : places) {
      if (std::find(excluded.begin(), excluded.end(), p) != excluded.end()) continue;
      std::vector<int> usable;
      for (int c : p)
        if (allowed_.count(c)) usable.push_back(c);
      if (!usable.empty()) result.push_back(usable);
    }
    if (result.empty()) return false;
    *out = result;
    return true;
  }

 private:
  bool parse_place(std::vector<int>* out) {
    if (!eat('{')) return false;
    std::set<int> in, ex;
    do {
      skip();
      bool exclude = eat('!');
      long base;
      if (!number(&base)) return false;
      long len = 1, stride = 1;
      if (!exclude && eat(':')) {
        if (!number(&len) || len < 1) return false;
        if (eat(':') && !number(&stride)) return false;
      }
      for (long k = 0; k < len; ++k) (exclude ? ex : in).insert(int(base + k * stride));
      skip();
    } while (eat(','));
    if (!eat('}')) return false;
    for (int c : in)
      if (!ex.count(c)) out->push_back(c);
    return !out->empty();
  }
  void skip() {
    while (pos_ < s_.size() && isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool number(long* v) {
    skip();
    std::size_t start = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    while (pos_ < s_.size() && isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == start) return false;
    *v = strtol(s_.substr(start, pos_ - start).c_str(), nullptr, 10);
    return true;
  }
  const std::string& s_;
  const std::set<int>& allowed_;
  std::size_t pos_ = 0;
};

bool parse_places(const sched::Topology& topo, std::string spec, std::vector<std::vector<int>>* out) {
  std::string lower = spec;
  for (auto& c : lower) c = char(tolower(c));
  std::size_t paren = lower.find('(');
  std::string name = lower.substr(0, paren);
  while (!name.empty() && isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
  std::vector<std::vector<int>> abs;
  if (abstract_places(topo, name, &abs)) {
    if (paren != std::string::npos) {
      long n = strtol(lower.c_str() + paren + 1, nullptr, 10);
      if (n < 1 || lower.find(')') == std::string::npos) return false;
      if (std::size_t(n) < abs.size()) abs.resize(std::size_t(n));
    }
    *out = abs;
    return true;
  }
  std::set<int> allowed;
  for (int i = 0; i < topo.num_pus(); ++i) allowed.insert(topo.pu(i).os_index);
  return PlaceParser(spec, allowed).parse(out);
}

int parse_bind_word(std::string w) {
  for (auto& c : w) c = char(tolower(c));
  while (!w.empty() && isspace(static_cast<unsigned char>(w.back()))) w.pop_back();
  while (!w.empty() && isspace(static_cast<unsigned char>(w.front()))) w.erase(w.begin());
  if (w == "false") return omp_proc_bind_false;
  if (w == "true") return omp_proc_bind_true;
  if (w == "primary" || w == "master") return omp_proc_bind_master;
  if (w == "close") return omp_proc_bind_close;
  if (w == "spread") return omp_proc_bind_spread;
  return -1;
}

// KMP_AFFINITY, as far as it maps onto places: granularity picks the place
// kind, the type the binding policy; what does not map is said once.
// Returns whether it names a type (compact, scatter, balanced, explicit,
// none, disabled): libomp then ignores OMP_PLACES and OMP_PROC_BIND.
bool apply_kmp_affinity(const sched::Topology& topo, const std::string& v, std::string* places, std::string* bind) {
  std::string gran = "core", type;
  std::size_t pos = 0;
  bool said_empty = false;
  while (pos <= v.size()) {
    std::size_t comma = v.find(',', pos);
    if (v.compare(pos, 9, "proclist=") == 0) {  // proclist=[...] contains commas
      std::size_t close = v.find(']', pos);
      std::string list = v.substr(pos + 10, close == std::string::npos ? std::string::npos : close - pos - 10);
      std::string explicit_places;
      std::size_t p = 0;
      while (p <= list.size()) {
        std::size_t c = list.find(',', p);
        std::string item = list.substr(p, c == std::string::npos ? std::string::npos : c - p);
        // One place per processor, as libomp: a range a-b is b-a+1 places.
        std::size_t dash = item.find('-');
        int lo = atoi(item.c_str()), hi = dash != std::string::npos ? atoi(item.c_str() + dash + 1) : lo;
        for (int cpu = lo; cpu <= hi; ++cpu)
          explicit_places += (explicit_places.empty() ? "{" : ",{") + std::to_string(cpu) + "}";
        if (c == std::string::npos) break;
        p = c + 1;
      }
      *places = explicit_places;
      pos = close == std::string::npos ? v.size() + 1 : close + 2;
      continue;
    }
    std::string tok = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (tok.rfind("granularity=", 0) == 0) gran = tok.substr(12);
    else if (tok == "compact" || tok == "scatter" || tok == "balanced" || tok == "none" || tok == "disabled" ||
             tok == "explicit")
      type = tok;
    else if (tok == "verbose" || tok == "noverbose" || tok == "warnings" || tok == "nowarnings" || tok == "respect" ||
             tok == "norespect")
      ;
    else if (tok.empty() && !said_empty) {
      said_empty = true;
      warn_setting("KMP_AFFINITY", SettingWarning::Invalid, "KMP_AFFINITY: an empty item in '%s'; ignored", v.c_str());
    } else if (!tok.empty()) {
      warn_setting("KMP_AFFINITY", SettingWarning::NotApplied,
                   "KMP_AFFINITY: '%s' does not map onto OpenMP places; ignored", tok.c_str());
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (type.empty()) return false;
  if (type == "none" || type == "disabled") {
    *bind = "false";
    return true;
  }
  if (places->empty()) {
    if (gran == "fine" || gran == "thread") *places = "threads";
    else if (gran == "socket" || gran == "package") *places = "sockets";
    else *places = "cores";
  }
  *bind = type == "compact" || type == "explicit" ? "close" : "spread";
  (void)topo;
  return true;
}

// KMP_HW_SUBSET (libomp's): use only part of the machine, the first N
// sockets (`Ns`), the first N cores of each (`Nc`), the first N hardware
// threads of each core (`Nt`), each optionally from an offset (`Nc@O`), in
// any order. The OS processors kept, or false (with a warning) if the value
// is not of that form; other layers (NUMA nodes, caches, tiles) are not
// supported and say so.
bool hw_subset(const sched::Topology& topo, const std::string& spec, std::set<int>* keep) {
  struct Limit {
    long count = -1, offset = 0;  // count -1: the whole layer
  } lim[3];                       // sockets, cores, threads
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    std::size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long n = strtol(item.c_str(), &end, 10);
    int layer = -1;
    if (end != item.c_str() && n > 0 && *end) {
      char kind = char(tolower(static_cast<unsigned char>(*end)));
      layer = kind == 's' ? 0 : kind == 'c' ? 1 : kind == 't' ? 2 : -1;
      ++end;
    }
    long offset = 0;
    if (layer >= 0 && *end == '@') {
      char* oend = nullptr;
      offset = strtol(end + 1, &oend, 10);
      end = offset >= 0 && oend != end + 1 ? oend : nullptr;
    }
    if (layer < 0 || !end || *end) {
      warn_setting("KMP_HW_SUBSET", SettingWarning::Invalid,
                   "ignoring KMP_HW_SUBSET='%s' ('%s' is not Ns, Nc or Nt with an optional @offset; other layers are "
                   "not supported)",
                   spec.c_str(), item.c_str());
      return false;
    }
    lim[layer] = Limit{n, offset};
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  // Each processor's position: its socket among sockets, its core among its
  // socket's cores, its thread among its core's threads, in topology order.
  // By the nodes ancestor_at gives (a collapsed level, one hardware thread
  // per core say, answers with the node that stands for it).
  auto within = [](long ord, const Limit& l) { return l.count < 0 || (ord >= l.offset && ord < l.offset + l.count); };
  std::map<const sched::TopoNode*, long> pack_ord, core_ord, threads_seen;
  std::map<const sched::TopoNode*, long> cores_in_pack;
  for (int i = 0; i < topo.num_pus(); ++i) {
    const sched::TopoNode* pack = &topo.ancestor_at(i, sched::Level::Package);
    const sched::TopoNode* core = &topo.ancestor_at(i, sched::Level::Core);
    if (!pack_ord.count(pack)) pack_ord.emplace(pack, long(pack_ord.size()));
    if (!core_ord.count(core)) core_ord.emplace(core, cores_in_pack[pack]++);
    long thread = threads_seen[core]++;
    int os = topo.pu(i).os_index;
    if (os >= 0 && within(pack_ord[pack], lim[0]) && within(core_ord[core], lim[1]) && within(thread, lim[2]))
      keep->insert(os);
  }
  return true;
}

}  // namespace

void places_init(const sched::Topology& topo) {
  const Settings& st = settings();
  std::string places_spec = st.places, bind_spec = st.proc_bind;
  // KMP_AFFINITY with a type wins over OMP_PLACES and OMP_PROC_BIND, which
  // are then ignored with a warning, as libomp does; without one (only
  // granularity, verbose, a proclist) it applies when neither is set.
  if (!st.kmp_affinity.empty()) {
    std::string kmp_places, kmp_bind;
    bool typed = apply_kmp_affinity(topo, st.kmp_affinity, &kmp_places, &kmp_bind);
    if (typed) {
      if (!places_spec.empty())
        warn_setting("OMP_PLACES", SettingWarning::NotApplied, "OMP_PLACES: ignored because KMP_AFFINITY has been defined");
      if (!bind_spec.empty())
        warn_setting("OMP_PROC_BIND", SettingWarning::NotApplied,
                     "OMP_PROC_BIND: ignored because KMP_AFFINITY has been defined");
    }
    if (typed || (places_spec.empty() && bind_spec.empty())) places_spec = kmp_places, bind_spec = kmp_bind;
  }
  g_places = topo.core_places();
  places_name_var() = "cores";
  if (!places_spec.empty() && !parse_places(topo, places_spec, &g_places)) {
    warn_setting("OMP_PLACES", SettingWarning::Invalid,
                 "ignoring OMP_PLACES='%s' (not a valid place list for this machine); using one place per core",
                 places_spec.c_str());
    g_places = topo.core_places();
  } else if (!places_spec.empty()) {
    std::string lower = places_spec;
    for (auto& c : lower) c = char(tolower(c));
    std::vector<std::vector<int>> unused;
    places_name_var() = abstract_places(topo, lower.substr(0, lower.find('(')), &unused) ? lower : std::string();
  }
  if (const char* subset = getenv("KMP_HW_SUBSET")) {
    std::set<int> keep;
    if (hw_subset(topo, subset, &keep) && !keep.empty()) {
      std::vector<std::vector<int>> kept;
      for (const std::vector<int>& p : g_places) {
        std::vector<int> in;
        for (int cpu : p)
          if (keep.count(cpu)) in.push_back(cpu);
        if (!in.empty()) kept.push_back(in);
      }
      g_places = kept;
    }
  }
  if (g_places.empty()) g_places.push_back(ult::allowed_cpus());
  g_place_masks.clear();
  for (const std::vector<int>& p : g_places) g_place_masks.emplace_back(p);
  g_bind_list.clear();
  if (!bind_spec.empty()) {
    std::size_t pos = 0;
    while (pos <= bind_spec.size()) {
      std::size_t comma = bind_spec.find(',', pos);
      int b = parse_bind_word(bind_spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      if (b < 0) {
        warn_setting("OMP_PROC_BIND", SettingWarning::Invalid,
                     "ignoring OMP_PROC_BIND='%s' (not a valid policy list); using false", bind_spec.c_str());
        g_bind_list.clear();
        break;
      }
      g_bind_list.push_back(b);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    // "false" and "true" may only stand alone (spec 6.4).
    if (g_bind_list.size() > 1 &&
        (std::find(g_bind_list.begin(), g_bind_list.end(), omp_proc_bind_false) != g_bind_list.end() ||
         std::find(g_bind_list.begin(), g_bind_list.end(), omp_proc_bind_true) != g_bind_list.end())) {
      warn_setting("OMP_PROC_BIND", SettingWarning::Invalid,
                   "ignoring OMP_PROC_BIND='%s' (true and false must stand alone); using false", bind_spec.c_str());
      g_bind_list.clear();
    }
  }
  // OMP_PLACES alone asks for binding too (implementation-defined: as libomp, true).
  if (g_bind_list.empty() && !places_spec.empty()) g_bind_list.push_back(omp_proc_bind_true);
  g_requested = !g_bind_list.empty() && g_bind_list[0] != omp_proc_bind_false;
  for (std::atomic<int>& p : g_worker_pin) p.store(-1, std::memory_order_relaxed);
  g_places_are_cores = g_places == topo.core_places();
  // A bound thread's fiber re-pins its worker as it resumes (ult/worker.cpp):
  // a worker that ran members bound elsewhere while it waited follows them.
  ult::install_resumed_hook(&follow_place);
}

void take_place(int place) {
  follow_place(place);
  if (ult::Fiber* f = ult::Worker::current_fiber()) f->set_place(place);
}

int bound_core() {
  const Thread* me = current_thread_fast();
  return me && g_places_are_cores ? me->binding.place : -1;
}

const std::vector<std::vector<int>>& places() { return g_places; }
const std::string& places_name() { return places_name_var(); }
bool binding_requested() { return g_requested; }
int initial_bind() { return g_bind_list.empty() ? omp_proc_bind_false : g_bind_list[0]; }
int bind_list_length() { return int(g_bind_list.size()); }
int bind_at(int pos, int fallback) {
  if (pos < 0 || std::size_t(pos) >= g_bind_list.size()) return fallback;
  return g_bind_list[std::size_t(pos)];
}

Binding initial_binding() {
  Binding b;
  b.part_start = 0;
  b.part_len = int(g_places.size());
  b.place = g_requested ? 0 : -1;
  return b;
}

void assign_places(const Binding& master, int bind, int n, std::vector<Binding>& out) {
  out.assign(std::size_t(n), Binding{});
  int total = int(g_places.size());
  if (bind == omp_proc_bind_false || total == 0) return;
  Binding m = master;
  if (m.part_len <= 0) {
    m.part_start = 0;
    m.part_len = total;
  }
  if (m.place < 0) m.place = m.part_start;
  int P = m.part_len;
  int pos = ((m.place - m.part_start) % total + total) % total;  // master's position in its partition
  if (pos >= P) pos = 0;
  auto abs = [&](int k) { return (m.part_start + ((pos + k) % P + P) % P) % total; };
  if (bind == omp_proc_bind_true) bind = omp_proc_bind_spread;
  for (int i = 0; i < n; ++i) {
    Binding& b = out[std::size_t(i)];
    b.part_start = m.part_start;
    b.part_len = P;
    switch (bind) {
      case omp_proc_bind_master:
        b.place = m.place;
        break;
      case omp_proc_bind_close:
        b.place = n <= P ? abs(i) : abs(int(int64_t(i) * P / n));
        break;
      case omp_proc_bind_spread:
      default:
        if (n <= P) {
          int base = P / n, extra = P % n;
          int off = i * base + std::min(i, extra);
          b.part_start = abs(off);
          b.part_len = base + (i < extra ? 1 : 0);
          b.place = b.part_start;
        } else {
          b.place = abs(int(int64_t(i) * P / n));
          b.part_start = b.place;
          b.part_len = 1;
        }
        break;
    }
  }
}

Binding bind_root_thread(int number) {
  Binding b = initial_binding();
  if (!g_requested || g_places.empty()) return Binding{-1, b.part_start, b.part_len};
  b.place = number % int(g_places.size());
  ult::pin_current_thread(g_places[std::size_t(b.place)]);
  return b;
}

// The place the calling worker's kernel thread is pinned to by
// follow_place (-1: none, or pinned otherwise). Read in the signal handler:
// initial-exec, so no lookup that may allocate.
thread_local int t_pinned_place __attribute__((tls_model("initial-exec"))) = -1;

// Async-signal-safe: a fiber preempted by the monitor's signal resumes
// inside the handler (ult/worker.cpp, switch_away), and binds there. A pool
// worker, or a spare: a bound member that had not started when the monitor
// found its worker held moves to a spare kernel thread, which takes its
// place as it starts the member, as libomp's thread for it would be.
void follow_place(int place) {
  ult::Worker* w = ult::Worker::current();
  if (!w || !(w->in_pool() || w->spare()) || place < 0 || std::size_t(place) >= g_place_masks.size()) return;
  if (t_pinned_place == place) return;
  if (!ult::pin_current_thread(g_place_masks[std::size_t(place)])) return;
  t_pinned_place = place;
  if (w->in_pool()) g_worker_pin[w->id()].store(place, std::memory_order_relaxed);
}

ult::Worker* worker_on_place(int place, ult::Worker* creator) {
  int pool = ult::Worker::pool_size();
  // tilelu small, 4 threads on the 2 cores, OMP_PROC_BIND=spread,close:
  // with every member of a panel on one worker pinned elsewhere, 0.031 s;
  // on the least loaded worker of its place, 0.022; with the creator on a
  // one-processor place, 0.0125 (libomp 0.018).
  if (creator && creator->in_pool() && g_places[std::size_t(place)].size() == 1 &&
      g_worker_pin[creator->id()].load(std::memory_order_relaxed) == place)
    return creator;
  ult::Worker* pick = nullptr;
  std::size_t least = SIZE_MAX;
  for (int id = 0; id < pool; ++id) {
    if (g_worker_pin[id].load(std::memory_order_relaxed) != place) continue;
    ult::Worker* w = ult::Worker::at(id);
    if (!w) continue;
    // The fibers it would run before this one: its queue (which counts the
    // members this fork already queued there), and its running fiber
    // unless that waits for work.
    std::size_t load = w->ready_count() + (w->available() ? 0 : 1);
    if (load < least) least = load, pick = w;
  }
  return pick ? pick : ult::Worker::at(place % pool);
}

void leave_place() {
  if (t_pinned_place < 0) return;
  ult::Worker* w = ult::Worker::current();
  if (!w || !w->spare()) return;
  // Anywhere the process may run, as a spare starts (ult/worker.cpp).
  if (ult::pin_current_thread(ult::allowed_cpus())) t_pinned_place = -1;
}

// Without binding, the initial thread (worker 0's, the program's own) is not
// pinned while workers 1..n-1 are, one per place, and the kernel may run it
// on a processor one of them has. A region's member on that worker then
// waits for the initial thread's time slice, and the kernel rarely moves
// either (the worker cannot move, and the initial thread ran there last):
// measured, both threads of every short region on one processor for the
// whole program, 390 us per region of a 64K-element loop against 25. Each
// outermost fork looks where the initial thread runs (a read of the rseq
// area) and, if a worker has that place, moves the worker to the place no
// worker has. A worker pins itself as it starts (pin_worker), possibly after
// the initial thread moved it; one mutex orders the two, and the table says
// where each worker is meant to be (-1: its default, id modulo places).
namespace {
std::mutex g_unbound_mutex;
constinit ult::Eternal<std::vector<int>> g_unbound_place_storage;
constinit std::vector<int>& g_unbound_place = g_unbound_place_storage.value;  // under g_unbound_mutex
constinit ult::Eternal<std::vector<int>> g_place_of_cpu_storage;
constinit std::vector<int>& g_place_of_cpu = g_place_of_cpu_storage.value;  // OS processor -> place (-1: none); built on first use, initial thread only
// The (place, pool size) the initial thread was last found apart at: a
// fork that finds the same needs no lock. Initial thread only.
int g_apart_place = -1, g_apart_workers = 0;

int unbound_place_locked(int id) {  // g_unbound_mutex held
  if (std::size_t(id) < g_unbound_place.size() && g_unbound_place[std::size_t(id)] >= 0)
    return g_unbound_place[std::size_t(id)];
  return id % int(g_places.size());
}

int place_of_cpu(int cpu) {
  if (g_place_of_cpu.empty()) {
    for (std::size_t p = 0; p < g_places.size(); ++p)
      for (int c : g_places[p]) {
        if (std::size_t(c) >= g_place_of_cpu.size()) g_place_of_cpu.resize(std::size_t(c) + 1, -1);
        g_place_of_cpu[std::size_t(c)] = int(p);
      }
  }
  return std::size_t(cpu) < g_place_of_cpu.size() ? g_place_of_cpu[std::size_t(cpu)] : -1;
}
}  // namespace

// With more workers than places (an outermost team wider than the machine)
// and no binding asked for, no worker is pinned: kernel threads that share a
// processor by force cannot be balanced by the kernel when it is idle
// elsewhere (EPCC parallel at 4 threads on 2 processors, pinned two per
// processor: 5.8 us per region against libomp's 3.7 with unpinned threads).
// Once the pool has outgrown the places, it stays unpinned.
bool g_unpinned = false;  // under g_unbound_mutex

std::vector<int> all_place_cpus() {
  std::vector<int> all;
  for (const auto& p : g_places) all.insert(all.end(), p.begin(), p.end());
  return all;
}

void pin_unbound_worker(int id) {
  if (g_places.empty()) return;
  std::lock_guard<std::mutex> g(g_unbound_mutex);
  if (g_unpinned || std::size_t(id) >= g_places.size()) ult::pin_current_thread(all_place_cpus());
  else ult::pin_current_thread(g_places[std::size_t(unbound_place_locked(id))]);
}

void unpin_oversubscribed_pool(int nworkers, int others) {
  if (g_requested || std::size_t(nworkers + others) <= g_places.size()) return;
  std::lock_guard<std::mutex> g(g_unbound_mutex);
  if (g_unpinned) return;
  g_unpinned = true;
  std::vector<int> all = all_place_cpus();
  for (int i = 1; i < nworkers; ++i) {
    ult::Worker* w = ult::Worker::at(i);
    if (w && w->dedicated()) ult::pin_thread(w->native_thread(), all);
  }
}

void keep_initial_thread_apart(int nworkers) {
  if (g_requested || g_places.size() < 2 || std::size_t(nworkers) > g_places.size()) return;
  int cpu = ult::current_cpu();
  int here = cpu < 0 ? -1 : place_of_cpu(cpu);
  if (here < 0 || (here == g_apart_place && nworkers == g_apart_workers)) return;
  int nplaces = int(g_places.size());
  std::lock_guard<std::mutex> g(g_unbound_mutex);
  g_apart_place = here;
  g_apart_workers = nworkers;
  int k = 1;
  while (k < nworkers && unbound_place_locked(k) != here) ++k;
  if (k == nworkers) return;  // no worker has this place
  std::vector<bool> taken(std::size_t(nplaces), false);
  for (int j = 1; j < nworkers; ++j) taken[std::size_t(unbound_place_locked(j))] = true;
  taken[std::size_t(here)] = true;
  int p = 0;
  while (p < nplaces && taken[std::size_t(p)]) ++p;
  if (p == nplaces) return;  // every place has a worker: nowhere to go
  if (g_unbound_place.size() < std::size_t(nworkers)) g_unbound_place.resize(std::size_t(nworkers), -1);
  g_unbound_place[std::size_t(k)] = p;
  // A worker that has not pinned itself yet reads the table first.
  ult::Worker* w = ult::Worker::at(k);
  if (w && w->dedicated()) ult::pin_thread(w->native_thread(), g_places[std::size_t(p)]);
}

// ---- queries -----------------------------------------------------------------------

int num_places() {
  ensure_initialized();
  return int(g_places.size());
}
int place_num_procs(int place) {
  ensure_initialized();
  if (place < 0 || std::size_t(place) >= g_places.size()) return 0;
  return int(g_places[std::size_t(place)].size());
}
void place_proc_ids(int place, int* ids) {
  ensure_initialized();
  if (place < 0 || std::size_t(place) >= g_places.size() || !ids) return;
  for (int c : g_places[std::size_t(place)]) *ids++ = c;
}
int place_num() {
  const Thread* me = current_thread_fast();
  pin_initial_thread(me);
  return me->binding.place;
}
int partition_num_places() {
  const Binding& b = current_thread_fast()->binding;
  return b.place < 0 && !g_requested ? int(g_places.size()) : b.part_len;
}
void partition_place_nums(int* out) {
  const Binding& b = current_thread_fast()->binding;
  int total = int(g_places.size());
  int len = partition_num_places();
  int start = b.place < 0 && !g_requested ? 0 : b.part_start;
  for (int k = 0; k < len; ++k) out[k] = (start + k) % total;
}
int proc_bind() { return current_thread_fast()->icv.bind; }

}  // namespace bobbin::rt
