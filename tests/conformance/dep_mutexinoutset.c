/* mutexinoutset: tasks of one set never overlap (an atomic count of the
   tasks inside, and a non-atomic read-modify-write split by some work that
   would lose updates if they did); they run after the writer before the set
   and before the reader and the writer after it; sets on two cells exclude
   per cell; a task may be in the sets of two cells at once; a second set
   after a reader starts a new set. */
#include "check.h"

enum { NSET = 16, ROUNDS = 10 };

static int inside_x, inside_y;

static void enter(int *inside, const char *cell) {
  int n = __atomic_add_fetch(inside, 1, __ATOMIC_ACQ_REL);
  CHECK(n == 1, "%d mutexinoutset tasks on %s ran at the same time", n, cell);
}
static void leave(int *inside) { __atomic_sub_fetch(inside, 1, __ATOMIC_ACQ_REL); }

static void slow_add(int *v, int d) {
  int old = *v;
  for (volatile int i = 0; i < 2000; i++)
    ;
  *v = old + d;
}

int main(void) {
#pragma omp parallel
#pragma omp single
  for (int r = 0; r < ROUNDS; r++) {
    int x = 0, y = 0, seen_x = -1, seen_y = -1, seen2 = -1;
#pragma omp task depend(out : x, y) shared(x, y)
    {
      for (volatile int i = 0; i < 20000; i++)
        ;
      x = 100, y = 1000;
    }
    for (int i = 0; i < NSET; i++) {
      int which = i % 3; /* 0: x only, 1: y only, 2: both */
      if (which == 0) {
#pragma omp task depend(mutexinoutset : x) shared(x)
        {
          enter(&inside_x, "x");
          CHECK(x >= 100, "round %d: a mutexinoutset task ran before the writer (x = %d)", r, x);
          slow_add(&x, 1);
          leave(&inside_x);
        }
      } else if (which == 1) {
#pragma omp task depend(mutexinoutset : y) shared(y)
        {
          enter(&inside_y, "y");
          slow_add(&y, 1);
          leave(&inside_y);
        }
      } else {
#pragma omp task depend(mutexinoutset : x, y) shared(x, y)
        {
          enter(&inside_x, "x");
          enter(&inside_y, "y");
          slow_add(&x, 1);
          slow_add(&y, 1);
          leave(&inside_y);
          leave(&inside_x);
        }
      }
    }
#pragma omp task depend(in : x) shared(x, seen_x)
    seen_x = x;
#pragma omp task depend(in : y) shared(y, seen_y)
    seen_y = y;
    /* a second set on x, after the reader */
    for (int i = 0; i < 4; i++) {
#pragma omp task depend(mutexinoutset : x) shared(x, seen_x)
      {
        enter(&inside_x, "x");
        CHECK(seen_x >= 0, "round %d: second set ran before the reader between the sets", r);
        slow_add(&x, 10);
        leave(&inside_x);
      }
    }
#pragma omp task depend(inout : x) shared(x, seen2)
    seen2 = x;
#pragma omp taskwait
    /* x: tasks 0,3,..,15 (6) and 2,5,..,14 (5); y: 1,4,..,13 (5) and the 5 of both */
    CHECK_EQ("x seen by the reader after the first set", seen_x, 100 + 11);
    CHECK_EQ("y seen by the reader after the set", seen_y, 1000 + 10);
    CHECK_EQ("x seen by the writer after the second set", seen2, 100 + 11 + 40);
  }
  return conf_end();
}
