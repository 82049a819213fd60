/* Blocking socket transfers among OpenMP threads: on a blocking stream
   socket, send, sendto and sendmsg move every byte before they return, and
   recv, recvfrom and recvmsg with MSG_WAITALL return the whole count (POSIX
   leaves less only to signals, errors and the peer's shutdown); writev to a
   blocking pipe writes every byte. Whichever thread runs the member, and
   however many members share a core (Bobbin makes these calls let a
   worker's other fibers run while they wait: ult/transfer_linux.cpp).
   - nested teams of 8 under an outer team of 2, after an omp barrier: rings
     passing 64 KiB blocks through stream sockets with buffers of 4 KiB
     (send + recv, sendmsg + recvmsg with several iovecs, sendto + recvfrom,
     the receives with MSG_WAITALL and checked to return the whole block in
     one call) and through pipes of 4 KiB (writev + readv); every block must
     arrive whole with its sender's pattern;
   - in a team: MSG_DONTWAIT on a full socket says EAGAIN; send to a closed
     peer says EPIPE (MSG_NOSIGNAL); MSG_WAITALL returns what arrived before
     the peer shut down; on a datagram socket MSG_WAITALL returns one
     datagram, never two merged; a successful call leaves errno alone;
   - in nested teams of 4 under 2: a socket's receive timeout (SO_RCVTIMEO)
     ends read and recv with MSG_WAITALL (EAGAIN, or what arrived), and its
     send timeout (SO_SNDTIMEO) ends a send to a peer that never reads (a
     short count), each after about the timeout. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "check.h"

enum { INNER = 8, ROUNDS = 6, BLOCK = 64 * 1024, PIECES = 5 };
enum Way { kSend, kSendmsg, kSendto, kWritev, kWays };
static const char *const way_name[kWays] = {"send/recv", "sendmsg/recvmsg", "sendto/recvfrom", "writev/readv"};

static unsigned char pattern(int way, int round, int sender, size_t i) {
  return (unsigned char)(way * 13 + round * 31 + sender * 7 + i);
}

/* Splits buf into PIECES iovecs of uneven lengths. */
static void pieces(unsigned char *buf, struct iovec *iov) {
  static const size_t len[PIECES] = {1000, 7, 30000, 1, BLOCK - 31008};
  size_t at = 0;
  for (int i = 0; i < PIECES; i++) {
    iov[i].iov_base = buf + at;
    iov[i].iov_len = len[i];
    at += len[i];
  }
}

/* A member that stops halfway leaves the others of its ring waiting for
   good: the first short transfer ends the program at once, saying what it
   returned. */
static void broken(enum Way way, int me, int round, const char *what, ssize_t k, int err) {
  CHECK(0, "%s: member %d, round %d: %s returned %zd of %d (%s)", way_name[way], me, round, what, k, BLOCK,
        k < 0 ? strerror(err) : "short");
  fflush(stdout);
  _exit(1);
}

/* Sends a block the given way: what the call returned. */
static ssize_t send_block(enum Way way, int fd, unsigned char *buf) {
  struct iovec iov[PIECES];
  pieces(buf, iov);
  ssize_t k;
  switch (way) {
    case kSend: k = send(fd, buf, BLOCK, MSG_NOSIGNAL); break;
    case kSendto: k = sendto(fd, buf, BLOCK, 0, NULL, 0); break;
    case kSendmsg: {
      struct msghdr m;
      memset(&m, 0, sizeof m);
      m.msg_iov = iov;
      m.msg_iovlen = PIECES;
      k = sendmsg(fd, &m, MSG_NOSIGNAL);
      break;
    }
    default: k = writev(fd, iov, PIECES); break;
  }
  return k;
}

/* Receives a block: the socket ways in one call (MSG_WAITALL), readv in as
   many as it takes (a read may return less). What arrived, or what the
   failed call returned. */
static ssize_t recv_block(enum Way way, int fd, unsigned char *buf) {
  struct iovec iov[PIECES];
  pieces(buf, iov);
  switch (way) {
    case kSend: return recv(fd, buf, BLOCK, MSG_WAITALL);
    case kSendto: return recvfrom(fd, buf, BLOCK, MSG_WAITALL, NULL, NULL);
    case kSendmsg: {
      struct msghdr m;
      memset(&m, 0, sizeof m);
      m.msg_iov = iov;
      m.msg_iovlen = PIECES;
      return recvmsg(fd, &m, MSG_WAITALL);
    }
    default: {
      /* The first readv into the pieces, the rest into what is left. */
      struct iovec *v = iov;
      int n = PIECES;
      size_t got = 0;
      while (got < BLOCK) {
        ssize_t k = readv(fd, v, n);
        if (k < 0 && errno == EINTR)
          continue;
        if (k <= 0)
          return k;
        got += (size_t)k;
        iov[0].iov_base = buf + got;
        iov[0].iov_len = BLOCK - got;
        v = iov;
        n = 1;
      }
      return BLOCK;
    }
  }
}

/* Receives block r from member `from` on fd: bad | 4 if it was garbled. */
static int take(enum Way way, int fd, int me, int r, int from, unsigned char *buf, int bad) {
  ssize_t k = recv_block(way, fd, buf);
  if (k != BLOCK)
    broken(way, me, r, way == kWritev ? "readv" : "a receive with MSG_WAITALL", k, errno);
  for (size_t i = 0; i < BLOCK; i++)
    if (buf[i] != pattern(way, r, from, i))
      return bad | 4;
  return bad;
}

/* One ring: member me receives block r from me-1 on fds[me][0] and sends it
   on to fds[me+1][1]; member 0 starts each round. Error bits: 4 a block
   garbled (a short transfer ends the program: broken). */
static int ring(enum Way way, int fds[INNER][2], int me, unsigned char *buf) {
  int bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    if (me != 0) {
      bad = take(way, fds[me][0], me, r, me - 1, buf, bad);
    }
    for (size_t i = 0; i < BLOCK; i++)
      buf[i] = pattern(way, r, me, i);
    ssize_t k = send_block(way, fds[(me + 1) % INNER][1], buf);
    if (k != BLOCK)
      broken(way, me, r, way == kWritev ? "writev" : "a blocking send", k, errno);
    if (me == 0)
      bad = take(way, fds[0][0], me, r, INNER - 1, buf, bad);
  }
  return bad;
}

static int make_ring(enum Way way, int fds[INNER][2]) {
  for (int i = 0; i < INNER; i++) {
    if (way == kWritev) {
      if (pipe(fds[i]) != 0)
        return 0;
      fcntl(fds[i][0], F_SETPIPE_SZ, 4096);
      continue;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds[i]) != 0)
      return 0;
    int small = 4096;
    setsockopt(fds[i][1], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    setsockopt(fds[i][0], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  }
  return 1;
}

static void rings(void) {
  int bad[kWays] = {0};
  int setup = 0;
  omp_set_max_active_levels(2);
  omp_set_dynamic(0);
#pragma omp parallel num_threads(2) reduction(| : setup)
  {
    int fds[kWays][INNER][2];
    for (int w = 0; w < kWays; w++)
      if (!make_ring((enum Way)w, fds[w]))
        setup = 1;
    int local[kWays] = {0};
#pragma omp parallel num_threads(INNER) shared(fds, local) reduction(| : setup)
    {
      unsigned char *buf = malloc(BLOCK);
      if (omp_get_num_threads() != INNER || !buf)
        setup = 1;
#pragma omp barrier
      for (int w = 0; w < kWays && !setup; w++) {
        int b = ring((enum Way)w, fds[w], omp_get_thread_num(), buf);
#pragma omp atomic
        local[w] |= b;
#pragma omp barrier
      }
      free(buf);
    }
    for (int w = 0; w < kWays; w++) {
#pragma omp atomic
      bad[w] |= local[w];
      for (int i = 0; i < INNER; i++) {
        close(fds[w][i][0]);
        close(fds[w][i][1]);
      }
    }
  }
  CHECK(!setup, "could not set the rings up");
  for (int w = 0; w < kWays; w++)
    CHECK(!bad[w], "%s: a block was garbled", way_name[w]);
}

static void errors(void) {
  int bad = 0;
#pragma omp parallel num_threads(4) reduction(| : bad)
  {
    static __thread unsigned char chunk[8192];
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
      bad |= 1;
    } else {
      /* A full socket with MSG_DONTWAIT. */
      long total = 0;
      for (;;) {
        errno = 0;
        ssize_t k = send(sv[1], chunk, sizeof chunk, MSG_DONTWAIT);
        if (k < 0) {
          if (errno != EAGAIN && errno != EWOULDBLOCK)
            bad |= 2;
          break;
        }
        total += k;
        if (total > (64L << 20)) {
          bad |= 2;
          break;
        }
      }
      /* MSG_WAITALL after the peer shut down: what had arrived. */
      int tq[2];
      if (socketpair(AF_UNIX, SOCK_STREAM, 0, tq) == 0) {
        if (send(tq[1], chunk, 3000, 0) != 3000)
          bad |= 4;
        shutdown(tq[1], SHUT_WR);
        errno = 0;
        if (recv(tq[0], chunk, sizeof chunk, MSG_WAITALL) != 3000)
          bad |= 4;
        close(tq[0]);
        close(tq[1]);
      }
      close(sv[0]);
      errno = 0;
      if (send(sv[1], chunk, sizeof chunk, MSG_NOSIGNAL) != -1 || errno != EPIPE)
        bad |= 8;
      close(sv[1]);
    }
    /* Datagrams: one per receive, even with MSG_WAITALL. */
    int dg[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0) {
      if (send(dg[1], chunk, 5000, 0) != 5000 || send(dg[1], chunk, 6000, 0) != 6000)
        bad |= 16;
      if (recv(dg[0], chunk, sizeof chunk, MSG_WAITALL) != 5000 || recv(dg[0], chunk, sizeof chunk, 0) != 6000)
        bad |= 16;
      close(dg[0]);
      close(dg[1]);
    }
    /* errno after success. */
    int ok[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, ok) == 0) {
      errno = 4321;
      if (send(ok[1], chunk, 5000, 0) != 5000 || errno != 4321)
        bad |= 32;
      if (recv(ok[0], chunk, 5000, MSG_WAITALL) != 5000 || errno != 4321)
        bad |= 32;
      close(ok[0]);
      close(ok[1]);
    }
  }
  CHECK(!(bad & 1), "socketpair failed");
  CHECK(!(bad & 2), "a full socket with MSG_DONTWAIT did not say EAGAIN");
  CHECK(!(bad & 4), "MSG_WAITALL did not return what arrived before the peer shut down");
  CHECK(!(bad & 8), "a send to a closed peer did not fail with EPIPE");
  CHECK(!(bad & 16), "datagrams were merged or lost");
  CHECK(!(bad & 32), "a successful send or receive changed errno");
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

enum { TIMEOUT_MS = 20 };

/* Each member: 1 a read, 2 a receive, 4 a send that ignored or overran its
   socket's timeout; 8 a wait that ended too soon. */
static int timed_transfers(void) {
  int bad = 0;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
    return 16;
  struct timeval tv = {0, TIMEOUT_MS * 1000};
  setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(sv[1], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  static __thread unsigned char big[1 << 20];
  char c;
  double t0 = now_ms();
  errno = 0;
  ssize_t k = read(sv[0], &c, 1);
  double t1 = now_ms();
  if (k != -1 || (errno != EAGAIN && errno != EWOULDBLOCK) || t1 - t0 > 2000)
    bad |= 1;
  if (send(sv[1], big, 3000, 0) != 3000)
    bad |= 2;
  k = recv(sv[0], big, 10000, MSG_WAITALL);
  double t2 = now_ms();
  if (k != 3000 || t2 - t1 > 2000)
    bad |= 2;
  k = send(sv[1], big, sizeof big, 0); /* far more than the socket holds */
  double t3 = now_ms();
  if (k <= 0 || k >= (ssize_t)sizeof big || t3 - t2 > 2000)
    bad |= 4;
  /* Socket timeouts count in kernel ticks: half of one tells a wait from none. */
  if (t1 - t0 < TIMEOUT_MS / 2 || t2 - t1 < TIMEOUT_MS / 2 || t3 - t2 < TIMEOUT_MS / 2)
    bad |= 8;
  close(sv[0]);
  close(sv[1]);
  return bad;
}

static void timeouts(void) {
  int bad = 0;
#pragma omp parallel num_threads(2) reduction(| : bad)
#pragma omp parallel num_threads(4) reduction(| : bad)
  bad |= timed_transfers();
  CHECK(!(bad & 16), "socketpair failed");
  CHECK(!(bad & 1), "read on a socket with a receive timeout did not end with EAGAIN within 2 s");
  CHECK(!(bad & 2), "recv with MSG_WAITALL and a receive timeout did not return what had arrived within 2 s");
  CHECK(!(bad & 4), "a send with a send timeout to a peer that never reads did not return a short count within 2 s");
  CHECK(!(bad & 8), "a wait with a socket timeout ended before half of it");
}

int main(void) {
  rings();
  errors();
  timeouts();
  return conf_end();
}
