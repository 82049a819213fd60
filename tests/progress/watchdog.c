/* A program that truly cannot progress must say so: the parent runs itself
   as a child with BOBBIN_WATCHDOG=1, in which two members of a nested team
   spin for each other forever (each waits for a flag only the other would
   set after its own wait), and checks that the child's standard error
   carries the watchdog's report (workers, and what the waiting OpenMP
   threads wait for) within 20 seconds; then kills the child. */
#define _GNU_SOURCE
#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int flag_a, flag_b;

static void deadlock(void) {
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1) {
#pragma omp parallel num_threads(2)
      {
        if (omp_get_thread_num() == 0) {
          while (!__atomic_load_n(&flag_b, __ATOMIC_ACQUIRE)) {}
          __atomic_store_n(&flag_a, 1, __ATOMIC_RELEASE);
        } else {
          while (!__atomic_load_n(&flag_a, __ATOMIC_ACQUIRE)) {}
          __atomic_store_n(&flag_b, 1, __ATOMIC_RELEASE);
        }
      }
    }
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    alarm(60);  /* never outlive a parent that died */
    deadlock();
    return 0;
  }
  int fds[2];
  if (pipe(fds) != 0) return 2;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    setenv("BOBBIN_WATCHDOG", "1", 1);
    execl("/proc/self/exe", argv[0], "child", (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char buf[65536];
  size_t len = 0;
  double t0 = now();
  int found = 0;
  while (!found && now() - t0 < 20 && len + 1 < sizeof buf) {
    struct pollfd p = {fds[0], POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    ssize_t n = read(fds[0], buf + len, sizeof buf - 1 - len);
    if (n <= 0) break;
    len += (size_t)n;
    buf[len] = 0;
    found = strstr(buf, "bobbin: watchdog:") && strstr(buf, "waits for") && strstr(buf, "without a scheduling point");
  }
  double took = now() - t0;
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  buf[len] = 0;
  fputs(buf, stdout);
  if (!found) {
    printf("FAIL: no watchdog report after %.1f s\n", took);
    return 1;
  }
  printf("ok: watchdog report after %.1f s\n", took);
  return 0;
}
