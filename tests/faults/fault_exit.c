/* exit() called by one OpenMP thread while others are busy: the process
   ends with that status, atexit handlers run once, buffered output is
   written. argv[1] says where the call is made:
     nested       a member of a nested team (outer 2 x inner 3)
     task         an explicit task, other tasks still queued and running
     nested_task  a task created inside a nested region
     untied       an untied task that passed a task scheduling point
     taskwait     the primary thread, inside taskwait, while a task calls it
   The other threads spin on a flag the exiting thread never sets, or wait
   at a barrier or a taskwait. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int g_never;
static int g_atexit_runs;

static void at_exit(void) {
  g_atexit_runs++;
  printf("atexit ran %d\n", g_atexit_runs);
}

static void spin(void) {
  while (!g_never) {
  }
}

static void die(int status) {
  printf("exiting with %d\n", status); /* buffered: exit must flush it */
  exit(status);
}

int main(int argc, char **argv) {
  const char *where = argc > 1 ? argv[1] : "nested";
  atexit(at_exit);
  omp_set_max_active_levels(3);
  printf("start %s\n", where);
  if (!strcmp(where, "nested")) {
#pragma omp parallel num_threads(2)
    {
      int outer = omp_get_thread_num();
#pragma omp parallel num_threads(3)
      {
        if (outer == 1 && omp_get_thread_num() == 1) die(7);
        if (omp_get_thread_num() == 0) spin();
#pragma omp barrier
      }
    }
  } else if (!strcmp(where, "task")) {
#pragma omp parallel num_threads(4)
#pragma omp single
    {
      for (int i = 0; i < 64; i++) {
#pragma omp task
        {
          if (i == 40) die(9);
          volatile double x = 0;
          for (int k = 0; k < 200000; k++) x += k;
        }
      }
#pragma omp taskwait
    }
  } else if (!strcmp(where, "nested_task")) {
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(3)
    {
#pragma omp single
      {
#pragma omp task
        {
          if (omp_get_ancestor_thread_num(1) == 0) die(11);
        }
#pragma omp taskwait
      }
      spin();
    }
  } else if (!strcmp(where, "untied")) {
#pragma omp parallel num_threads(3)
#pragma omp single
    {
#pragma omp task untied
      {
#pragma omp task
        {
          volatile double x = 0;
          for (int k = 0; k < 100000; k++) x += k;
        }
#pragma omp taskyield
#pragma omp taskwait
        die(13);
      }
#pragma omp taskwait
    }
  } else if (!strcmp(where, "taskwait")) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
#pragma omp task
        die(15);
#pragma omp taskwait
        spin();
      } else {
        spin();
      }
    }
  } else {
    fprintf(stderr, "unknown case %s\n", where);
    return 2;
  }
  printf("not reached\n");
  return 1;
}
