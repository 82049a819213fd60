// Preempting a fiber that holds its worker while other fibers of that worker
// wait for it (Linux, x86-64 and AArch64 register names).
//
// The problem. A started fiber never leaves its kernel thread (its stack may
// hold addresses in that thread's TLS). If it waits outside the runtime — a
// user spin loop, a blocking read, pthread_barrier_wait — it keeps the
// thread, and a fiber of the same worker that it waits for, parked at a
// runtime barrier a moment before, can never run again. No queue hand-off
// can help: only that thread may run it. A kernel-thread runtime survives
// because the OS time-slices; so does Bobbin, with this.
//
// The mechanism. The progress monitor (monitor.cpp) sees a worker that has
// passed no scheduling point for a while with runnable fibers queued behind
// the running one, sets the worker's request flag and sends SIGURG (Go's
// choice: a signal programs rarely use, with no default action that harms) to
// its thread. The handler runs on the interrupted fiber's own stack (no
// SA_ONSTACK) and, if the interrupted point is safe, calls
// Worker::preempt_running, which queues the fiber at the back of its FIFO and
// switches to the next ready one: the handler's frame stays on the preempted
// fiber's stack until a later switch resumes it, and then returns, so the
// kernel's sigreturn restores every register of the interrupted code. The
// handler saves and restores errno around all of it. SA_NODEFER keeps the
// signal deliverable while the next fiber runs (it can be preempted in turn);
// SA_RESTART restarts an interrupted blocking system call when the fiber
// resumes.
//
// Safe points (why not anywhere). The next fiber runs on the same kernel
// thread, so anything the interrupted code holds that the next one may take
// and that is owned by the kernel thread would deadlock or break:
//   - a runtime spin lock (t_spinlocks_held > 0): never preempted;
//   - runtime code mid-switch or mid-update: the program counter must be in
//     "user code": the main executable, or a shared object outside the
//     system's library directories (not the C library, not libstdc++, not
//     Bobbin itself, not a BLAS or MPI library that keeps spin locks of its
//     own) — a table of address ranges the monitor keeps, read here without
//     locks;
//   - or right after the program's sched_yield system call (a spin loop
//     that yields; yield_linux.cpp's, or the C library's own for calls
//     that do not come through Bobbin's), never the runtime's os_yield;
//   - or a blocking system call about to restart: the kernel has rewound the
//     program counter onto the `syscall` instruction with the call number in
//     the return register. Only calls that wait for another party (read,
//     write, futex, nanosleep, waits on sockets and IPC) count: the fiber
//     holds nothing a waiter needs there but what it held when it called, and
//     a fiber that blocks in the kernel on a lock that a preempted fiber of
//     its own thread holds is itself preempted at that call in turn, so the
//     holder runs again.
// What stays unsafe and is accepted: a recursive lock or stdio stream that
// user code holds while it spins or blocks (owned by the kernel thread, so
// the next fiber would enter it too). The alternative, never preempting,
// hangs every program whose nested team waits outside the runtime with more
// members than the workers free for it.
//
// Under ThreadSanitizer the handler runs at a point TSan chooses (it defers
// asynchronous signals), not at the interrupted one: preemption is off there.
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sched.h>
#include <ucontext.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "ult/log.hpp"
#include "ult/preempt.hpp"
#include "ult/worker.hpp"
#include "ult/yield.hpp"

namespace bobbin {
thread_local int t_spinlocks_held __attribute__((tls_model("initial-exec"))) = 0;
}

namespace bobbin::ult {

namespace {

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BOBBIN_NO_PREEMPT 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define BOBBIN_NO_PREEMPT 1
#endif

// The text ranges of user code, as one immutable snapshot; replaced (never
// freed: a handler may still read the old one) when objects are loaded.
struct Ranges {
  int n = 0;
  uintptr_t lo[256];
  uintptr_t hi[256];
  unsigned long long adds = 0;  // dlpi_adds when it was built
};
Atomic<const Ranges*> g_ranges{nullptr};
std::string* g_self_path = nullptr;  // Bobbin's own file (never destroyed)
struct sigaction g_previous;         // the program's SIGURG action, if any
uintptr_t g_yield_return = 0;        // the instruction after sched_yield's `syscall` (0: not found)
bool g_installed = false;

bool system_object(const char* path) {
  static const char* const kDirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/lib32/", "/usr/lib32/"};
  for (const char* d : kDirs)
    if (strncmp(path, d, strlen(d)) == 0) return true;
  return false;
}

int add_object(dl_phdr_info* info, size_t, void* data) {
  auto* r = static_cast<Ranges*>(data);
  if (r->adds == 0) r->adds = info->dlpi_adds;
  const char* name = info->dlpi_name ? info->dlpi_name : "";
  bool main_program = name[0] == '\0' && r->n == 0;  // the first entry, named ""
  if (!main_program) {
    if (name[0] == '\0' || strstr(name, "linux-vdso") || system_object(name)) return 0;
    if (g_self_path && *g_self_path == name) return 0;
  }
  for (int i = 0; i < info->dlpi_phnum && r->n < 256; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    r->lo[r->n] = info->dlpi_addr + ph.p_vaddr;
    r->hi[r->n] = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    ++r->n;
  }
  return 0;
}

int read_adds(dl_phdr_info* info, size_t, void* data) {
  *static_cast<unsigned long long*>(data) = info->dlpi_adds;
  return 1;  // the first entry is enough
}

bool in_user_code(uintptr_t pc) {
  const Ranges* r = g_ranges.load(memory_order_acquire);  // pairs with refresh's release
  if (!r) return false;
  for (int i = 0; i < r->n; ++i)
    if (pc >= r->lo[i] && pc < r->hi[i]) return true;
  return false;
}

// The interrupted thread was blocked in a system call that waits for another
// party, which the kernel will restart: the program counter is on the
// `syscall` instruction again and the call number is back in the register.
bool at_restartable_wait(const ucontext_t* uc) {
#if defined(__x86_64__)
  auto pc = reinterpret_cast<const unsigned char*>(uc->uc_mcontext.gregs[REG_RIP]);
  if (pc[0] != 0x0f || pc[1] != 0x05) return false;
  long nr = long(uc->uc_mcontext.gregs[REG_RAX]);
#else
  (void)uc;
  long nr = -1;
  return false;
#endif
  switch (nr) {
#if defined(__x86_64__)
    case SYS_read: case SYS_write: case SYS_readv: case SYS_writev: case SYS_pread64: case SYS_pwrite64:
    case SYS_futex: case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_restart_syscall: case SYS_wait4:
    case SYS_accept: case SYS_accept4: case SYS_connect: case SYS_recvfrom: case SYS_sendto: case SYS_recvmsg:
    case SYS_sendmsg: case SYS_msgrcv: case SYS_msgsnd: case SYS_semop: case SYS_semtimedop: case SYS_flock:
      return true;
#endif
    default:
      return false;
  }
}

// The C library's sched_yield: its `syscall` instruction, found in its
// first bytes. A user spin loop that yields spends nearly all its time
// there, and a signal is delivered on the way back to user mode, right after
// it; the wrapper holds nothing.
uintptr_t find_yield_return() {
#if defined(__x86_64__)
  // The C library's own (Bobbin exports a sched_yield of its own).
  void* libc_yield = dlvsym(RTLD_NEXT, "sched_yield", "GLIBC_2.2.5");
  if (!libc_yield) libc_yield = dlsym(RTLD_NEXT, "sched_yield");
  if (!libc_yield) return 0;
  auto p = static_cast<const unsigned char*>(libc_yield);
  for (int i = 0; i < 32; ++i)
    if (p[i] == 0x0f && p[i + 1] == 0x05) return reinterpret_cast<uintptr_t>(p + i + 2);
#endif
  return 0;
}

uintptr_t interrupted_pc(const ucontext_t* uc) {
#if defined(__x86_64__)
  return uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return uintptr_t(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

thread_local unsigned t_signals_taken __attribute__((tls_model("initial-exec"))) = 0;

void on_preempt_signal(int sig, siginfo_t* info, void* ctx) {
  int saved_errno = errno;
  Worker* w = Worker::current();
  if (!w || !w->take_preempt_request()) {
    // Not ours: the program's own SIGURG.
    if (g_previous.sa_flags & SA_SIGINFO) {
      if (g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, ctx);
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
      g_previous.sa_handler(sig);
    }
    errno = saved_errno;
    return;
  }
  ++t_signals_taken;
  auto* uc = static_cast<const ucontext_t*>(ctx);
  uintptr_t pc = interrupted_pc(uc);
  bool after_yield = (g_yield_return && pc == g_yield_return) || pc == user_yield_return();
  if (t_spinlocks_held == 0 && (after_yield || in_user_code(pc) || at_restartable_wait(uc)))
    w->preempt_running();
  errno = saved_errno;
}

}  // namespace

unsigned preemption_signals_taken() { return t_signals_taken; }

bool preemption_available() {
#ifdef BOBBIN_NO_PREEMPT
  return false;
#else
  return true;
#endif
}

void install_preemption() {
#ifndef BOBBIN_NO_PREEMPT
  if (g_installed) return;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&install_preemption), &self) && self.dli_fname) g_self_path = new std::string(self.dli_fname);
  refresh_user_code_ranges();
  g_yield_return = find_yield_return();
  struct sigaction sa {};
  sa.sa_sigaction = &on_preempt_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGURG, &sa, &g_previous) != 0) {
    warn("cannot install the preemption signal handler: %s", strerror(errno));
    return;
  }
  g_installed = true;
#endif
}

void allow_preemption_signal() {
#ifndef BOBBIN_NO_PREEMPT
  sigset_t urg;
  sigemptyset(&urg);
  sigaddset(&urg, SIGURG);
  pthread_sigmask(SIG_UNBLOCK, &urg, nullptr);
#endif
}

void refresh_user_code_ranges() {
  unsigned long long adds = 0;
  dl_iterate_phdr(&read_adds, &adds);
  const Ranges* old = g_ranges.load(memory_order_relaxed);
  if (old && old->adds == adds) return;
  auto* r = new Ranges;
  dl_iterate_phdr(&add_object, r);
  r->adds = adds;
  g_ranges.store(r, memory_order_release);  // pairs with in_user_code's acquire; the old one is kept
}

bool send_preemption(Worker& w) {
  if (!g_installed || !w.native_thread()) return false;
  w.request_preempt();
  return pthread_kill(pthread_t(w.native_thread()), SIGURG) == 0;
}

}  // namespace bobbin::ult
