// LIBOMP14-DEFECT: libomp 14 fails an assertion (kmp_tasking.cpp:1571, td_last_tied) on the untied undeferred task of shape 5.
/* Undeferred tasks (if(0)) whose descendants outlive them: deferred children
   created without a wait, through a chain of undeferred tasks, after a
   taskwait or taskgroup inside, after a nested region inside, tied and
   untied. The children must all run, see their firstprivate values, and be
   waited for by the enclosing taskgroup; the creator's frame is overwritten
   (scribble) while they are still queued, so a runtime that kept an
   undeferred task in a frame that is gone is caught here. */
#include <string.h>

#include "check.h"

enum { ROUNDS = 100, CHILDREN = 4 };


static int done_children;
static long sum_values;
static int frame_hits;

/* Fills a stretch of stack where the undeferred task's frame was, waits
   (bounded) until `want` children have run on the other threads, and
   counts the bytes that changed meanwhile: a child that still pointed into
   the dead frame would have written there. */
static void __attribute__((noinline)) scribble(int want) {
  volatile unsigned char junk[4096];
  memset((unsigned char *)junk, 0xa5, sizeof junk);
  double end = omp_get_wtime() + 2.0;
  while (__atomic_load_n(&done_children, __ATOMIC_ACQUIRE) < want && omp_get_wtime() < end)
    ;
  for (size_t i = 0; i < sizeof junk; i++)
    if (junk[i] != 0xa5)
      frame_hits++;
}

static void child_work(int v) {
  for (volatile int i = 0; i < 2000; i++)
    ;
  __atomic_fetch_add(&sum_values, v, __ATOMIC_RELAXED);
  __atomic_fetch_add(&done_children, 1, __ATOMIC_RELAXED);
}

static void spawn_children(int base) {
  for (int c = 0; c < CHILDREN; c++) {
    int v = base + c;
#pragma omp task firstprivate(v)
    child_work(v);
  }
}

static long expected_sum(int rounds, int per_round_base_step) {
  long s = 0;
  for (int r = 0; r < rounds; r++)
    for (int c = 0; c < CHILDREN; c++)
      s += (long)r * per_round_base_step + c;
  return s;
}

int main(void) {
  omp_set_max_active_levels(2);
  int shapes = 0;
#pragma omp parallel num_threads(4) shared(shapes)
#pragma omp single
  for (int shape = 0; shape < 7; shape++) {
    __atomic_store_n(&done_children, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&sum_values, 0, __ATOMIC_RELAXED);
    int waited_inside = 1;
#pragma omp taskgroup
    for (int r = 0; r < ROUNDS; r++) {
      int base = r * 10;
      switch (shape) {
      case 0: /* children outlive the undeferred task */
#pragma omp task if(0) firstprivate(base)
        spawn_children(base);
        break;
      case 1: /* through a chain of three undeferred tasks */
#pragma omp task if(0) firstprivate(base)
        {
#pragma omp task if(0) firstprivate(base)
          {
#pragma omp task if(0) firstprivate(base)
            spawn_children(base);
          }
        }
        break;
      case 2: /* a taskwait inside: the children are done at its end */
#pragma omp task if(0) firstprivate(base) shared(waited_inside)
        {
          int before = __atomic_load_n(&done_children, __ATOMIC_RELAXED);
          spawn_children(base);
#pragma omp taskwait
          if (__atomic_load_n(&done_children, __ATOMIC_RELAXED) < before + CHILDREN)
            waited_inside = 0;
        }
        break;
      case 3: /* a taskgroup inside, then children that outlive the task */
#pragma omp task if(0) firstprivate(base) shared(waited_inside)
        {
          int before = __atomic_load_n(&done_children, __ATOMIC_RELAXED);
#pragma omp taskgroup
          spawn_children(base);
          if (__atomic_load_n(&done_children, __ATOMIC_RELAXED) < before + CHILDREN)
            waited_inside = 0;
          spawn_children(base + 1000);
        }
        break;
      case 4: /* a nested region inside, then children */
#pragma omp task if(0) firstprivate(base)
        {
          int inner = 0;
#pragma omp parallel num_threads(2) reduction(+ : inner)
          inner += 1;
          if (inner >= 1)
            spawn_children(base);
        }
        break;
      case 5: /* untied */
#pragma omp task if(0) untied firstprivate(base)
        spawn_children(base);
        break;
      case 6: /* an undeferred child inside an undeferred task, both leaves,
                 then a deferred grandchild from the outer one */
#pragma omp task if(0) firstprivate(base)
        {
#pragma omp task if(0)
          { scribble(0); }
          spawn_children(base);
        }
        break;
      }
      /* the undeferred task's frame is reused while its children run */
      scribble((r + 1) * (shape == 3 ? 2 * CHILDREN : CHILDREN));
    }
    int rounds_children = shape == 3 ? 2 * CHILDREN : CHILDREN;
    CHECK(__atomic_load_n(&done_children, __ATOMIC_RELAXED) == ROUNDS * rounds_children,
          "shape %d: %d children ran, want %d", shape, done_children, ROUNDS * rounds_children);
    long want = expected_sum(ROUNDS, 10);
    if (shape == 3) /* and the second batch, values shifted by 1000 */
      want = 2 * expected_sum(ROUNDS, 10) + (long)ROUNDS * CHILDREN * 1000;
    CHECK(__atomic_load_n(&sum_values, __ATOMIC_RELAXED) == want, "shape %d: children saw values summing to %ld, want %ld",
          shape, sum_values, want);
    CHECK(waited_inside, "shape %d: a wait inside the undeferred task ended before its children", shape);
    CHECK(frame_hits == 0, "shape %d: %d bytes of a finished undeferred task's frame were written by its children",
          shape, frame_hits);
    frame_hits = 0;
    shapes++;
  }
  CHECK_EQ("shapes run", shapes, 7);
  return conf_end();
}
