// Reads and writes of descriptors that a fiber makes: read, readv, recv,
// recvfrom and recvmsg (and the fortified __read_chk, __recv_chk and
// __recvfrom_chk, which a program built with _FORTIFY_SOURCE calls
// instead); write, writev, send, sendto and sendmsg.
//
// Reads. A member that reads a pipe or socket whose writer is queued on its
// own worker would block that worker: on a worker shared with other fibers,
// a read first looks whether the descriptor is readable, and while it is
// not lets the queued fibers run, then waits for it in slices
// (block_linux.cpp's opening comment: B1-B3 hold here too).
//
// Writes. A write into a full pipe or socket blocks until a reader drains
// it, and the reader may be queued on the writer's worker. Worse, a write
// the monitor's preemption signal interrupts once some of its bytes are in
// the pipe is not restarted: it returns the short count (signal(7)), which a
// program that trusts a blocking write to write everything takes as done.
// A ring of 8 members under an outer team of 2, each passing 64 KiB through
// a pipe of 4 KiB, lost bytes and hung every run (libomp: 20 ms); the same
// ring through stream sockets with send, sendmsg or sendto hung too. So on
// a worker's thread a blocking write of more than PIPE_BUF bytes (write,
// writev, and the sends on a stream socket without an address or ancillary
// data):
//   - on a worker shared with other fibers, writes what the pipe or socket
//     takes now and, while it takes nothing, lets the queued fibers run and
//     waits for room in slices: for a pipe, as many bytes as it has room for;
//     for a stream socket, a send with MSG_DONTWAIT added (the same call as
//     the program's, but for the wait);
//   - goes on after a short count when the monitor's signal was taken
//     meanwhile, until every byte is written.
// A receive with MSG_WAITALL on a stream socket is cut short by the same
// signal (recv(2)): on a worker it goes on in the same way until the whole
// count, the peer's shutdown, or an error.
// Invariants: (T1) each call returns what the C library's would for a
// blocking descriptor: the whole count, or a short count for the kernel's
// own reasons (a signal of the program's, a full disk, the peer's
// shutdown), or -1 with errno when nothing moved; errno is the caller's on
// success. (T2) Writes of up to PIPE_BUF bytes, descriptors the program made
// non-blocking, calls with MSG_DONTWAIT, MSG_OOB or MSG_PEEK, sends with an
// address or ancillary data, receives with ancillary data, the runtime's
// own calls, and calls off a worker go straight to the C library (reads on
// a shared worker after their wait for data).
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
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
using ReadvFn = ssize_t (*)(int, const iovec*, int);
using RecvChkFn = ssize_t (*)(int, void*, size_t, size_t, int);
using RecvfromFn = ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*);
using RecvfromChkFn = ssize_t (*)(int, void*, size_t, size_t, int, sockaddr*, socklen_t*);
using RecvmsgFn = ssize_t (*)(int, msghdr*, int);
using WriteFn = ssize_t (*)(int, const void*, size_t);
using WritevFn = ssize_t (*)(int, const iovec*, int);
using SendFn = ssize_t (*)(int, const void*, size_t, int);
using SendtoFn = ssize_t (*)(int, const void*, size_t, int, const sockaddr*, socklen_t);
using SendmsgFn = ssize_t (*)(int, const msghdr*, int);
using PollFn = int (*)(pollfd*, nfds_t, int);
using PpollFn = int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*);
using ClockNanosleepFn = int (*)(clockid_t, int, const timespec*, timespec*);

ReadFn g_read;
ReadChkFn g_read_chk;
ReadvFn g_readv;
RecvChkFn g_recv_chk;
RecvfromFn g_recvfrom;
RecvfromChkFn g_recvfrom_chk;
RecvmsgFn g_recvmsg;
WriteFn g_write;
WritevFn g_writev;
SendFn g_send;
SendtoFn g_sendto;
SendmsgFn g_sendmsg;
PollFn g_poll;
PpollFn g_ppoll;
ClockNanosleepFn g_clock_nanosleep;

// Resolved at load, before the program's threads exist (as block_linux.cpp).
__attribute__((constructor)) void resolve_next() {
  g_read = reinterpret_cast<ReadFn>(next_symbol("read", "GLIBC_2.2.5"));
  g_read_chk = reinterpret_cast<ReadChkFn>(next_symbol("__read_chk", "GLIBC_2.4"));
  g_readv = reinterpret_cast<ReadvFn>(next_symbol("readv", "GLIBC_2.2.5"));
  g_recv_chk = reinterpret_cast<RecvChkFn>(next_symbol("__recv_chk", "GLIBC_2.4"));
  g_recvfrom = reinterpret_cast<RecvfromFn>(next_symbol("recvfrom", "GLIBC_2.2.5"));
  g_recvfrom_chk = reinterpret_cast<RecvfromChkFn>(next_symbol("__recvfrom_chk", "GLIBC_2.4"));
  g_recvmsg = reinterpret_cast<RecvmsgFn>(next_symbol("recvmsg", "GLIBC_2.2.5"));
  g_write = reinterpret_cast<WriteFn>(next_symbol("write", "GLIBC_2.2.5"));
  g_writev = reinterpret_cast<WritevFn>(next_symbol("writev", "GLIBC_2.2.5"));
  g_send = reinterpret_cast<SendFn>(next_symbol("send", "GLIBC_2.2.5"));
  g_sendto = reinterpret_cast<SendtoFn>(next_symbol("sendto", "GLIBC_2.2.5"));
  g_sendmsg = reinterpret_cast<SendmsgFn>(next_symbol("sendmsg", "GLIBC_2.2.5"));
  g_poll = reinterpret_cast<PollFn>(next_symbol("poll", "GLIBC_2.2.5"));
  g_ppoll = reinterpret_cast<PpollFn>(next_symbol("ppoll", "GLIBC_2.4"));
  g_clock_nanosleep = reinterpret_cast<ClockNanosleepFn>(next_symbol("clock_nanosleep", "GLIBC_2.17"));
}

bool blocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && !(flags & O_NONBLOCK);
}

// A socket's receive (SO_RCVTIMEO) or send (SO_SNDTIMEO) timeout as a
// deadline from now; kNoDeadline without one, or for another descriptor.
uint64_t socket_deadline(int fd, int option) {
  timeval tv{};
  socklen_t len = sizeof tv;
  if (getsockopt(fd, SOL_SOCKET, option, &tv, &len) != 0 || (tv.tv_sec == 0 && tv.tv_usec == 0)) return kNoDeadline;
  return deadline_after(CLOCK_MONOTONIC, uint64_t(tv.tv_sec) * 1'000'000'000u + uint64_t(tv.tv_usec) * 1000u);
}

// Waits, as above, until fd is readable (or in error); returns at once for a
// non-blocking descriptor (B3) or when no other fiber shares the worker.
// False when a socket's receive timeout ran out first: the call then takes
// what it finds without blocking (its answer, EAGAIN, is the blocking
// call's after its timeout).
bool wait_readable(int fd) {
  if (!blocking(fd)) return true;
  uint64_t deadline = 0;  // looked up once there is a wait
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (g_poll(&p, 1, 0) != 0) return true;  // readable, hung up, in error, or interrupted: read says which
    if (deadline == 0) deadline = socket_deadline(fd, SO_RCVTIMEO);
    uint64_t left = kSliceNs;
    if (deadline != kNoDeadline) {
      uint64_t now = now_on(CLOCK_MONOTONIC);
      if (now >= deadline) return false;
      if (deadline - now < left) left = deadline - now;
    }
    if (Worker::yield_to_queued()) continue;
    if (!Worker::others_share_worker()) return true;
    timespec slice = from_ns(left);
    SignalSafeWait safe;  // EINTR: read (restarted) or the next look says what happened
    if (g_ppoll(&p, 1, &slice, nullptr) != 0) return true;
  }
}

// wait_readable for a read of a worker's fiber, errno left alone: false
// when the read is to take what it finds without blocking.
bool before_read(int fd) {
  if (!on_shared_worker()) return true;
  int saved = errno;
  bool wait = wait_readable(fd);
  errno = saved;
  return wait;
}

// What a write waits for room in; kUnknown until a write on a shared worker
// asks (kind_of), kNonBlocking for a descriptor the program made so (T2).
// kSocket is a stream socket: another kind of socket moves a message whole
// or not at all.
enum class Kind { kUnknown, kPipe, kSocket, kOther, kNonBlocking };

bool stream_socket(int fd) {
  int type = 0;
  socklen_t len = sizeof type;
  return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

Kind kind_of(int fd) {
  if (!blocking(fd)) return Kind::kNonBlocking;
  struct stat st;
  if (fstat(fd, &st) != 0) return Kind::kOther;
  if (S_ISFIFO(st.st_mode)) return Kind::kPipe;
  if (S_ISSOCK(st.st_mode)) return stream_socket(fd) ? Kind::kSocket : Kind::kOther;
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

// The bytes a call has still to move: the caller's iovecs from `iov`, the
// first of them from `off` on. A one-buffer call is one iovec.
struct Bytes {
  const iovec* iov;
  int count;
  size_t off;
  size_t left;

  void advance(size_t n) {
    left -= n;
    n += off;
    off = 0;
    while (count > 0 && n >= iov->iov_len) {
      n -= iov->iov_len;
      ++iov;
      --count;
    }
    off = n;
  }
};

size_t total_of(const iovec* iov, int count) {
  size_t n = 0;
  for (int i = 0; i < count; ++i) n += iov[i].iov_len;
  return n;
}

// How a write reaches the kernel: the program's send flags for a socket
// (`send`: it called a send), write or writev otherwise.
struct Sink {
  int fd;
  bool send;
  int flags;
  Kind kind = Kind::kUnknown;
  uint64_t deadline = 0;  // a socket's send timeout, looked up once there is a wait
};

// One system call moving up to `limit` of the bytes b holds from b on:
// the whole iovecs that fit in one call, or the first one's part. `flags`
// are added to the sink's for a send; a socket takes a send.
ssize_t put(const Sink& s, const Bytes& b, size_t limit, int flags, size_t* asked) {
  bool as_send = s.send || s.kind == Kind::kSocket;
  int whole = 0;
  size_t sum = 0;
  if (b.off == 0)
    while (whole < b.count && whole < IOV_MAX && sum + b.iov[whole].iov_len <= limit) sum += b.iov[whole++].iov_len;
  if (whole > 1) {
    *asked = sum;
    if (!as_send) return g_writev(s.fd, b.iov, whole);
    msghdr m{};
    m.msg_iov = const_cast<iovec*>(b.iov);
    m.msg_iovlen = size_t(whole);
    return g_sendmsg(s.fd, &m, s.flags | flags);
  }
  size_t n = b.iov->iov_len - b.off;
  if (n > limit) n = limit;
  *asked = n;
  const char* p = static_cast<const char*>(b.iov->iov_base) + b.off;
  return as_send ? g_send(s.fd, p, n, s.flags | flags) : g_write(s.fd, p, n);
}

// One step of a blocking write on a worker's thread: bytes written (>= 0),
// or -1 with errno; *asked: how many a blocking call was asked for (fewer
// written means the call was cut short), 0 after a non-blocking send. On a
// shared worker it waits (above) until some can be written without
// blocking.
ssize_t write_step(Sink* s, const Bytes& b, size_t* asked) {
  for (;;) {
    if (!on_shared_worker()) return put(*s, b, b.left, 0, asked);
    if (s->kind == Kind::kUnknown) s->kind = kind_of(s->fd);
    if (s->kind == Kind::kNonBlocking) return put(*s, b, b.left, 0, asked);
    if (s->kind == Kind::kSocket) {
      ssize_t r = put(*s, b, b.left, MSG_DONTWAIT, asked);
      if (r >= 0) *asked = 0;
      if (r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return r;
      if (s->deadline == 0) s->deadline = socket_deadline(s->fd, SO_SNDTIMEO);
      if (s->deadline != kNoDeadline && now_on(CLOCK_MONOTONIC) >= s->deadline) return r;  // EAGAIN, as after the timeout
      if (!wait_for_room(s->fd, false)) return put(*s, b, b.left, 0, asked);
      continue;
    }
    pollfd q{s->fd, POLLOUT, 0};
    int looked = g_poll(&q, 1, 0);
    if (looked != 0 && (looked < 0 || (q.revents & POLLOUT) == 0))
      return put(*s, b, b.left, 0, asked);  // in error: the call says which
    size_t now = looked > 0 && s->kind == Kind::kPipe ? pipe_room(s->fd, b.left) : looked > 0 ? b.left : 0;
    if (now > 0) return put(*s, b, now, 0, asked);
    if (!wait_for_room(s->fd, looked > 0)) return put(*s, b, b.left, 0, asked);
  }
}

// A blocking write of b on a worker's thread, as above (T1).
ssize_t write_all(Sink s, Bytes b) {
  int saved = errno;
  size_t done = 0;
  while (b.left > 0) {
    unsigned signals = bobbin::ult::preemption_signals_taken();
    errno = saved;
    size_t asked = 0;
    ssize_t r = write_step(&s, b, &asked);
    if (r < 0) {
      if (done == 0) return r;  // nothing written: the error is the answer
      break;
    }
    done += size_t(r);
    b.advance(size_t(r));
    // Cut short by the kernel for a reason of its own (a signal of the
    // program's, a full disk): its answer. By the monitor's signal, or a
    // step that asked for part of what is left: go on.
    if (b.left > 0 && size_t(r) < asked && bobbin::ult::preemption_signals_taken() == signals) break;
  }
  errno = saved;
  return ssize_t(done);
}

// Whether a write of n bytes takes the long way: more than PIPE_BUF bytes
// (up to that, a pipe takes them whole or blocks, and the monitor's signal
// then restarts the write, which moved nothing: no short count; and a full
// pipe is rare with writes that small; the long way costs up to six system
// calls a write, and a ring of members passing one-byte tokens through
// pipes took up to three times as long with it), from the program, on a
// worker.
bool long_way(size_t n, const void* ret) { return n > PIPE_BUF && on_worker() && !from_runtime(ret); }

// A send's flags that the long way keeps to the C library (T2).
constexpr int kSendAsIs = MSG_DONTWAIT | MSG_OOB;

// One step of a receive with MSG_WAITALL on a worker: on a shared worker,
// what has arrived (MSG_DONTWAIT, after the wait for data); else the
// blocking call for the rest. *waited: the call was the blocking one, for
// *asked bytes; *late: the socket's receive timeout ran out.
template <typename Call>
ssize_t receive_step(int fd, Bytes* b, int flags, Call call, bool* waited, size_t* asked, bool* late) {
  *waited = !on_shared_worker();
  if (!*waited) {
    *late = !wait_readable(fd);
    flags = (flags & ~MSG_WAITALL) | MSG_DONTWAIT;
  }
  return call(*b, flags, asked);
}

// A receive with MSG_WAITALL on a stream socket, on a worker's thread: the
// whole count, what arrived before the peer's shutdown or an error, or a
// short count when a signal of the program's cut the call short (T1).
// call(bytes, flags, &asked) receives into bytes, asked for `asked` of them.
template <typename Call>
ssize_t receive_all(int fd, Bytes b, int flags, Call call) {
  int saved = errno;
  size_t done = 0;
  while (b.left > 0) {
    unsigned signals = bobbin::ult::preemption_signals_taken();
    errno = saved;
    bool waited = false, late = false;
    size_t asked = 0;
    ssize_t r = receive_step(fd, &b, flags, call, &waited, &asked, &late);
    if (r < 0) {
      if (!waited && !late && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (done == 0) return r;
      break;
    }
    if (r == 0) break;  // the peer shut down
    done += size_t(r);
    b.advance(size_t(r));
    if (waited && size_t(r) < asked && bobbin::ult::preemption_signals_taken() == signals) break;
  }
  errno = saved;
  return ssize_t(done);
}

// Whether a receive of n bytes with these flags takes the long way
// (MSG_WAITALL on a blocking stream socket, from the program, on a worker;
// an empty one is the C library's).
bool receive_long_way(int fd, size_t n, int flags, const void* ret) {
  if (n == 0 || (flags & (MSG_WAITALL | MSG_DONTWAIT | MSG_PEEK | MSG_OOB)) != MSG_WAITALL) return false;
  if (!on_worker() || from_runtime(ret)) return false;
  return blocking(fd) && stream_socket(fd);
}

// A one-buffer receive (recv, recvfrom) on the long way: the rest of the
// buffer, then the address of the last call.
ssize_t receive_buffer(int fd, void* buf, size_t n, int flags, sockaddr* from, socklen_t* from_len) {
  iovec one{buf, n};
  return receive_all(fd, Bytes{&one, 1, 0, n}, flags, [&](const Bytes& b, int f, size_t* asked) {
    *asked = b.left;
    char* p = static_cast<char*>(b.iov->iov_base) + b.off;
    return g_recvfrom(fd, p, b.left, f, from, from_len);
  });
}

// recv and recvfrom (and their fortified entries): `ret` is the program's
// return address (the entry's), which tells the runtime's own calls.
ssize_t receive(int fd, void* buf, size_t n, int flags, sockaddr* from, socklen_t* from_len, const void* ret) {
  if (!g_recvfrom) resolve_next();
  if (receive_long_way(fd, n, flags, ret)) return receive_buffer(fd, buf, n, flags, from, from_len);
  if (!(flags & MSG_DONTWAIT) && !before_read(fd)) flags |= MSG_DONTWAIT;
  return g_recvfrom(fd, buf, n, flags, from, from_len);
}

// send and sendto without an address, as receive.
ssize_t send_buffer(int fd, const void* buf, size_t n, int flags, const void* ret) {
  if ((flags & kSendAsIs) || !long_way(n, ret)) return g_send(fd, buf, n, flags);
  iovec one{const_cast<void*>(buf), n};
  return write_all(Sink{fd, true, flags}, Bytes{&one, 1, 0, n});
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) ssize_t bobbin_read(int fd, void* buf, size_t n) __asm__("read");
ssize_t bobbin_read(int fd, void* buf, size_t n) {
  if (!g_read) resolve_next();  // called from another library's constructor, before ours
  if (!before_read(fd)) return g_recvfrom(fd, buf, n, MSG_DONTWAIT, nullptr, nullptr);  // a socket: read is recv
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

__attribute__((visibility("default"))) ssize_t bobbin_readv(int fd, const iovec* iov, int count) __asm__("readv");
ssize_t bobbin_readv(int fd, const iovec* iov, int count) {
  if (!g_readv) resolve_next();
  if (count >= 0 && !before_read(fd)) {  // a socket: readv is recvmsg
    msghdr m{};
    m.msg_iov = const_cast<iovec*>(iov);
    m.msg_iovlen = size_t(count);
    return g_recvmsg(fd, &m, MSG_DONTWAIT);
  }
  return g_readv(fd, iov, count);
}

__attribute__((visibility("default"))) ssize_t bobbin_recvfrom(int fd, void* buf, size_t n, int flags, sockaddr* from,
                                                               socklen_t* from_len) __asm__("recvfrom");
ssize_t bobbin_recvfrom(int fd, void* buf, size_t n, int flags, sockaddr* from, socklen_t* from_len) {
  return receive(fd, buf, n, flags, from, from_len, __builtin_return_address(0));
}

__attribute__((visibility("default"))) ssize_t bobbin_recv(int fd, void* buf, size_t n, int flags) __asm__("recv");
ssize_t bobbin_recv(int fd, void* buf, size_t n, int flags) {
  return receive(fd, buf, n, flags, nullptr, nullptr, __builtin_return_address(0));
}

// The fortified receives: the size checked as the C library's, then the
// receive's.
__attribute__((visibility("default"))) ssize_t bobbin_recv_chk(int fd, void* buf, size_t n, size_t buflen,
                                                               int flags) __asm__("__recv_chk");
ssize_t bobbin_recv_chk(int fd, void* buf, size_t n, size_t buflen, int flags) {
  if (!g_recv_chk) resolve_next();
  if (n > buflen) return g_recv_chk(fd, buf, n, buflen, flags);
  return receive(fd, buf, n, flags, nullptr, nullptr, __builtin_return_address(0));
}

__attribute__((visibility("default"))) ssize_t bobbin_recvfrom_chk(int fd, void* buf, size_t n, size_t buflen,
                                                                   int flags, sockaddr* from,
                                                                   socklen_t* from_len) __asm__("__recvfrom_chk");
ssize_t bobbin_recvfrom_chk(int fd, void* buf, size_t n, size_t buflen, int flags, sockaddr* from,
                            socklen_t* from_len) {
  if (!g_recvfrom_chk) resolve_next();
  if (n > buflen) return g_recvfrom_chk(fd, buf, n, buflen, flags, from, from_len);
  return receive(fd, buf, n, flags, from, from_len, __builtin_return_address(0));
}

__attribute__((visibility("default"))) ssize_t bobbin_recvmsg(int fd, msghdr* msg, int flags) __asm__("recvmsg");
ssize_t bobbin_recvmsg(int fd, msghdr* msg, int flags) {
  if (!g_recvmsg) resolve_next();
  size_t n = msg && msg->msg_iovlen <= size_t(IOV_MAX) ? total_of(msg->msg_iov, int(msg->msg_iovlen)) : 0;
  if (n > 0 && msg->msg_controllen == 0 && receive_long_way(fd, n, flags, __builtin_return_address(0))) {
    int count = int(msg->msg_iovlen);
    msghdr m = *msg;
    ssize_t r = receive_all(fd, Bytes{msg->msg_iov, count, 0, n}, flags,
                            [&](const Bytes& b, int f, size_t* asked) {
                              if (b.off == 0) {
                                *asked = b.left;
                                m.msg_iov = const_cast<iovec*>(b.iov);
                                m.msg_iovlen = size_t(b.count);
                                return g_recvmsg(fd, &m, f);
                              }
                              char* p = static_cast<char*>(b.iov->iov_base) + b.off;
                              *asked = b.iov->iov_len - b.off;
                              return g_recvfrom(fd, p, *asked, f, static_cast<sockaddr*>(m.msg_name),
                                                &m.msg_namelen);
                            });
    msg->msg_namelen = m.msg_namelen;
    msg->msg_flags = m.msg_flags;
    return r;
  }
  if (!(flags & MSG_DONTWAIT) && !before_read(fd)) flags |= MSG_DONTWAIT;
  return g_recvmsg(fd, msg, flags);
}

__attribute__((visibility("default"))) ssize_t bobbin_write(int fd, const void* buf, size_t n) __asm__("write");
ssize_t bobbin_write(int fd, const void* buf, size_t n) {
  if (!g_write) resolve_next();
  if (!long_way(n, __builtin_return_address(0))) return g_write(fd, buf, n);
  iovec one{const_cast<void*>(buf), n};
  return write_all(Sink{fd, false, 0}, Bytes{&one, 1, 0, n});
}

__attribute__((visibility("default"))) ssize_t bobbin_writev(int fd, const iovec* iov, int count) __asm__("writev");
ssize_t bobbin_writev(int fd, const iovec* iov, int count) {
  if (!g_writev) resolve_next();
  if (count <= 0 || count > IOV_MAX) return g_writev(fd, iov, count);
  size_t n = total_of(iov, count);
  if (!long_way(n, __builtin_return_address(0))) return g_writev(fd, iov, count);
  return write_all(Sink{fd, false, 0}, Bytes{iov, count, 0, n});
}

__attribute__((visibility("default"))) ssize_t bobbin_send(int fd, const void* buf, size_t n, int flags) __asm__(
    "send");
ssize_t bobbin_send(int fd, const void* buf, size_t n, int flags) {
  if (!g_send) resolve_next();
  return send_buffer(fd, buf, n, flags, __builtin_return_address(0));
}

__attribute__((visibility("default"))) ssize_t bobbin_sendto(int fd, const void* buf, size_t n, int flags,
                                                             const sockaddr* to, socklen_t to_len) __asm__("sendto");
ssize_t bobbin_sendto(int fd, const void* buf, size_t n, int flags, const sockaddr* to, socklen_t to_len) {
  if (!g_sendto) resolve_next();
  if (to) return g_sendto(fd, buf, n, flags, to, to_len);
  return send_buffer(fd, buf, n, flags, __builtin_return_address(0));
}

__attribute__((visibility("default"))) ssize_t bobbin_sendmsg(int fd, const msghdr* msg, int flags) __asm__(
    "sendmsg");
ssize_t bobbin_sendmsg(int fd, const msghdr* msg, int flags) {
  if (!g_sendmsg) resolve_next();
  if (!msg || msg->msg_name || msg->msg_controllen || (flags & kSendAsIs) || msg->msg_iovlen == 0 ||
      msg->msg_iovlen > size_t(IOV_MAX))
    return g_sendmsg(fd, msg, flags);
  int count = int(msg->msg_iovlen);
  size_t n = total_of(msg->msg_iov, count);
  if (!long_way(n, __builtin_return_address(0))) return g_sendmsg(fd, msg, flags);
  return write_all(Sink{fd, true, flags}, Bytes{msg->msg_iov, count, 0, n});
}

}  // extern "C"
