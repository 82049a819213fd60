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
//     "user code": the main executable, a shared object outside the
//     system's library directories (not the C library, not libstdc++, not
//     Bobbin itself, not a BLAS or MPI library that keeps spin locks of its
//     own), or the vDSO (lock-free clock reads) — a table of address ranges
//     the monitor keeps, read here without locks;
//   - or right after the program's sched_yield system call (a spin loop
//     that yields; yield_linux.cpp's, or the C library's own for calls
//     that do not come through Bobbin's), never the runtime's os_yield;
//   - or right after the `syscall` of a C library wrapper that keeps no
//     frame, called from user code (leaf_call_return): a spin loop that
//     polls with a system call (getppid, sched_getaffinity) is in the kernel
//     nearly all the time, and a signal sent to it is taken at the next
//     return from a call, never in user code (the progress suite's `call`
//     shape hung). Such a wrapper has taken nothing since its entry, so the
//     point is as safe as the return address it goes back to;
//   - or a blocking system call about to restart: the kernel has rewound the
//     program counter onto the `syscall` instruction with the call number in
//     the return register. Only calls that wait for another party (read,
//     write, futex, nanosleep, waits on sockets and IPC) count: the fiber
//     holds nothing a waiter needs there but what it held when it called, and
//     a fiber that blocks in the kernel on a lock that a preempted fiber of
//     its own thread holds is itself preempted at that call in turn, so the
//     holder runs again.
// What stays unsafe and is accepted: a stdio stream's lock that user code
// holds (flockfile) while it spins or blocks, owned by the kernel thread, so
// the next fiber would enter it too. (A recursive or error-checking pthread
// mutex is kept per fiber by block_linux.cpp.) The alternative, never preempting,
// hangs every program whose nested team waits outside the runtime with more
// members than the workers free for it.
//
// Under ThreadSanitizer the handler runs at a point TSan chooses (it defers
// asynchronous signals), not at the interrupted one: preemption is off there.
#include <dlfcn.h>
#include <link.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sched.h>
#include <ucontext.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "ult/log.hpp"
#include "ult/preempt.hpp"
#include "ult/thread_info.hpp"
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
    // The vDSO counts as user code: its clock and CPU reads take no lock
    // and retry on their own sequence counter, so a fiber may be switched
    // anywhere inside them. A member that polls omp_get_wtime or
    // clock_gettime in a timed spin spends most of its time there, and
    // with the vDSO unsafe the monitor's signal found no safe point for
    // seconds (taskred_types, 16 workers on 2 cores: 1 run in 50 hung).
    if (name[0] == '\0' || system_object(name)) return 0;
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

// A socket's receive (SO_RCVTIMEO) or send (SO_SNDTIMEO) timeout is unset:
// the kernel then restarts a call on it after an SA_RESTART handler (with
// one, the call ends with EINTR).
bool socket_without_timeout(int fd, int option) {
  timeval tv{};
  socklen_t len = sizeof tv;
  if (getsockopt(fd, SOL_SOCKET, option, &tv, &len) != 0) return false;
  return tv.tv_sec == 0 && tv.tv_usec == 0;
}

// A read or write on fd waits for another party and is restarted: a pipe or
// FIFO, a terminal or other character device, a socket without a timeout.
// Not a regular file (no wait), nor an anonymous descriptor (eventfd,
// inotify, timerfd: some end with EINTR).
bool restarted_transfer(int fd, int timeout_option) {
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) return true;
  return S_ISSOCK(st.st_mode) && socket_without_timeout(fd, timeout_option);
}

// The blocking call `nr` (arguments a) is restarted by the kernel after a
// handler installed with SA_RESTART, the preemption signal's: no EINTR
// reaches the program. signal(7) lists the calls; the timeouts matter (a
// wait with one is ended, not restarted). A transfer that had moved some
// bytes is not restarted either: it returns the short count, which the
// interposed write carries on from (transfer_linux.cpp); a read returns
// what had arrived, as it may anyway.
bool restarted_after_handler(long nr, const unsigned long* a) {
#if defined(__x86_64__)
  switch (nr) {
    case SYS_read: case SYS_readv: case SYS_pread64:
      return restarted_transfer(int(a[0]), SO_RCVTIMEO);
    case SYS_write: case SYS_writev: case SYS_pwrite64:
      return restarted_transfer(int(a[0]), SO_SNDTIMEO);
    case SYS_recvfrom: case SYS_recvmsg: case SYS_accept: case SYS_accept4:
      return socket_without_timeout(int(a[0]), SO_RCVTIMEO);
    case SYS_sendto: case SYS_sendmsg: case SYS_connect:
      return socket_without_timeout(int(a[0]), SO_SNDTIMEO);
    case SYS_futex: {
      unsigned long cmd = a[1] & FUTEX_CMD_MASK;
      return (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) && a[3] == 0;
    }
    case SYS_wait4: case SYS_waitid: case SYS_flock:
      return true;
    default:
      return false;
  }
#else
  (void)nr;
  (void)a;
  return false;
#endif
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

// ---- a call the signal ended with EINTR ----
// The monitor signals a thread it sees running (a spinning fiber), and one
// asleep in a call the kernel restarts (signal_unseen); a thread may still
// enter another call between the look and the signal's arrival, and a
// runnable thread the kernel has not yet returned from a wait looks
// running too. If that call is one the kernel ends with EINTR (poll,
// select, epoll_wait, a timed wait), the handler finds the interrupted
// point right after the C library's `syscall` with -EINTR in the result
// register, and makes the call start again: the number back in the
// register, the program counter on the instruction. The program sees what
// it would have seen had the signal arrived before the call (a relative
// timeout starts again: a wait may last longer than asked, never shorter).
// The number is read from the C library's code: its wrappers load it with
// `mov $N, %eax` (or `xor %eax, %eax` for read) shortly before `syscall`,
// with only moves to other registers between; any other shape is left
// alone, and the EINTR stands.

uintptr_t g_libc_lo = 0, g_libc_hi = 0;  // the C library's text

int find_libc_text(dl_phdr_info* info, size_t, void* base) {
  if (reinterpret_cast<void*>(info->dlpi_addr) != base) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    g_libc_lo = info->dlpi_addr + ph.p_vaddr;
    g_libc_hi = g_libc_lo + ph.p_memsz;
  }
  return 1;
}

// The interrupted point is just past a `syscall` instruction in the C
// library, in a wrapper that has pushed nothing since its entry (getppid,
// sched_getaffinity's first part): the word at the stack pointer is then
// the return address, in user code, right after a call instruction
// (`call rel32` to a PLT entry, or `call *GOT(%rip)`). A wrapper with a
// frame (a cancellation point, anything that calls) has pushed or reserved
// stack: its word there is a saved register or a local, which almost never
// is a user-code address just after a call. Nothing of this is async-
// signal-unsafe: plain loads from the interrupted thread's own stack and
// from mapped text.
// Returns that return address, or 0 when the point is not such a one.
uintptr_t leaf_call_return(const ucontext_t* uc) {
#if defined(__x86_64__)
  uintptr_t pc = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
  if (pc < g_libc_lo + 2 || pc > g_libc_hi) return 0;
  auto code = reinterpret_cast<const unsigned char*>(pc);
  if (code[-2] != 0x0f || code[-1] != 0x05) return 0;
  uintptr_t ret = *reinterpret_cast<const uintptr_t*>(uc->uc_mcontext.gregs[REG_RSP]);
  if (!in_user_code(ret) || !in_user_code(ret - 6)) return 0;
  auto back = reinterpret_cast<const unsigned char*>(ret);
  return back[-5] == 0xe8 || (back[-6] == 0xff && back[-5] == 0x15) ? ret : 0;
#else
  (void)uc;
  return 0;
#endif
}

// The length of the `mov` at p (within `left` bytes) if it leaves eax
// alone: a register or memory load into, or register move to, another
// register, or an immediate into another 32-bit register; else 0.
int move_past_eax(const unsigned char* p, int left) {
  int i = 0;
  unsigned rex = 0;
  if (left > 0 && (p[0] & 0xf0) == 0x40) rex = p[i++];
  if (i >= left) return 0;
  unsigned op = p[i];
  if (op >= 0xb8 && op <= 0xbf) {  // mov $imm32, r32
    if ((rex & 8) || ((op - 0xb8) | ((rex & 1) << 3)) == 0) return 0;
    return i + 5 <= left ? i + 5 : 0;
  }
  if ((op != 0x89 && op != 0x8b) || i + 1 >= left) return 0;
  unsigned modrm = p[i + 1], mod = modrm >> 6;
  unsigned reg = ((modrm >> 3) & 7) | ((rex & 4) << 1), rm = (modrm & 7) | ((rex & 1) << 3);
  int len = i + 2;
  if (mod == 3) {
    if ((op == 0x89 ? rm : reg) == 0) return 0;
  } else {
    if (op != 0x8b || reg == 0) return 0;  // a load into another register only
    bool sib = (modrm & 7) == 4;
    if (sib) {
      if (len >= left) return 0;
      if (mod == 0 && (p[len] & 7) == 5) len += 4;
      ++len;
    }
    if (mod == 1) len += 1;
    else if (mod == 2) len += 4;
    else if (!sib && (modrm & 7) == 5) len += 4;  // rip-relative
  }
  return len <= left ? len : 0;
}

// The number of the call whose `syscall` instruction is at sc, or -1.
long syscall_number_at(const unsigned char* sc) {
  if (sc[-2] == 0x31 && sc[-1] == 0xc0) return 0;  // xor %eax, %eax
  for (int k = 5; k <= 32; ++k) {
    const unsigned char* mov = sc - k;
    if (mov[0] != 0xb8) continue;
    const unsigned char* p = mov + 5;
    while (p < sc) {
      int n = move_past_eax(p, int(sc - p));
      if (n == 0) break;
      p += n;
    }
    if (p == sc) {
      uint32_t nr;
      memcpy(&nr, mov + 1, sizeof nr);
      return long(nr);
    }
  }
  return -1;
}

// Calls that are safe to start again after EINTR: waits that did nothing
// yet when they were interrupted (connect is not: it goes on alone).
bool may_start_again(long nr) {
#if defined(__x86_64__)
  switch (nr) {
    case SYS_read: case SYS_write: case SYS_readv: case SYS_writev: case SYS_pread64: case SYS_pwrite64:
    case SYS_poll: case SYS_select: case SYS_pselect6: case SYS_ppoll: case SYS_epoll_wait: case SYS_epoll_pwait:
    case SYS_recvfrom: case SYS_recvmsg: case SYS_sendto: case SYS_sendmsg: case SYS_accept: case SYS_accept4:
    case SYS_rt_sigtimedwait: case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_futex: case SYS_msgrcv:
    case SYS_msgsnd: case SYS_semop: case SYS_semtimedop: case SYS_wait4: case SYS_waitid: case SYS_flock:
    case SYS_pause: case SYS_rt_sigsuspend:
      return true;
    default:
      return false;
  }
#else
  (void)nr;
  return false;
#endif
}

// Makes a call the signal ended with EINTR start again (above).
void start_interrupted_call_again(ucontext_t* uc) {
#if defined(__x86_64__)
  auto pc = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
  if (pc < g_libc_lo + 2 + 32 || pc > g_libc_hi) return;
  if (uc->uc_mcontext.gregs[REG_RAX] != -EINTR) return;
  auto sc = reinterpret_cast<const unsigned char*>(pc - 2);
  if (sc[0] != 0x0f || sc[1] != 0x05) return;
  long nr = syscall_number_at(sc);
  if (!may_start_again(nr)) return;
  uc->uc_mcontext.gregs[REG_RIP] = greg_t(pc - 2);
  uc->uc_mcontext.gregs[REG_RAX] = greg_t(nr);
#else
  (void)uc;
#endif
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

// The general registers of the interrupted code but the program counter
// (end_turn_if_spinning compares them); 0 where not known.
constexpr int kSpotRegs = 32;
int interrupted_registers(const ucontext_t* uc, uintptr_t* regs) {
  int n = 0;
#if defined(__x86_64__)
  static constexpr int kRegs[] = {REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
                                  REG_RDI, REG_RSI, REG_RBP, REG_RBX, REG_RDX, REG_RAX, REG_RCX, REG_RSP};
  for (int r : kRegs) regs[n++] = uintptr_t(uc->uc_mcontext.gregs[r]);
#elif defined(__aarch64__)
  for (int r = 0; r < 31; ++r) regs[n++] = uintptr_t(uc->uc_mcontext.regs[r]);
  regs[n++] = uintptr_t(uc->uc_mcontext.sp);
#else
  (void)uc, (void)regs;
#endif
  return n;
}

// Where the previous end of a turn found this thread, with its registers,
// and how far it is trusted to spin (end_turn_if_spinning).
struct Spot {
  uintptr_t pc = 0;
  int n = 0;
  uintptr_t regs[kSpotRegs];
};
thread_local Spot t_turn_spot __attribute__((tls_model("initial-exec")));
constexpr int kSpinTrust = 8;
thread_local int t_spin_trust __attribute__((tls_model("initial-exec"))) = kSpinTrust;

// The end of a kernel thread's turn (monitor.cpp, end_kernel_turn): gives
// the processor up if the thread seems to spin.
//
// A spin is a small loop (load, compare, branch, maybe a pause or a fence)
// in user code that changes no register until its flag does: found at the
// spot (stack pointer, and program counter within a few bytes) where the
// previous end of its turn found it, with every general register as then,
// the thread spins. Found at that spot with other registers, it spins in a
// new wait (the value it waits for has changed since) or it computes in a
// tight loop (its index has changed): that counts as a spin only while the
// thread has been seen spinning with the same registers lately (the trust,
// kSpinTrust ends of turns), since most waits of a flag pipeline are about
// a turn long, and their first end of turn finds the value changed. Tight
// loops never show the same registers twice: with the spot alone they
// yielded every turn, and NPB's EP (4 kernel threads on 2 processors) was
// 7% slower. A thread starts trusted (a spin's first end of turn may be
// in a new wait), and a near miss without trust leaves its turns as they
// are (kTurnNear) rather than lengthening them: about one in ten of a spin
// barrier's ends of turns were such misses, and lengthened turns made its
// barriers 1.2-1.5 times slower. Only user code counts (the table above): the runtime's own
// waits yield by themselves when kernel threads outnumber the processors
// (Worker::relax), and in a run of sort they were two thirds of the
// turns. The monitor hears which it was (Worker::note_turn) and gives a
// computing thread longer turns. No fiber switch here, so any point is
// safe; but not while the thread holds a runtime spin lock (the threads
// given the processor might spin on that very lock).
void end_turn_if_spinning(Worker* w, const ucontext_t* uc) {
  constexpr uintptr_t kLoopBytes = 16;
  Spot now{};
  now.pc = interrupted_pc(uc);
  // A loop that polls with a system call is found just past it, in the C
  // library: its spot is where the wrapper returns to.
  if (uintptr_t ret = leaf_call_return(uc)) now.pc = ret;
  now.n = interrupted_registers(uc, now.regs);
  Spot& was = t_turn_spot;
  bool near = now.n > 0 && now.n == was.n && now.pc + kLoopBytes - was.pc <= 2 * kLoopBytes &&
              now.regs[now.n - 1] == was.regs[was.n - 1] && in_user_code(now.pc);  // the last one: the stack pointer
  bool same = near && std::equal(now.regs, now.regs + now.n, was.regs);
  was = now;
  bool spinning = same || (near && t_spin_trust > 0);
  if (same) t_spin_trust = kSpinTrust;
  else if (near && t_spin_trust > 0) --t_spin_trust;
  w->note_turn(spinning ? Worker::kTurnSpun : near ? Worker::kTurnNear : Worker::kTurnComputed);
  if (spinning && t_spinlocks_held == 0) os_yield();
}

// The same test for a fiber whose turn ends (the monitor preempts it
// because fibers wait behind it, monitor.cpp): half way through the turn
// the monitor asks where it is (kRequestLook, take_look), and at the
// preemption the spot is compared with that look if no other fiber ran in
// between (the worker's switch count). Found at the same spot with the same
// registers, or at the preemption anywhere but in user code (yielding,
// asleep in a call), it spins, and its worker's fibers keep the shortest
// turns; found anywhere else in user code it computes, and the monitor
// lengthens them; a turn without a look in user code tells nothing. Two looks
// within one turn, not one per turn: a fiber's previous preemption was
// rounds of a spin barrier earlier, its registers changed in between, and
// a test against it took spin barriers for computation (syncshapes' spin
// shape, inner 4 x outer 2: 3.9 times slower). Fibers that compute between
// scheduling points for milliseconds (2 x 8 members on 2 cores, each 30
// sections of about 3 ms) were preempted every 250 us, about 3700 times a
// second, and took 1.3-1.4 times libomp's time: the monitor's wake-ups and
// signals took the processors from them.
struct Look {
  uintptr_t pc = 0;
  bool leaf = false;  // found in a system call the program's code polls with (leaf_call_return)
  int n = 0;
  uintptr_t regs[kSpotRegs];
  uint64_t switches = 0;  // the worker's switch count at the look
  bool valid = false;
};
thread_local Look t_look __attribute__((tls_model("initial-exec")));

void spot_of(const ucontext_t* uc, Look* at) {
  at->pc = interrupted_pc(uc);
  uintptr_t ret = leaf_call_return(uc);
  at->leaf = ret != 0;
  if (ret) at->pc = ret;
  at->n = interrupted_registers(uc, at->regs);
}

void take_look(Worker* w, const ucontext_t* uc, bool user_code) {
  t_look.valid = user_code;
  if (!user_code) return;
  spot_of(uc, &t_look);
  t_look.switches = w->progress();
}

// 0 when the turn had no look (its turns stay as they are).
uint32_t fiber_turn_kind(Worker* w, const ucontext_t* uc, bool user_code) {
  if (!user_code) return Worker::kTurnSpun;
  bool looked = t_look.valid && t_look.switches == w->progress();
  t_look.valid = false;
  if (!looked) return 0;
  Look now;
  spot_of(uc, &now);
  // Twice in the same polling call: a spin (the kernel rewrites registers
  // on the way out of a call, so they are not compared).
  bool same = now.n == t_look.n && now.pc == t_look.pc &&
              ((now.leaf && t_look.leaf) || std::equal(now.regs, now.regs + now.n, t_look.regs));
  return same ? Worker::kTurnSpun : Worker::kTurnComputed;
}

void on_preempt_signal(int sig, siginfo_t* info, void* ctx) {
  int saved_errno = errno;
  Worker* w = Worker::current();
  uint32_t request = w ? w->take_preempt_request() : 0;
  if (request == 0) {
    // Not a request: the program's own SIGURG, or one of the monitor's
    // whose request an earlier delivery took (SA_NODEFER lets a second
    // signal in while the first one's handler has switched fibers).
    bool program_handles = (g_previous.sa_flags & SA_SIGINFO)
                               ? g_previous.sa_sigaction != nullptr
                               : g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
                                     g_previous.sa_handler != nullptr;
    if (program_handles) {
      if (g_previous.sa_flags & SA_SIGINFO) g_previous.sa_sigaction(sig, info, ctx);
      else g_previous.sa_handler(sig);
    } else {
      // SIGURG's default action is to ignore it: a program without a
      // handler never sees a call end for it.
      ++t_signals_taken;
      start_interrupted_call_again(static_cast<ucontext_t*>(ctx));
    }
    errno = saved_errno;
    return;
  }
  ++t_signals_taken;
  auto* uc = static_cast<ucontext_t*>(ctx);
  start_interrupted_call_again(uc);
  if (request == Worker::kRequestYield) {
    end_turn_if_spinning(w, uc);
    errno = saved_errno;
    return;
  }
  uintptr_t pc = interrupted_pc(uc);
  bool after_yield = (g_yield_return && pc == g_yield_return) || pc == user_yield_return();
  bool user_code = in_user_code(pc) || leaf_call_return(uc) != 0;
  if (request == Worker::kRequestLook) {
    take_look(w, uc, user_code && !after_yield);
    errno = saved_errno;
    return;
  }
  if (t_spinlocks_held == 0 && (after_yield || user_code || at_restartable_wait(uc))) {
    if (uint32_t kind = fiber_turn_kind(w, uc, user_code && !after_yield)) w->note_fiber_turn(kind);
    w->preempt_running(request == Worker::kRequestReport);
  }
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
  Dl_info libc{};
  if (void* poll_fn = dlsym(RTLD_NEXT, "poll"); poll_fn && dladdr(poll_fn, &libc) && libc.dli_fbase)
    dl_iterate_phdr(&find_libc_text, libc.dli_fbase);
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

bool signal_unseen(const Worker& w) {
  if (w.in_signal_safe_wait()) return true;
  long tid = w.kernel_tid(), nr = -1;
  unsigned long args[4];
  if (!tid) return false;
  int in_call = thread_syscall(tid, &nr, args);
  // On a processor (in user code, as a spinning fiber is) or between calls:
  // the signal arrives in user code, or as the thread enters the kernel.
  // The one case left is a thread that enters a call the signal ends within
  // the microseconds the signal takes to arrive.
  if (in_call == 0) return true;
  return in_call == 1 && restarted_after_handler(nr, args);
}

namespace {
// Leaves a request on w (`ask`, before the signal: the handler takes it)
// and sends w's thread the signal; false if it cannot be sent.
template <typename Ask>
bool send_request(Worker& w, Ask ask) {
  if (!g_installed || !w.native_thread()) return false;
  ask();
  return pthread_kill(pthread_t(w.native_thread()), SIGURG) == 0;
}
}  // namespace

bool send_preemption(Worker& w, bool report) {
  return send_request(w, [&] { w.request_preempt(report); });
}

bool send_turn_end(Worker& w) {
  return send_request(w, [&] { w.request_turn_end(); });
}

bool send_look(Worker& w) {
  return send_request(w, [&] { w.request_look(); });
}

}  // namespace bobbin::ult
