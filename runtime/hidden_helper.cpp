// Hidden helper threads, as libomp has them: the task of a target construct
// (`target nowait`, or a target construct with depend clauses; the compiler
// allocates it through the target-task entry point) runs on one of a few
// kernel threads the runtime keeps for such tasks, never on a thread of the
// team that created it, so the team goes on while the region runs (on a
// device, the transfers and the kernel; here, with no device, the host
// version of the region).
//
// What a program sees, as with libomp: the helpers' global thread ids are 1
// to n (LIBOMP_NUM_HIDDEN_HELPER_THREADS, 8 by default), and every other
// thread has 0 or an id above n (team.cpp numbers them); a target task runs
// on a helper; it is still its creator's child, in its creator's taskgroup
// and in its dependence domain, so taskwait, taskgroup, the region's
// barrier and dependences with the team's other tasks wait for it as for
// any task.
//
// Design. The helpers are kernel threads, not fibers on the workers: their
// point is to run beside the team, and a target region may block (on a
// device, or in a host fallback that waits for other tasks); each becomes a
// worker of its own with a team of one, as a program thread does at its
// first call (adopt_hidden_helper_thread), so whatever the region does
// (tasks, nested parallel regions, locks) works there as in any program
// thread. They start with the first target task, as libomp's do.
// Rejected: fibers in the pool (a helper running a long region would hold a
// worker the team's fibers need); the team's own task lists with a filter
// (every pop and steal of every task would pay for a rare kind).
//
// The queue (protocol; invariant: a queued task is taken by exactly one
// helper, and a helper that parks is woken by the push that made its wait
// end):
//   push: 1. under g_mutex, append and queued++;  2. notify g_ww.
//   helper: 1. wait on g_ww until queued != 0 (WaitWord: spin, then park);
//           2. under g_mutex, take the oldest task if any and queued--;
//           3. run it (run_task), then go to 1.
// Only the helpers take tasks, and g_mutex is a leaf lock: nothing else is
// taken while it is held.
#include <pthread.h>

#include <cstdint>
#include <deque>
#include <mutex>

#include "runtime/settings.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"
#include "runtime/wait.hpp"
#include "ult/eternal.hpp"
#include "ult/log.hpp"

namespace bobbin::rt {

namespace {

// Never destroyed, as the other tables the workers read: a helper may still
// wait here while the exiting thread runs static destructors.
constinit ult::Eternal<std::mutex> g_mutex_storage;
constinit std::mutex& g_mutex = g_mutex_storage.value;
// Guarded by g_mutex. Built on first use (a deque has no constant
// initialiser: ult/eternal.hpp); never destroyed.
std::deque<Task*>& queue() {
  static auto& q = *new std::deque<Task*>;
  return q;
}
Atomic<uint32_t> g_queued{0};  // queue()'s length: written under g_mutex, read by waiting helpers
constinit ult::Eternal<WaitWord> g_ww_storage;
constinit WaitWord& g_ww = g_ww_storage.value;
// 0 not started, 1 running, 2 off (turned off, or could not start); under
// g_start_mutex, read lock-free once it is not 0.
Atomic<int> g_state{0};
std::mutex g_start_mutex;

// Read once (the first time is at start-up, when team.cpp numbers the
// threads): kmp_set_defaults may change the settings later, but the ids
// 1..n are kept for the helpers from the start.
int configured_helpers() {
  static const int n = settings().hidden_helper_tasks ? settings().hidden_helper_threads : 0;
  return n;
}

Task* take() {
  std::lock_guard<std::mutex> g(g_mutex);
  if (queue().empty()) return nullptr;
  Task* t = queue().front();
  queue().pop_front();
  // relaxed: the lock orders it with the pushes; waiters only use it as a hint.
  g_queued.store(uint32_t(queue().size()), memory_order_relaxed);
  return t;
}

void* helper_main(void* arg) {
  Thread* th = adopt_hidden_helper_thread(int(reinterpret_cast<intptr_t>(arg)));
  for (;;) {
    // acquire: pairs with the push's release, for the task's contents too
    // (the lock in take() orders them as well).
    g_ww.wait([] { return g_queued.load(memory_order_acquire) != 0; });
    if (Task* t = take()) run_task(th, t);
  }
  return nullptr;
}

// fork(): the queue is locked across it, so the child's copy is consistent.
// The child has none of the parent's helpers: its first target task starts
// new ones; tasks queued in the parent are not the child's to run.
void lock_before_fork() { g_mutex.lock(); }
void unlock_in_parent() { g_mutex.unlock(); }
void forget_helpers_in_child() {
  queue().clear();
  g_queued.store(0, memory_order_relaxed);
  g_state.store(0, memory_order_relaxed);
  g_mutex.unlock();
}

}  // namespace

int hidden_helper_gtids() { return configured_helpers(); }

bool hidden_helpers_start() {
  int state = g_state.load(memory_order_acquire);  // pairs with the release below
  if (state != 0) return state == 1;
  std::lock_guard<std::mutex> g(g_start_mutex);
  state = g_state.load(memory_order_relaxed);
  if (state != 0) return state == 1;
  int n = configured_helpers();
  if (n == 0) {
    g_state.store(2, memory_order_release);
    return false;
  }
  ensure_initialized();  // the helpers' ids are kept out of the others' (team.cpp)
  static bool atfork_installed = false;  // under g_start_mutex
  if (!atfork_installed) {
    pthread_atfork(&lock_before_fork, &unlock_in_parent, &forget_helpers_in_child);
    atfork_installed = true;
  }
  int started = 0;
  for (int gtid = 1; gtid <= n; ++gtid) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t tid;
    if (pthread_create(&tid, &attr, &helper_main, reinterpret_cast<void*>(intptr_t(gtid))) == 0) ++started;
    pthread_attr_destroy(&attr);
  }
  if (started == 0) {
    // No thread to run them: target tasks stay ordinary tasks of their team.
    warn("cannot start hidden helper threads; target tasks run on the threads of their team");
    g_state.store(2, memory_order_release);
    return false;
  }
  g_state.store(1, memory_order_release);
  return true;
}

void hidden_helper_push(Task* t) {
  {
    std::lock_guard<std::mutex> g(g_mutex);
    queue().push_back(t);
    g_queued.store(uint32_t(queue().size()), memory_order_release);  // pairs with helper_main's acquire
  }
  g_ww.notify_all();
}

}  // namespace bobbin::rt
