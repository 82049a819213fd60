// libomp's kmp_* extensions that LLVM's omp.h declares: stack size, block
// time, library mode, deferred settings, affinity masks, cancellation
// status. Each maps onto a Bobbin setting or query; the one that cannot mean
// what it means on libomp (binding one thread to a mask) says so once at run
// time.
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/api.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "runtime/wait.hpp"
#include "ult/log.hpp"
#include "ult/stack_pool.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt {

namespace {
std::atomic<int> g_library{3};  // 1 serial, 2 turnaround, 3 throughput (libomp's default)
std::atomic<int> g_saved_thread_limit{-1};

void say_once(std::atomic<bool>& said, const char* what) {
  if (!said.exchange(true, std::memory_order_relaxed)) warn("%s", what);
}
}  // namespace

void kmp_set_stacksize(std::size_t bytes) {
  ensure_initialized();
  if (bytes == 0) return;
  mutable_settings().stacksize = bytes;
  ult::set_stack_size(bytes);  // fibers started from now on
}

std::size_t kmp_stacksize() {
  ensure_initialized();
  return ult::stack_size();
}

void kmp_set_blocktime(int ms) {
  ensure_initialized();
  if (ms < 0) return;
  mutable_settings().blocktime_us = int64_t(ms) * 1000;
  if (g_library.load(std::memory_order_relaxed) != 2) apply_wait_settings();
}

// What idle threads do: OMP_WAIT_POLICY decides over the block time
// (settings.cpp, worker_spin_ns), so passive reports 0 and active INT_MAX,
// as libomp reports them.
int kmp_blocktime() {
  if (settings().wait_policy == 2) return 0;
  if (settings().wait_policy == 1) return INT_MAX;
  int64_t us = settings().blocktime_us;
  return us / 1000 > INT_MAX ? INT_MAX : int(us / 1000);
}

// serial: every later region runs one thread (through thread-limit-var, so
// the previous limit comes back on leaving serial mode; switch modes between
// regions, as libomp asks, not inside one); turnaround: idle
// threads spin without ever sleeping; throughput: spin for the block time,
// then sleep.
void kmp_set_library(int mode) {
  ensure_initialized();
  if (mode < 1 || mode > 3) return;
  Settings& st = mutable_settings();
  int old = g_library.exchange(mode, std::memory_order_relaxed);
  if (mode == 1 && old != 1) {
    g_saved_thread_limit.store(st.thread_limit, std::memory_order_relaxed);
    st.thread_limit = 1;
  } else if (mode != 1 && old == 1) {
    st.thread_limit = g_saved_thread_limit.load(std::memory_order_relaxed);
  }
  if (mode == 2) {
    g_fiber_spin_ns = UINT64_MAX;
    ult::Worker::set_spin_ns(UINT64_MAX);
  } else {
    apply_wait_settings();
  }
}

int kmp_library() { return g_library.load(std::memory_order_relaxed); }

// "NAME=VALUE" pairs separated by white space, read as the environment is.
// The runtime has started by the time a program can call this, so what is
// read once at start-up (places, the initial thread's ICVs) keeps its value;
// the settings read as the program runs (block time, stack size for new
// fibers, wait policy, cancellation, schedules, displays) take the new one.
void kmp_set_defaults(const char* text) {
  if (!text) return;
  std::string s(text);
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ',')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != ',') ++j;
    std::string item = s.substr(i, j - i);
    std::size_t eq = item.find('=');
    if (eq != std::string::npos && eq > 0) apply_setting(item.substr(0, eq), item.substr(eq + 1));
    i = j;
  }
  ult::set_stack_size(settings().stacksize);
  if (g_library.load(std::memory_order_relaxed) != 2) apply_wait_settings();
}

// As on libomp: a count in range takes effect if the runtime has not made
// its first team's dispatch ring yet (that is, before it initialises); the
// rings are never resized.
void kmp_set_disp_num_buffers(int n) {
  if (n < kMinDispatchBuffers || n > kMaxDispatchBuffers) return;
  static std::atomic<bool> said{false};
  if (!set_dispatch_buffers(n))
    say_once(said, "kmp_set_disp_num_buffers: the runtime has started, its dispatch buffers are made; the count is "
                   "unchanged");
}

// ---- affinity masks: a kmp_affinity_mask_t holds a heap cpu_set_t ----

int kmp_affinity_max_proc() {
  long n = sysconf(_SC_NPROCESSORS_CONF);
  return n > 0 ? int(n) : 1;
}

void kmp_create_mask(void** mask) {
  if (!mask) return;
  auto* set = new cpu_set_t;
  CPU_ZERO(set);
  *mask = set;
}

void kmp_destroy_mask(void** mask) {
  if (!mask || !*mask) return;
  delete static_cast<cpu_set_t*>(*mask);
  *mask = nullptr;
}

// 0 done, -1 proc out of range, -2 no mask (libomp's codes).
int kmp_mask_proc(int proc, void** mask, int op) {
  if (!mask || !*mask) return -2;
  if (proc < 0 || proc >= kmp_affinity_max_proc() || proc >= CPU_SETSIZE) return -1;
  auto* set = static_cast<cpu_set_t*>(*mask);
  if (op > 0) CPU_SET(proc, set);
  else if (op < 0) CPU_CLR(proc, set);
  else return CPU_ISSET(proc, set) ? 1 : 0;
  return 0;
}

// The processors the calling thread may run on: its worker's binding.
int kmp_get_affinity(void** mask) {
  if (!mask || !*mask) return -2;
  ensure_initialized();
  return sched_getaffinity(0, sizeof(cpu_set_t), static_cast<cpu_set_t*>(*mask)) == 0 ? 0 : -1;
}

int kmp_set_affinity(void** mask) {
  static std::atomic<bool> said{false};
  if (!mask || !*mask) return -2;
  say_once(said,
           "kmp_set_affinity is not supported: OpenMP threads are fibers on workers bound by OMP_PLACES and "
           "OMP_PROC_BIND; the binding is unchanged");
  return -1;
}

void warn_partial(Partial what) {
  static std::atomic<bool> said[3];
  static const char* const text[3] = {
      "num_threads with the strict modifier: the number is asked for, but a team smaller than asked is not "
      "reported as an error",
      "num_threads with a list: the first value is used for the region, the values for nested regions are ignored",
      "the thread_limit clause outside a teams construct is ignored",
  };
  auto i = std::size_t(what);
  if (i < 3) say_once(said[i], text[i]);
}

int kmp_unbind_thread() {
  static std::atomic<bool> said{false};
  say_once(said,
           "kmp_set_thread_affinity_mask_initial is not supported: OpenMP threads are fibers on workers bound by "
           "OMP_PLACES and OMP_PROC_BIND; the binding is unchanged");
  return -1;
}

int kmp_cancellation_status(int kind) { return cancellation_point(kind) ? 1 : 0; }

int kmp_known_threads() {
  ensure_initialized();
  return ult::Worker::pool_size();
}

}  // namespace bobbin::rt
