/* An OpenMP thread that reads its own processor mask. With no binding
   asked for, OpenMP threads are not bound: each reads the mask the process
   had before any OpenMP call, as under libomp and libgomp (a library that
   sizes its pool from the calling thread's mask, or a program that prints
   its threads' masks, must not see fewer processors than it has). With
   binding, each reads its place's processors. Read three ways
   (sched_getaffinity of 0 and of its own thread id, pthread_getaffinity_np
   of itself) by the threads of a team as wide as the processors, of a team
   twice as wide, of their nested teams of 2, and by tasks, and as they
   spin for each other in nested teams wider than the processors. Last, one thread
   binds itself to one processor and must read that back, then widens its
   mask again and must read the process's. */
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "place_mask.h"

static cpu_set_t g_process; /* the process's mask, before any OpenMP call */
static int g_first_cpu = -1;
static int g_unbound_checked;

static void check_read(const char *who, int round) {
  if (omp_get_place_num() >= 0) {
    check_mask(who, round);
    return;
  }
  cpu_set_t a, b, c;
  CHECK(sched_getaffinity(0, sizeof a, &a) == 0, "sched_getaffinity(0)");
  CHECK(sched_getaffinity((pid_t)syscall(SYS_gettid), sizeof b, &b) == 0, "sched_getaffinity(own id)");
  CHECK(pthread_getaffinity_np(pthread_self(), sizeof c, &c) == 0, "pthread_getaffinity_np");
  CHECK(CPU_EQUAL(&a, &g_process), "%s, round %d (unbound): sched_getaffinity(0) reads %d processors, the process has %d",
        who, round, CPU_COUNT(&a), CPU_COUNT(&g_process));
  CHECK(CPU_EQUAL(&b, &g_process), "%s, round %d (unbound): sched_getaffinity(own id) reads %d processors, the process has %d",
        who, round, CPU_COUNT(&b), CPU_COUNT(&g_process));
  CHECK(CPU_EQUAL(&c, &g_process), "%s, round %d (unbound): pthread_getaffinity_np reads %d processors, the process has %d",
        who, round, CPU_COUNT(&c), CPU_COUNT(&g_process));
  __atomic_fetch_add(&g_unbound_checked, 1, __ATOMIC_RELAXED);
}

static void check_team(int width, int round) {
#pragma omp parallel num_threads(width)
  {
    check_read("outer thread", round);
#pragma omp parallel num_threads(2)
    check_read("nested member", round);
#pragma omp for schedule(static, 1)
    for (int i = 0; i < 2 * width; i++) {
#pragma omp task
      check_read("task", round);
    }
  }
}

/* Nested teams wider than the processors whose members spin for each
   other, reading their masks as they spin: a runtime that runs OpenMP
   threads on fewer kernel threads must still get every member running. */
static void spin_team(int width, int round) {
#pragma omp parallel num_threads(width)
  {
    int arrived = 0;
#pragma omp parallel num_threads(2 * width) shared(arrived)
    {
      int n = omp_get_num_threads();
      __atomic_fetch_add(&arrived, 1, __ATOMIC_ACQ_REL);
      long spins = 0;
      while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < n)
        if ((++spins & 63) == 0) check_read("member spinning", round);
    }
  }
}

int main(void) {
  CHECK(sched_getaffinity(0, sizeof g_process, &g_process) == 0, "sched_getaffinity");
  for (int c = 0; c < CPU_SETSIZE && g_first_cpu < 0; c++)
    if (CPU_ISSET(c, &g_process)) g_first_cpu = c;
  omp_set_max_active_levels(2);
  int procs = omp_get_num_procs();
  for (int round = 0; round < 3; round++) {
    check_team(procs, round);
    check_team(2 * procs, round);
    spin_team(procs, round);
  }
  CHECK(g_unbound_checked + g_checked > 0, "no thread checked its mask");

  /* The program binds a thread itself: it reads back what it set. */
#pragma omp parallel num_threads(procs)
  if (omp_get_thread_num() == procs - 1) {
    cpu_set_t one, got;
    CPU_ZERO(&one);
    CPU_SET(g_first_cpu, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity to processor %d", g_first_cpu);
    CHECK(sched_getaffinity(0, sizeof got, &got) == 0, "sched_getaffinity");
    CHECK(CPU_EQUAL(&got, &one), "bound by the program to processor %d, a thread reads %d processors", g_first_cpu,
          CPU_COUNT(&got));
    CHECK(sched_setaffinity(0, sizeof g_process, &g_process) == 0, "sched_setaffinity to the process's mask");
    CHECK(sched_getaffinity(0, sizeof got, &got) == 0, "sched_getaffinity");
    CHECK(CPU_EQUAL(&got, &g_process), "widened by the program to %d processors, a thread reads %d",
          CPU_COUNT(&g_process), CPU_COUNT(&got));
  }
  return conf_end();
}
