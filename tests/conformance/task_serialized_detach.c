// LIBOMP14-DEFECT: after a detached task with dependences in a serial team, the next serialized parallel region stops on an internal assertion (kmp_runtime.cpp: serial_team->t.t_task_team[...] == NULL).
/* Where one thread runs every task at its creation (outside any parallel
   region, in parallel if(0), in a team of one, in an inactive nested
   region), dependences on a detached task whose body has run but whose
   event is not fulfilled still order what follows: the task is not
   complete, so a task that depends on it, and every later task on the same
   data, waits for the event; a task on other data runs at once. */
#include "check.h"
#include "serial_contexts.h"

static void scenario(const char *where) {
  int y = 0, z = 0, fulfilled = 0, seen = -1, after = -1, other = -1;
  omp_event_handle_t ev = (omp_event_handle_t)0;
#pragma omp task detach(ev) depend(out : y) shared(y)
  y = 1;
#pragma omp task depend(in : y) shared(y, seen, fulfilled)
  seen = __atomic_load_n(&fulfilled, __ATOMIC_ACQUIRE) * 10 + y;
#pragma omp task depend(inout : y) shared(seen, after)
  after = seen;
#pragma omp task depend(out : z) shared(z, other)
  other = ++z;
  CHECK(seen == -1, "%s: a task depending on a detached task ran before its event was fulfilled (%d)", where, seen);
  CHECK(after == -1, "%s: a later task on the same data ran before the event was fulfilled", where);
  __atomic_store_n(&fulfilled, 1, __ATOMIC_RELEASE);
  omp_fulfill_event(ev);
#pragma omp taskwait
  CHECK(seen == 11, "%s: the dependent task saw %d, want 11 (after the event, after the body)", where, seen);
  CHECK(after == 11, "%s: a later task on the same data saw %d, want 11 (after the dependent one)", where, after);
  CHECK(other == 1, "%s: the task on other data ran %d times, want 1", where, other);
  /* the same, then dependences only on complete tasks: they run at once */
  int a = 0, order = 0, first = -1, second = -1;
  (void)a;
#pragma omp task depend(out : a) shared(a, order, first)
  first = order++;
#pragma omp task depend(in : a) shared(a, order, second)
  second = order++;
#pragma omp taskwait depend(in : a)
  CHECK(first == 0 && second == 1, "%s: tasks on complete predecessors ran in order %d, %d (want 0, 1)", where,
        first, second);
}

int main(void) {
  conf_in_serial_contexts(scenario);
  return conf_end();
}
