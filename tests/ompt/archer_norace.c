/* Race-free: every shared access below is ordered by a construct Archer
   must learn of through OMPT (dependences, taskwait, taskgroup, critical,
   a lock, barriers, a reduction, atomics, a nested region's join). Under
   Archer (OMP_TOOL_LIBRARIES=libarcher.so, a ThreadSanitizer build) it must
   report nothing; each result is checked. */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int x = 0, y = 0, z = 0, s = 0, u = 0, t = 0;
  long r = 0;
  omp_lock_t l;
  omp_init_lock(&l);
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    {
#pragma omp task depend(out : x) shared(x)
      x++;
#pragma omp task depend(inout : x) shared(x)
      x++;
#pragma omp task shared(y)
      y++;
#pragma omp taskwait
      y++;
#pragma omp taskgroup
      {
#pragma omp task shared(z)
        z++;
      }
      z++;
    }
#pragma omp critical
    s++;
    omp_set_lock(&l);
    u++;
    omp_unset_lock(&l);
#pragma omp barrier
#pragma omp master
    s++;
#pragma omp barrier
#pragma omp for reduction(+ : r)
    for (int i = 0; i < 100; i++) r += i;
#pragma omp parallel num_threads(2) shared(t)
    {
#pragma omp atomic
      t++;
    }
  }
  omp_destroy_lock(&l);
  int ok = x == 2 && y == 2 && z == 2 && s == 3 && u == 2 && r == 4950 && t == 4;
  printf("x=%d y=%d z=%d s=%d u=%d r=%ld t=%d %s\n", x, y, z, s, u, r, t, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
