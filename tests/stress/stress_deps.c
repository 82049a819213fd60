/* Dependences at scale: a 100000-task inout chain on one address (checked
   link by link); a 300 x 300 wavefront grid (task (i, j) has in on its
   left and upper neighbours and inout on itself), checked against the
   sequential result; a fan-out/fan-in of one writer, 20000 readers and one
   writer; chains in every thread's own domain at once. */
#include "stress.h"

enum { CHAIN = 100000, G = 300, FAN = 20000 };

static long grid[G][G];

int main(void) {
  stress_begin("stress_deps", 60);
  long x = 0;
  stress_phase("inout chain of 100000 tasks", CHAIN);
#pragma omp parallel
#pragma omp single
  for (long i = 0; i < CHAIN; i++) {
#pragma omp task depend(inout : x) firstprivate(i) shared(x)
    {
      CHECK(x == i, "chain link %ld saw %ld", i, x);
      x = i + 1;
      if (i % 10000 == 0)
        stress_progress(10000);
    }
  }
  CHECK_EQ("chain end", x, CHAIN);

  stress_phase("300 x 300 wavefront", (long)G * G);
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < G; i++)
    for (int j = 0; j < G; j++) {
      int li = i, lj = j > 0 ? j - 1 : j, ui = i > 0 ? i - 1 : i, uj = j;
#pragma omp task depend(in : grid[li][lj], grid[ui][uj]) depend(inout : grid[i][j]) firstprivate(i, j)
      {
        long left = j > 0 ? grid[i][j - 1] : 0, up = i > 0 ? grid[i - 1][j] : 0;
        grid[i][j] = (left + up + 1) % 1000000007;
        if (j == 0)
          stress_progress(G);
      }
    }
  {
    static long want[G][G];
    for (int i = 0; i < G; i++)
      for (int j = 0; j < G; j++)
        want[i][j] = ((j > 0 ? want[i][j - 1] : 0) + (i > 0 ? want[i - 1][j] : 0) + 1) % 1000000007;
    for (int i = 0; i < G; i++)
      for (int j = 0; j < G; j++)
        CHECK(grid[i][j] == want[i][j], "wavefront (%d,%d) = %ld, want %ld", i, j, grid[i][j], want[i][j]);
  }

  stress_phase("fan-out 20000 readers, fan-in", FAN);
  long v = 0, readers = 0, last = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task depend(out : v) shared(v)
    v = 42;
    for (int i = 0; i < FAN; i++) {
#pragma omp task depend(in : v) shared(v, readers)
      {
        CHECK(v == 42, "reader saw %ld before the writer", v);
        __atomic_fetch_add(&readers, 1, __ATOMIC_RELAXED);
      }
    }
#pragma omp task depend(inout : v) shared(v, readers, last)
    last = __atomic_load_n(&readers, __ATOMIC_RELAXED);
  }
  CHECK_EQ("readers done before the last writer", last, FAN);

  stress_phase("a chain in every thread's domain", 0);
#pragma omp parallel
  {
    long y = 0;
    for (long i = 0; i < 20000; i++) {
#pragma omp task depend(inout : y) firstprivate(i) shared(y)
      {
        CHECK(y == i, "thread chain link %ld saw %ld", i, y);
        y = i + 1;
      }
    }
#pragma omp taskwait
    CHECK(y == 20000, "thread chain ended at %ld", y);
  }
  return stress_end();
}
