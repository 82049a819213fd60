// Reads and writes of descriptors that a fiber makes: read (and the
// fortified __read_chk, which a program built with _FORTIFY_SOURCE calls
// instead) and write.
//
// Reads. A member that reads a pipe whose writer is queued on its own worker
// would block that worker: on a worker shared with other fibers, read first
// looks whether the descriptor is readable, and while it is not lets the
// queued fibers run, then waits for it in slices (block_linux.cpp's opening
// comment: B1-B3 hold here too).
//
// Writes. A write into a full pipe blocks until a reader drains it, and the
// reader may be queued on the writer's worker. Worse, a write the monitor's
// preemption signal interrupts once some of its bytes are in the pipe is
// not restarted: it returns the short count (signal(7)), which a program
// that trusts a blocking write to a pipe to write everything takes as done.
// A ring of 8 members under an outer team of 2, each passing 64 KiB through
// a pipe of 4 KiB, lost bytes and hung every run (libomp: 20 ms). So on a
// worker's thread a blocking write of more than PIPE_BUF bytes:
//   - on a worker shared with other fibers, writes what the pipe or socket
//     takes now and, while it takes nothing, lets the queued fibers run and
//     waits for room in slices: for a pipe, as many bytes as it has room for;
//     for a socket, send with MSG_DONTWAIT (the same call as write
//     with no flags, but for the wait);
//   - goes on after a short count when the monitor's signal was taken
//     meanwhile, until every byte is written.
// Invariants: (T1) write returns what the C library's would for a blocking
// descriptor: the whole count, or a short count for the kernel's own
// reasons (a signal of the program's, a full disk), or -1 with errno when
// nothing was written; errno is the caller's on success. (T2) Writes of up
// to PIPE_BUF bytes, a descriptor the program made non-blocking, the
// runtime's own calls, and calls off a worker go straight to the C library.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "ult/block_wait.hpp"
#include "ult/preempt.hpp"
#include "ult/worker.hpp"

namespace {

using bobbin::ult::Worker;
using namespace bobbin::ult::block;  // NOLINT: the shared helpers of the interposed waits

using ReadFn = ssize_t (*)(int, void*, size_t);
using ReadChkFn = ssize_t (*)(int, void*, size_t, size_t);
using WriteFn = ssize_t (*)(int, const void*, size_t);
using SendFn = ssize_t (*)(int, const void*, size_t, int);
using PollFn = int (*)(pollfd*, nfds_t, int);
using PpollFn = int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*);
using ClockNanosleepFn = int (*)(clockid_t, int, const timespec*, timespec*);

ReadFn g_read;
ReadChkFn g_read_chk;
WriteFn g_write;
SendFn g_send;
PollFn g_poll;
PpollFn g_ppoll;
ClockNanosleepFn g_clock_nanosleep;

// Resolved at load, before the program's threads exist (as block_linux.cpp).
__attribute__((constructor)) void resolve_next() {
  g_read = reinterpret_cast<ReadFn>(next_symbol("read", "GLIBC_2.2.5"));
  g_read_chk = reinterpret_cast<ReadChkFn>(next_symbol("__read_chk", "GLIBC_2.4"));
  g_write = reinterpret_cast<WriteFn>(next_symbol("write", "GLIBC_2.2.5"));
  g_send = reinterpret_cast<SendFn>(next_symbol("send", "GLIBC_2.2.5"));
  g_poll = reinterpret_cast<PollFn>(next_symbol("poll", "GLIBC_2.2.5"));
  g_ppoll = reinterpret_cast<PpollFn>(next_symbol("ppoll", "GLIBC_2.4"));
  g_clock_nanosleep = reinterpret_cast<ClockNanosleepFn>(next_symbol("clock_nanosleep", "GLIBC_2.17"));
}

bool blocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && !(flags & O_NONBLOCK);
}

// Waits, as above, until fd is readable (or in error); returns at once for a
// non-blocking descriptor (B3) or when no other fiber shares the worker.
void wait_readable(int fd) {
  if (!blocking(fd)) return;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (g_poll(&p, 1, 0) != 0) return;  // readable, hung up, in error, or interrupted: read says which
    if (Worker::yield_to_queued()) continue;
    if (!Worker::others_share_worker()) return;
    timespec slice{0, long(kSliceNs)};
    SignalSafeWait safe;  // EINTR: read (restarted) or the next look says what happened
    if (g_ppoll(&p, 1, &slice, nullptr) != 0) return;
  }
}

// What a write waits for room in; kUnknown until a write on a shared worker
// asks (kind_of), kNonBlocking for a descriptor the program made so (T2).
enum class Kind { kUnknown, kPipe, kSocket, kOther, kNonBlocking };

Kind kind_of(int fd) {
  if (!blocking(fd)) return Kind::kNonBlocking;
  struct stat st;
  if (fstat(fd, &st) != 0) return Kind::kOther;
  if (S_ISFIFO(st.st_mode)) return Kind::kPipe;
  if (S_ISSOCK(st.st_mode)) return Kind::kSocket;
  return Kind::kOther;
}

// How many of `want` bytes a write to pipe fd makes now without blocking:
// its room (capacity less what it holds; a write of more than PIPE_BUF
// bytes need not be atomic), `want` when the room cannot be read (the
// write then blocks as the C library's would).
size_t pipe_room(int fd, size_t want) {
  int capacity = fcntl(fd, F_GETPIPE_SZ);
  int held = 0;
  if (capacity <= 0 || ioctl(fd, FIONREAD, &held) != 0 || held < 0) return want;
  size_t room = held < capacity ? size_t(capacity - held) : 0;
  return room < want ? room : want;
}

// One slice of waiting for room, as wait_readable waits for data: a queued
// fiber runs first; false when no other fiber shares the worker (the caller
// then writes and blocks as the C library's write). `ready` tells whether
// poll already finds the descriptor writable (a pipe whose room could not
// be told from full): then the slice is a sleep.
bool wait_for_room(int fd, bool ready) {
  if (Worker::yield_to_queued()) return true;
  if (!Worker::others_share_worker()) return false;
  SignalSafeWait safe;  // EINTR: the next look says what happened
  timespec slice{0, long(kSliceNs)};
  if (ready) {
    g_clock_nanosleep(CLOCK_MONOTONIC, 0, &slice, nullptr);
  } else {
    pollfd p{fd, POLLOUT, 0};
    g_ppoll(&p, 1, &slice, nullptr);
  }
  return true;
}

// One step of a blocking write on a worker's thread: bytes written (>= 0),
// or -1 with errno; *asked: how many a blocking write was asked for (fewer
// written means the call was cut short), 0 after a non-blocking send. On a
// shared worker it waits (above) until some can be written without
// blocking.
ssize_t write_step(int fd, Kind* kind_seen, const char* p, size_t left, size_t* asked) {
  *asked = left;
  for (;;) {
    if (!on_shared_worker()) return g_write(fd, p, left);
    if (*kind_seen == Kind::kUnknown) *kind_seen = kind_of(fd);
    Kind kind = *kind_seen;
    if (kind == Kind::kNonBlocking) return g_write(fd, p, left);
    if (kind == Kind::kSocket) {
      ssize_t r = g_send(fd, p, left, MSG_DONTWAIT);
      if (r >= 0) *asked = 0;
      if (r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return r;
      if (!wait_for_room(fd, false)) return g_write(fd, p, left);
      continue;
    }
    pollfd q{fd, POLLOUT, 0};
    int looked = g_poll(&q, 1, 0);
    if (looked != 0 && (looked < 0 || (q.revents & POLLOUT) == 0)) return g_write(fd, p, left);  // in error: write says which
    size_t now = looked > 0 && kind == Kind::kPipe ? pipe_room(fd, left) : looked > 0 ? left : 0;
    if (now > 0) {
      *asked = now;
      return g_write(fd, p, now);
    }
    if (!wait_for_room(fd, looked > 0)) return g_write(fd, p, left);
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) ssize_t bobbin_read(int fd, void* buf, size_t n) __asm__("read");
ssize_t bobbin_read(int fd, void* buf, size_t n) {
  if (!g_read) resolve_next();  // called from another library's constructor, before ours
  if (on_shared_worker()) {
    int saved = errno;
    wait_readable(fd);
    errno = saved;
  }
  return g_read(fd, buf, n);
}

// The fortified read (_FORTIFY_SOURCE): the buffer's size checked as the C
// library's (which reports the overflow and ends the program), then read's.
__attribute__((visibility("default"))) ssize_t bobbin_read_chk(int fd, void* buf, size_t n, size_t buflen) __asm__(
    "__read_chk");
ssize_t bobbin_read_chk(int fd, void* buf, size_t n, size_t buflen) {
  if (!g_read_chk) resolve_next();
  if (n > buflen) return g_read_chk(fd, buf, n, buflen);
  return bobbin_read(fd, buf, n);
}

__attribute__((visibility("default"))) ssize_t bobbin_write(int fd, const void* buf, size_t n) __asm__("write");
ssize_t bobbin_write(int fd, const void* buf, size_t n) {
  if (!g_write) resolve_next();
  // Up to PIPE_BUF bytes (nearly every write) go straight to the C
  // library: a pipe takes them whole or blocks (and the monitor's signal
  // then restarts the write, which moved nothing: no short count), and a
  // full pipe is rare with writes that small. The long way below costs up
  // to six system calls a write: a ring of members passing one-byte tokens
  // through pipes took up to three times as long with it.
  if (n <= PIPE_BUF || !on_worker() || from_runtime(__builtin_return_address(0))) return g_write(fd, buf, n);
  int saved = errno;
  Kind kind = Kind::kUnknown;
  auto p = static_cast<const char*>(buf);
  size_t done = 0;
  for (;;) {
    unsigned signals = bobbin::ult::preemption_signals_taken();
    errno = saved;
    size_t asked = 0;
    ssize_t r = write_step(fd, &kind, p + done, n - done, &asked);
    if (r < 0) {
      if (done == 0) return r;  // nothing written: the error is the answer
      break;
    }
    done += size_t(r);
    if (done == n) break;
    // Cut short by the kernel for a reason of its own (a signal of the
    // program's, a full disk): its answer. By the monitor's signal, or a
    // step that asked for part of what is left: go on.
    if (size_t(r) < asked && bobbin::ult::preemption_signals_taken() == signals) break;
  }
  errno = saved;
  return ssize_t(done);
}

}  // extern "C"
