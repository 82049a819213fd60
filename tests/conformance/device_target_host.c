/* Target regions of a program built without offload targets (spec 13.8,
 * host fallback): each region runs on the host, with its data environment
 * as mapped. clang lowers `target nowait` and `target ... depend` to a
 * target task (__kmpc_omp_target_task_alloc), which must be a deferred task
 * like any other: it takes part in dependences, taskwait and the region's
 * end barrier. */
#include "check.h"

int main(void) {
  int x = 1;
#pragma omp target map(tofrom : x)
  x += 41;
  CHECK_EQ("a synchronous target region", x, 42);

  int t = 0;
#pragma omp target nowait map(tofrom : t) depend(out : t)
  t = 5;
#pragma omp target nowait map(tofrom : t) depend(inout : t)
  t *= 2;
#pragma omp task depend(inout : t) shared(t)
  t += 1;
#pragma omp taskwait
  CHECK_EQ("target nowait tasks ordered by depend, then a host task", t, 11);

  /* A chain of target tasks from a single, next to host tasks, finished by
     the region's end barrier (no taskwait). */
  long acc = 0, host = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int k = 0; k < 16; k++) {
#pragma omp target nowait map(tofrom : acc) depend(inout : acc) firstprivate(k)
      acc = acc * 3 + k;
#pragma omp task shared(host)
      {
#pragma omp atomic
        host += 1;
      }
    }
  }
  long want = 0;
  for (int k = 0; k < 16; k++) want = want * 3 + k;
  CHECK_EQ("a dependent chain of target nowait regions", acc, want);
  CHECK_EQ("host tasks beside them", host, 16);

  /* target nowait without depend, then taskwait. */
  int flags[8] = {0};
  for (int k = 0; k < 8; k++) {
#pragma omp target nowait map(tofrom : flags[k : 1]) firstprivate(k)
    flags[k] = k + 1;
  }
#pragma omp taskwait
  for (int k = 0; k < 8; k++) CHECK_EQ("target nowait then taskwait", flags[k], k + 1);
  return conf_end();
}
