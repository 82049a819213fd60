/* Binding asked for in the environment (OMP_PROC_BIND=true, OMP_PLACES)
   must not shrink the machine. libgomp binds the initial thread to its
   first place when it starts, and under LD_PRELOAD its start-up code still
   runs before Bobbin's: a runtime that then read the initial thread's mask
   would see one processor and run the whole team on it. A child process
   started with each setting reports omp_get_num_procs() and, for a team of
   two spinning threads, the processor each one runs on; it must see every
   processor the parent (started without binding) sees, and with two or
   more the threads must be on different ones. */
#include <sched.h>

#include "child.h"

static int child_main(const char *role) {
  (void)role;
  int cpu[2] = {-1, -1};
  volatile int arrived = 0;
#pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    __atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < 2) {
    }
    /* both threads are running now; each says where */
    for (int i = 0; i < 1000; i++) cpu[me] = sched_getcpu();
#pragma omp barrier
  }
  printf("procs=%d cpu0=%d cpu1=%d\n", omp_get_num_procs(), cpu[0], cpu[1]);
  return 0;
}

int main(void) {
  if (*conf_child_role()) return child_main(conf_child_role());
  int procs = omp_get_num_procs();
  static const char *const settings[][3] = {
      {"OMP_PROC_BIND=true", NULL, NULL},
      {"OMP_PLACES=cores", NULL, NULL},
      {"OMP_PLACES=threads", "OMP_PROC_BIND=close", NULL},
  };
  for (int k = 0; k < 3; k++) {
    int status = 0;
    char *out = conf_run_child("bind", settings[k], &status);
    int p = -1, c0 = -1, c1 = -1;
    const char *line = strstr(out, "procs=");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && line &&
              sscanf(line, "procs=%d cpu0=%d cpu1=%d", &p, &c0, &c1) == 3,
          "%s: the child failed: status %#x, %s", settings[k][0], status, out);
    CHECK(p == procs, "%s%s%s: omp_get_num_procs() is %d, but the process has %d processors", settings[k][0],
          settings[k][1] ? " " : "", settings[k][1] ? settings[k][1] : "", p, procs);
    if (procs >= 2) CHECK(c0 != c1, "%s: both threads of a bound team ran on processor %d", settings[k][0], c0);
    free(out);
  }
  return conf_end();
}
