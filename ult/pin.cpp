#include "ult/pin.hpp"

#include <dlfcn.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <mutex>

#include "ult/atomic.hpp"
#include "ult/log.hpp"
#include "ult/thread_info.hpp"

namespace bobbin::ult {

static hwloc_topology_t g_topo = nullptr;
static std::once_flag g_once;

// hwloc loads every plugin it finds when the process's first topology is
// made, and keeps them while any topology lives (this one does, to the
// end). Bobbin reads processors, caches and NUMA nodes, which need none of
// them, and three cost most of its start-up: hwloc_gl (X11, about 3 ms),
// hwloc_xml_libxml (libxml2 and ICU, about 2.5 ms; hwloc's own XML code
// does without it) and hwloc_opencl. So while it makes the topology, Bobbin
// names them in HWLOC_PLUGINS_BLACKLIST, unless the variable is set (an
// empty value loads every plugin) or another hwloc user came first. It
// changes the environment only while the process has one thread: setenv
// and getenv are not safe together.
constexpr const char* kSkippedPlugins = "hwloc_gl,hwloc_opencl,hwloc_xml_libxml";

hwloc_topology* machine_topology() {
  std::call_once(g_once, [] {
    bool skip = !getenv("HWLOC_PLUGINS_BLACKLIST") && process_thread_count() == 1 &&
                setenv("HWLOC_PLUGINS_BLACKLIST", kSkippedPlugins, 0) == 0;
    bool ok = hwloc_topology_init(&g_topo) == 0;
    if (skip) unsetenv("HWLOC_PLUGINS_BLACKLIST");
    if (!ok || hwloc_topology_load(g_topo) != 0) {
      fatal("hwloc could not discover this machine's topology");
    }
  });
  return g_topo;
}

namespace {

Atomic<bool> g_program_unbound{false};
Atomic<bool> g_program_pinned{false};
thread_local int t_runtime_affinity = 0;

// Marks the calling thread's hwloc affinity calls as the runtime's own.
struct RuntimeAffinity {
  RuntimeAffinity() { ++t_runtime_affinity; }
  ~RuntimeAffinity() { --t_runtime_affinity; }
  RuntimeAffinity(const RuntimeAffinity&) = delete;
  RuntimeAffinity& operator=(const RuntimeAffinity&) = delete;
};

}  // namespace

}  // namespace bobbin::ult

// Whether a thread's read of its own mask may be answered with the
// process's (program unbound, not pinned by the program): the test
// sched_getaffinity's entry point makes before it jumps on to the C
// library's (affinity_linux.cpp). A hint: the slow path checks again.
extern "C" __attribute__((visibility("hidden"))) bool bobbin_affinity_answers;
bool bobbin_affinity_answers = false;

namespace bobbin::ult {

void set_program_unbound(bool on) {
  g_program_unbound.store(on, memory_order_relaxed);
  __atomic_store_n(&bobbin_affinity_answers, on && !program_pinned(), __ATOMIC_RELAXED);
}
bool program_unbound() { return g_program_unbound.load(memory_order_relaxed); }
bool program_pinned() { return g_program_pinned.load(memory_order_relaxed); }
void note_program_pin() {
  g_program_pinned.store(true, memory_order_relaxed);
  __atomic_store_n(&bobbin_affinity_answers, false, __ATOMIC_RELAXED);
}
bool in_runtime_affinity() { return t_runtime_affinity != 0; }

namespace {

// Builds the cpuset of `os_cpus` and hands it to `bind` (one hwloc call).
template <class Bind>
bool bind_to(const std::vector<int>& os_cpus, Bind bind) {
  if (os_cpus.empty()) return false;
  RuntimeAffinity mine;
  hwloc_topology_t t = machine_topology();
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  for (int c : os_cpus) hwloc_bitmap_set(set, unsigned(c));
  bool ok = bind(t, set) == 0;
  hwloc_bitmap_free(set);
  return ok;
}

}  // namespace

bool pin_current_thread(const std::vector<int>& os_cpus) {
  return bind_to(os_cpus, [](hwloc_topology_t t, hwloc_bitmap_t set) { return hwloc_set_cpubind(t, set, HWLOC_CPUBIND_THREAD); });
}

CpuMask::CpuMask(const std::vector<int>& os_cpus) {
  constexpr int kBits = 8 * sizeof(unsigned long);
  for (int c : os_cpus) {
    if (c < 0) continue;
    if (std::size_t(c / kBits) >= bits_.size()) bits_.resize(std::size_t(c / kBits) + 1, 0);
    bits_[std::size_t(c / kBits)] |= 1UL << (c % kBits);
  }
}

CpuMask CpuMask::of_current_thread() {
  CpuMask m;
  // The kernel fails the call on a buffer narrower than its own mask.
  for (std::size_t words = 16; words <= (std::size_t(1) << 16); words *= 2) {
    m.bits_.assign(words, 0);
    long got = syscall(SYS_sched_getaffinity, 0, words * sizeof(unsigned long), m.bits_.data());
    if (got > 0) {
      while (!m.bits_.empty() && m.bits_.back() == 0) m.bits_.pop_back();
      return m;
    }
    if (errno != EINVAL) break;
  }
  m.bits_.clear();
  return m;
}

bool pin_current_thread(const CpuMask& mask) {
  if (mask.empty()) return false;
  // The system call itself, not a library's wrapper: nothing but the kernel
  // runs, so this is safe in a signal handler (errno is the caller's to keep).
  return syscall(SYS_sched_setaffinity, 0, mask.bits_.size() * sizeof(unsigned long), mask.bits_.data()) == 0;
}

namespace {

std::vector<int> read_allowed_cpus() {
  RuntimeAffinity mine;
  hwloc_topology_t t = machine_topology();
  std::vector<int> out;
  hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(t);
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  // The process's own mask (taskset, cgroups) narrows what hwloc allows.
  if (hwloc_get_cpubind(t, bound, HWLOC_CPUBIND_PROCESS) != 0) hwloc_bitmap_copy(bound, allowed);
  hwloc_bitmap_and(bound, bound, allowed);
  int i;
  hwloc_bitmap_foreach_begin(i, bound) { out.push_back(i); }
  hwloc_bitmap_foreach_end();
  hwloc_bitmap_free(bound);
  return out;
}

}  // namespace

// Read once. The process's mask is the union of its threads' masks, and
// hwloc reads it by listing /proc/self/task and asking each thread: with
// thousands of workers, each spare asking as it starts made the start of a
// 4096-worker pool quadratic (seconds of system time). After the first call
// the runtime's own threads are the only ones whose masks change, and they
// only narrow within this set.
const std::vector<int>& allowed_cpus() {
  static const std::vector<int> cpus = read_allowed_cpus();
  return cpus;
}

bool pin_thread(unsigned long pthread, const std::vector<int>& os_cpus) {
  return bind_to(os_cpus, [pthread](hwloc_topology_t t, hwloc_bitmap_t set) {
    return hwloc_set_thread_cpubind(t, pthread_t(pthread), set, HWLOC_CPUBIND_THREAD);
  });
}

int current_cpu() { return sched_getcpu(); }

}  // namespace bobbin::ult

// ---- libgomp's start-up binding, under LD_PRELOAD ----------------------------
// A gcc-built program run with Bobbin preloaded still loads libgomp.so.1
// (its DT_NEEDED), and libgomp's start-up code runs before Bobbin's: with
// OMP_PLACES or OMP_PROC_BIND set it binds the initial thread to its first
// place. Bobbin would then see one CPU (allowed_cpus reads the process's
// mask) and put every worker on it. libgomp's calls are answered here
// without effect: Bobbin serves the program's OpenMP, and binds the initial
// thread itself when binding is asked for. Every other caller goes through
// to the C library; one that is not the runtime is the program pinning a
// thread itself (note_program_pin). libgomp asks for the symbol at
// GLIBC_2.34, so it is exported at that node (abi/bobbin.map); the C
// library's comes next in the lookup order (RTLD_NEXT).
extern "C" __attribute__((visibility("default"))) int bobbin_setaffinity(pthread_t thread, size_t size,
                                                                       const cpu_set_t* set)
    __asm__("pthread_setaffinity_np");
extern "C" int bobbin_setaffinity(pthread_t thread, size_t size, const cpu_set_t* set) {
  using Fn = int (*)(pthread_t, size_t, const cpu_set_t*);
  static Fn next = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "pthread_setaffinity_np"));
  Dl_info info;
  if (dladdr(__builtin_return_address(0), &info) && info.dli_fname) {
    const char* base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (!strncmp(base, "libgomp.so", 10)) return 0;
  }
  if (!next) return ENOSYS;
  if (!bobbin::ult::in_runtime_affinity()) bobbin::ult::note_program_pin();
  return next(thread, size, set);
}
