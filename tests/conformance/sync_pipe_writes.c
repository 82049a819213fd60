/* Blocking writes among OpenMP threads: a write to a blocking pipe or
   stream socket writes every byte before it returns (POSIX leaves a short
   count only to signals and errors), and a member that writes into a full
   pipe waits for the reader, whichever thread runs it (Bobbin makes the
   write let a worker's other fibers run first: ult/transfer_linux.cpp).
   - nested teams of 8 under an outer team of 2 (more threads than a small
     machine's cores), after an omp barrier: a ring passing 64 KiB blocks
     through pipes of 4 KiB, then through stream sockets, 8 rounds each;
     every write must return the whole count and every block arrive whole,
     with its sender's pattern;
   - in a team: a full non-blocking pipe says EAGAIN, a pipe without a
     reader says EPIPE (SIGPIPE ignored), and a successful write leaves
     errno alone. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"

enum { INNER = 8, ROUNDS = 8, BLOCK = 64 * 1024 };

static unsigned char pattern(int round, int sender, size_t i) { return (unsigned char)(round * 31 + sender * 7 + i); }

/* Reads exactly n bytes (reads may return less: that is allowed). */
static int read_all(int fd, unsigned char *p, size_t n) {
  while (n) {
    ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return 0;
    p += k;
    n -= (size_t)k;
  }
  return 1;
}

/* One ring: member me receives block r from me-1 on fds[me][0] and sends
   it on to fds[me+1][1]; member 0 starts each round. Returns error bits:
   1 a short or failed write, 2 a block lost or garbled. */
static int ring(int fds[INNER][2], int me, unsigned char *buf) {
  int bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    if (me == 0) {
      for (size_t i = 0; i < BLOCK; i++)
        buf[i] = pattern(r, 0, i);
    } else {
      if (!read_all(fds[me][0], buf, BLOCK))
        return bad | 2;
      for (size_t i = 0; i < BLOCK; i++)
        if (buf[i] != pattern(r, me - 1, i)) {
          bad |= 2;
          break;
        }
      for (size_t i = 0; i < BLOCK; i++)
        buf[i] = pattern(r, me, i);
    }
    if (write(fds[(me + 1) % INNER][1], buf, BLOCK) != BLOCK)
      return bad | 1;
    if (me == 0) {
      if (!read_all(fds[0][0], buf, BLOCK))
        return bad | 2;
      for (size_t i = 0; i < BLOCK; i++)
        if (buf[i] != pattern(r, INNER - 1, i)) {
          bad |= 2;
          break;
        }
    }
  }
  return bad;
}

static void rings(void) {
  int bad = 0;
  omp_set_max_active_levels(2);
  omp_set_dynamic(0);
#pragma omp parallel num_threads(2) reduction(| : bad)
  {
    int pipes[INNER][2], socks[INNER][2];
    for (int i = 0; i < INNER; i++) {
      if (pipe(pipes[i]) != 0)
        bad |= 4;
      fcntl(pipes[i][0], F_SETPIPE_SZ, 4096);
      int sv[2];
      if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        bad |= 4;
      int small = 4096;
      setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
      setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
      socks[i][0] = sv[0]; /* read end, as a pipe's */
      socks[i][1] = sv[1];
    }
#pragma omp parallel num_threads(INNER) shared(pipes, socks) reduction(| : bad)
    {
      unsigned char *buf = malloc(BLOCK);
      if (omp_get_num_threads() != INNER || !buf)
        bad |= 4;
#pragma omp barrier
      if (!(bad & 4)) {
        bad |= ring(pipes, omp_get_thread_num(), buf);
#pragma omp barrier
        bad |= ring(socks, omp_get_thread_num(), buf) << 3;
      }
      free(buf);
    }
    for (int i = 0; i < INNER; i++) {
      close(pipes[i][0]);
      close(pipes[i][1]);
      close(socks[i][0]);
      close(socks[i][1]);
    }
  }
  CHECK(!(bad & 4), "could not set the rings up");
  CHECK(!(bad & 1), "a blocking write to a pipe returned a short count or failed");
  CHECK(!(bad & 2), "a block through a pipe was lost or garbled");
  CHECK(!(bad & 8), "a blocking write to a stream socket returned a short count or failed");
  CHECK(!(bad & 16), "a block through a stream socket was lost or garbled");
}

static void errors(void) {
  int bad = 0;
  signal(SIGPIPE, SIG_IGN);
#pragma omp parallel num_threads(4) reduction(| : bad)
  {
    int p[2];
    if (pipe2(p, O_NONBLOCK) != 0) {
      bad |= 1;
    } else {
      static __thread unsigned char chunk[4096];
      long total = 0;
      for (;;) {
        errno = 0;
        ssize_t k = write(p[1], chunk, sizeof chunk);
        if (k < 0) {
          if (errno != EAGAIN)
            bad |= 2;
          break;
        }
        total += k;
        if (total > (64L << 20)) {
          bad |= 2; /* never full */
          break;
        }
      }
      close(p[0]);
      errno = 0;
      if (write(p[1], chunk, 1) != -1 || errno != EPIPE)
        bad |= 4;
      close(p[1]);
    }
    int q[2];
    if (pipe(q) == 0) {
      errno = 4321;
      if (write(q[1], "x", 1) != 1 || errno != 4321)
        bad |= 8;
      close(q[0]);
      close(q[1]);
    }
  }
  CHECK(!(bad & 1), "pipe2 failed");
  CHECK(!(bad & 2), "a full non-blocking pipe did not say EAGAIN");
  CHECK(!(bad & 4), "a write to a pipe without a reader did not fail with EPIPE");
  CHECK(!(bad & 8), "a successful write changed errno");
}

int main(void) {
  rings();
  errors();
  return conf_end();
}
