// Guard-page hits: a fiber that overflows its stack touches the PROT_NONE page
// below it and takes SIGSEGV on a stack it no longer has room on, so the
// handler runs on a per-thread alternate stack. It reports one line — who, how
// big the stack is, and that OMP_STACKSIZE raises it — and aborts. A fault
// anywhere else belongs to somebody else (the program, a sanitizer, a JIT):
// it goes to the previous handler untouched.
//
// An OpenMP thread that runs on its kernel thread's own stack (the initial
// thread, a program thread that opened a region) overflows that stack
// instead: the fault lands in the gap the kernel keeps below it. The same
// line names the limit that applies there (ulimit -s for the initial
// thread), since OMP_STACKSIZE does not.
#include "ult/guard.hpp"

#include <cstdio>

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "ult/log.hpp"
#include "ult/worker.hpp"

namespace bobbin::ult {

static struct sigaction g_prev_segv, g_prev_bus;
static DescribeFiber g_describe = nullptr;
static std::mutex g_install_mutex;
// 64 KiB: room for the handler and a libc abort path even where SIGSTKSZ is small.
static constexpr std::size_t kAltStackSize = 64u << 10;
static thread_local void* t_altstack = nullptr;
// The calling thread's own stack (lowest address and size), read when the
// thread starts running fibers; initial-exec, so that the handler reads it
// without the dynamic loader.
static thread_local char* t_native_lo __attribute__((tls_model("initial-exec"))) = nullptr;
static thread_local std::size_t t_native_size __attribute__((tls_model("initial-exec"))) = 0;
// Below the lowest stack address: the kernel's gap under a growing stack
// (stack_guard_gap, 1 MiB by default) or a thread's guard page, and room
// for the frame that jumped into it.
static constexpr std::size_t kNativeGapBytes = 2u << 20;

void set_fiber_describer(DescribeFiber fn) { g_describe = fn; }
void describe_fiber(Fiber* f, char* buf, std::size_t len) {
  if (g_describe) g_describe(f, buf, len);
  else snprintf(buf, len, "a fiber");
}

// Async-signal-safe unsigned formatting.
static char* put_u(char* p, char* end, unsigned long v) {
  char tmp[24];
  int n = 0;
  do { tmp[n++] = char('0' + v % 10); v /= 10; } while (v && n < 24);
  while (n && p < end) *p++ = tmp[--n];
  return p;
}
static char* put_s(char* p, char* end, const char* s) {
  while (*s && p < end) *p++ = *s++;
  return p;
}

static void chain(int sig, siginfo_t* si, void* uc) {
  struct sigaction* prev = sig == SIGBUS ? &g_prev_bus : &g_prev_segv;
  if (prev->sa_flags & SA_SIGINFO) {
    prev->sa_sigaction(sig, si, uc);
  } else if (prev->sa_handler == SIG_DFL || prev->sa_handler == SIG_IGN) {
    // Restore and return: the faulting instruction runs again and the
    // default action (a core dump) happens with the original state.
    sigaction(sig, prev, nullptr);
  } else {
    prev->sa_handler(sig);
  }
}

// One line, "bobbin: stack overflow in <who><how>", then abort. `how` is
// built by the caller into the same buffer (async-signal-safe: no
// allocation, no locks).
[[noreturn]] static void report_overflow(Fiber* f, const char* fallback_who,
                                         char* (*how)(char* p, char* end, Fiber* f)) {
  char line[512];
  char* p = line;
  char* end = line + sizeof line - 1;
  p = put_s(p, end, "bobbin: stack overflow in ");
  char who[160];
  snprintf(who, sizeof who, "%s", fallback_who);
  if (g_describe) g_describe(f, who, sizeof who);
  p = put_s(p, end, who);
  p = how(p, end, f);
  ssize_t r = write(2, line, size_t(p - line));
  (void)r;
  abort();
}

static void on_fault(int sig, siginfo_t* si, void* uc) {
  Fiber* f = Worker::current_fiber();
  if (f && f->stack().base && f->stack().guard_contains(si->si_addr)) {
    report_overflow(f, "a fiber", [](char* p, char* end, Fiber* fb) {
      p = put_s(p, end, ": its stack is ");
      p = put_u(p, end, fb->stack().usable());
      p = put_s(p, end, " bytes; raise OMP_STACKSIZE (for example OMP_STACKSIZE=");
      p = put_u(p, end, (fb->stack().usable() >> 20) * 2 + 1);
      return put_s(p, end, "M)\n");
    });
  }
  auto* addr = static_cast<char*>(si->si_addr);
  if (f && f->native() && t_native_lo && addr < t_native_lo + 4096 && addr + kNativeGapBytes >= t_native_lo) {
    report_overflow(f, "an OpenMP thread", [](char* p, char* end, Fiber*) {
      p = put_s(p, end, ", on its kernel thread's own stack of ");
      p = put_u(p, end, t_native_size);
      return put_s(p, end, " bytes (OMP_STACKSIZE does not size it: raise ulimit -s for the initial thread, "
                           "or the stack size of the thread that opened the region)\n");
    });
  }
  chain(sig, si, uc);
}

// Installs on_fault unless it is already the handler, remembering what it
// replaces; so a program that set its own handler before a worker starts is
// chained to, not lost.
static void install_process_handler() {
  std::lock_guard<std::mutex> g(g_install_mutex);
  struct sigaction cur;
  if (sigaction(SIGSEGV, nullptr, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == &on_fault) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = &on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_prev_segv);
  sigaction(SIGBUS, &sa, &g_prev_bus);
}

void install_guard_for_thread() {
  install_process_handler();
  pthread_attr_t attr;
  if (!t_native_lo && pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* lo = nullptr;
    std::size_t size = 0;
    if (pthread_attr_getstack(&attr, &lo, &size) == 0) {
      t_native_lo = static_cast<char*>(lo);
      t_native_size = size;
    }
    pthread_attr_destroy(&attr);
  }
  if (t_altstack) return;
  stack_t cur;
  // Keep an alternate stack the thread already has (a sanitizer's, the program's).
  if (sigaltstack(nullptr, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) return;
  void* p = mmap(nullptr, kAltStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;  // no detection on this thread; everything else still works
  stack_t ss;
  ss.ss_sp = p;
  ss.ss_size = kAltStackSize;
  ss.ss_flags = 0;
  if (sigaltstack(&ss, nullptr) != 0) {
    munmap(p, kAltStackSize);
    return;
  }
  t_altstack = p;
}

void uninstall_guard_for_thread() {
  if (!t_altstack) return;
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, nullptr);
  munmap(t_altstack, kAltStackSize);
  t_altstack = nullptr;
}

}  // namespace bobbin::ult
