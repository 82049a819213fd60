/* A kernel thread the program starts from inside a parallel region (an I/O
   or progress thread, a library's own pool) starts with the processor mask
   of the thread that created it. With no binding asked for, OpenMP threads
   are not bound, so such a child may run on every processor the process
   has, as under libomp and libgomp; with binding, it inherits its
   creator's place. Each thread of a team of 2, and of the nested teams of
   2 its threads open, starts three children: one with no attribute, one
   with an attribute of its own (a stack size), and one whose attribute
   names a single processor, which that child must get. A bound creating
   thread's own mask must be the same after the calls as before. */
#include <pthread.h>
#include <sched.h>

#include "check.h"

static cpu_set_t g_process; /* the process's mask, before any OpenMP call */
static int g_first_cpu = -1;

typedef struct {
  cpu_set_t mask;
  int ok;
} Child;

static void *child_main(void *arg) {
  Child *c = arg;
  c->ok = sched_getaffinity(0, sizeof c->mask, &c->mask) == 0;
  return NULL;
}

static void start_and_join(Child *c, const pthread_attr_t *attr) {
  pthread_t t;
  int rc = pthread_create(&t, attr, child_main, c);
  CHECK(rc == 0, "pthread_create: %d", rc);
  if (rc == 0) pthread_join(t, NULL);
  CHECK(c->ok, "the child could not read its mask");
}

static void check_children(const char *who) {
  cpu_set_t before, after;
  CHECK(sched_getaffinity(0, sizeof before, &before) == 0, "sched_getaffinity");
  int bound = omp_get_place_num() >= 0;
  /* What a child with no affinity of its own must get. */
  const cpu_set_t *expect = bound ? &before : &g_process;

  Child plain, sized, pinned;
  start_and_join(&plain, NULL);
  CHECK(CPU_EQUAL(&plain.mask, expect), "%s (%s): a child with no attribute got %d processors, expected %d", who,
        bound ? "bound" : "unbound", CPU_COUNT(&plain.mask), CPU_COUNT(expect));

  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 256 * 1024);
  start_and_join(&sized, &a);
  CHECK(CPU_EQUAL(&sized.mask, expect), "%s (%s): a child with a stack size got %d processors, expected %d", who,
        bound ? "bound" : "unbound", CPU_COUNT(&sized.mask), CPU_COUNT(expect));

  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(g_first_cpu, &one);
  pthread_attr_setaffinity_np(&a, sizeof one, &one);
  start_and_join(&pinned, &a);
  CHECK(CPU_EQUAL(&pinned.mask, &one), "%s: a child whose attribute names processor %d got %d processors", who,
        g_first_cpu, CPU_COUNT(&pinned.mask));
  pthread_attr_destroy(&a);

  /* A bound thread keeps its place (an unbound one may be moved). */
  CHECK(sched_getaffinity(0, sizeof after, &after) == 0, "sched_getaffinity");
  if (bound)
    CHECK(CPU_EQUAL(&before, &after), "%s: its own mask changed from %d to %d processors across pthread_create", who,
          CPU_COUNT(&before), CPU_COUNT(&after));
}

int main(void) {
  CHECK(sched_getaffinity(0, sizeof g_process, &g_process) == 0, "sched_getaffinity");
  for (int c = 0; c < CPU_SETSIZE && g_first_cpu < 0; c++)
    if (CPU_ISSET(c, &g_process)) g_first_cpu = c;
  omp_set_max_active_levels(2);
  for (int round = 0; round < 3; round++) {
#pragma omp parallel num_threads(2)
    {
      check_children("outer thread");
#pragma omp parallel num_threads(2)
      check_children("nested member");
      /* A task, which any thread of the team may run. */
#pragma omp single
#pragma omp task
      check_children("task");
    }
  }
  return conf_end();
}
