// Progress when OpenMP threads outnumber the workers: the runtime's side of
// the progress monitor (ult/monitor.cpp has the design).
//
// Memory per call site. When the monitor had to rescue a fiber (move it to
// a spare kernel thread, or preempt it), the region it belongs to is
// remembered by its outlined body (the microtask or GOMP function): the next
// times that region forks, outside a gang, each member gets a spare kernel
// thread of its own from the start (open_region asks wants_own_threads): 8
// forks after the first rescue, twice as many after each later one (up to
// 1024), then fibers again; a fork as fibers that needs no rescue (a probe
// that passed) makes the memory start over. So a loop of 1000 regions whose
// members meet at a user spin barrier pays the detection about ten times, a
// region whose threads only meet in the runtime keeps running as fibers,
// and one rescued now and then because its body ran long, or one whose
// body stopped waiting outside the runtime, goes back to fibers. The table is lock-free (the preemption hook runs inside
// a signal handler): open addressing over atomics, never shrunk. A region
// that misses the table when it is full runs as fibers and is rescued again.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>

#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "scheduler/gang.hpp"
#include "ult/monitor.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt {

void print_scheduler_state();  // team.cpp

namespace {

constexpr std::size_t kSites = 1024;  // a guess: distinct rescued regions per program
Atomic<uintptr_t> g_sites[kSites];

std::size_t slot_of(uintptr_t key) { return std::size_t((key * 0x9E3779B97F4A7C15ull) >> 54) % kSites; }

// Async-signal-safe: atomics only.
// A site's entry: its key, how many more forks get kernel threads (budget),
// and how many the next rescue grants (backoff: it doubles at each rescue,
// up to kMaxBackoff). So a region whose members wait for each other at a
// user barrier tries fibers again once in a while and pays a detection
// each time, fewer and fewer; and a region rescued once because its body
// ran long (EPCC's calibration, a first touch) goes back to fibers after a
// few forks instead of never: EPCC parallel at 4 threads on 2 cores, 236 us
// per region with the memory kept forever, 1-4 us with it.
//
// The cap: 1 << 16 before, with no start-over; then a region that changed
// (syncshapes runs every shape from one outlined region: the gcc flag
// shape's rescues gave the pipe, pthread and sem shapes after it kernel
// threads, 1.4-4x libgomp's time at outer 4 and 8, where each shape alone is
// 0.15-0.7x) or was rescued for long tasks kept kernel threads for tens of
// thousands of forks. At 1024, a region rescued at every probe pays one
// detection (0.25-2 ms) per 1024 forks once the backoff is full.
// A fork counts once however many of its members were rescued, and so do
// concurrent forks of one region (each used to double the backoff: an
// outer team of 8 probing together multiplied it by 2^8).
constexpr int32_t kFirstBackoff = 8;
constexpr int32_t kMaxBackoff = 1 << 10;
Atomic<int32_t> g_budget[kSites];
Atomic<int32_t> g_backoff[kSites];

// The slot holding key, or kSites; `insert` claims a free one on the way.
std::size_t find_site(uintptr_t key, bool insert) {
  std::size_t s = slot_of(key);
  for (std::size_t i = 0; i < 32; ++i) {
    std::size_t at = (s + i) % kSites;
    Atomic<uintptr_t>& slot = g_sites[at];
    uintptr_t v = slot.load(memory_order_relaxed);
    if (v == key) return at;
    if (v != 0) continue;
    if (!insert) return kSites;
    // relaxed: the table is a hint; a fork that misses a fresh entry runs as fibers once more.
    if (slot.compare_exchange_strong(v, key, memory_order_relaxed) || v == key) return at;
  }
  return kSites;
}

// Async-signal-safe: atomics only.
void remember_site(uintptr_t key) {
  if (!key) return;
  std::size_t at = find_site(key, true);
  if (at == kSites) return;
  // Armed already by a rescue in a concurrent fork of the same region (an
  // outer team's threads probe together): one doubling for them all.
  if (g_budget[at].load(memory_order_relaxed) > 0) return;
  int32_t b = g_backoff[at].load(memory_order_relaxed);
  b = b == 0 ? kFirstBackoff : std::min(b * 2, kMaxBackoff);
  g_backoff[at].store(b, memory_order_relaxed);
  g_budget[at].store(b, memory_order_relaxed);
}

// Whether the next fork of this site gets kernel threads; uses up one of
// them. *probe: the site is remembered but its budget is spent (this fork
// tries fibers again).
bool take_site_budget(uintptr_t key, bool* probe) {
  *probe = false;
  std::size_t at = find_site(key, false);
  if (at == kSites) return false;
  // relaxed: a hint; two forks racing for the last unit both may take it.
  if (g_budget[at].load(memory_order_relaxed) <= 0) {
    *probe = g_backoff[at].load(memory_order_relaxed) != 0;
    return false;
  }
  g_budget[at].fetch_sub(1, memory_order_relaxed);
  return true;
}

// Remembers team's region, once per fork. Async-signal-safe.
void remember_team(const Team* team) {
  // relaxed: only this fork's other rescues race for it; the join reads it
  // after every member ended its part.
  if (team->rescued.exchange(true, memory_order_relaxed)) return;
  remember_site(reinterpret_cast<uintptr_t>(team->body.fn));
}

// The monitor's `rescued` hook: on the monitor thread for a fiber taken
// before it started (its descriptor is set up and nobody runs it), or in
// the preemption signal handler on the preempted fiber's own thread.
void on_rescued(ult::Fiber* f) {
  auto* t = static_cast<Thread*>(f->user());
  if (!t) return;
  const Team* team = t->team;
  if (!team) return;
  // Outermost teams bound to workers have a kernel thread per member
  // already; gangs are placed by gang.cpp.
  if (!team->outermost && !team->gang_key && team->nthreads >= 2) remember_team(team);
  // A member of an outermost team run as fibers, rescued in a nested region
  // it opened (its primary thread): its own region is remembered too, so
  // that its next fork gives the outer members kernel threads. Otherwise
  // only the inner members got them, and the outer ones, each the primary
  // thread of an inner team that meets outside the runtime, took turns on
  // the workers by preemption, one time slice per round: spin barriers at
  // outer 8 x inner 3 on 2 cores took 7.4 s, libomp 1.9.
  const Team* up = team;
  while (!up->wide_fibers && up->parent && up->members[0] == t) up = up->parent;
  if (up != team && up->wide_fibers) remember_team(up);
}

// Every descriptor, for the report: a fixed array (the report is a hint;
// a descriptor beyond it is left out).
constexpr int kRegistry = 1 << 16;
Atomic<Thread*> g_registry[kRegistry];
Atomic<int> g_registry_len{0};

void report_waits() {
  print_scheduler_state();
  int n = std::min(g_registry_len.load(memory_order_acquire), kRegistry);
  int shown = 0;
  for (int i = 0; i < n && shown < 64; ++i) {
    Thread* t = g_registry[i].load(memory_order_acquire);
    if (!t) continue;
    const char* what = t->waiting_for.load(memory_order_relaxed);
    if (!what) continue;
    const Team* team = t->team;
    ult::Worker* home = t->fiber.home();
    fprintf(stderr, "bobbin:   OpenMP thread %d of %d (level %d, global id %d%s) waits for %s%s%s\n", t->tid,
            team ? team->nthreads : 0, team ? team->level : 0, t->gtid, team && team->gang_key ? ", in a gang" : "",
            what, home ? " on worker " : "", home ? std::to_string(home->id()).c_str() : "");
    ++shown;
  }
  if (shown == 0) fprintf(stderr, "bobbin:   no OpenMP thread waits in the runtime (they wait in user code)\n");
}

}  // namespace

Thread::Thread() {
  int i = g_registry_len.fetch_add(1, memory_order_acq_rel);
  if (i < kRegistry) g_registry[i].store(this, memory_order_release);  // pairs with report_waits' acquire
}

Thread::~Thread() {
  int n = std::min(g_registry_len.load(memory_order_acquire), kRegistry);
  for (int i = 0; i < n; ++i) {
    Thread* expect = this;
    if (g_registry[i].compare_exchange_strong(expect, nullptr, memory_order_acq_rel)) break;
  }
}

void progress_init() {
  ult::install_rescued_hook(&on_rescued);
}

static ult::MonitorSettings monitor_settings() {
  const Settings& st = settings();
  ult::MonitorSettings m;
  m.stuck_ns = uint64_t(st.stuck_us) * 1000;
  m.preempt = st.preempt;
  m.watchdog_ns = uint64_t(st.watchdog_s) * 1'000'000'000ull;
  m.report = &report_waits;
  return m;
}

// At every fork of more than one thread: one relaxed load once it runs (and
// again after a fork() child's first region, since forget cleared it).
void start_progress_monitor() {
  if (!ult::monitor_running()) ult::start_monitor(monitor_settings());
}

bool wants_own_threads(const RegionBody& body, Team* team) {
  team->rescued.store(false, memory_order_relaxed);
  return take_site_budget(reinterpret_cast<uintptr_t>(body.fn), &team->probe);
}

void forget_rescues_if_probe_passed(const Team* team) {
  if (!team->probe || team->rescued.load(memory_order_relaxed)) return;
  std::size_t at = find_site(reinterpret_cast<uintptr_t>(team->body.fn), false);
  // relaxed: a hint, as the rest of the table.
  if (at != kSites) g_backoff[at].store(0, memory_order_relaxed);
}

}  // namespace bobbin::rt
