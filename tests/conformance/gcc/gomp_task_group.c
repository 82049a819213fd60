/* taskgroup waits for every descendant created in it (taskwait only for
   children); taskgroups nest; taskyield is a scheduling point that loses no
   task; detach: a task completes only once its event is fulfilled, so a
   taskwait after it waits for the fulfilment; priority clauses and
   omp_get_max_task_priority (OMP_MAX_TASK_PRIORITY=5 in CONF_EXPECT_PRIORITY). */
#include "check.h"

static void spin_a_little(void) {
  for (volatile int i = 0; i < 50000; i++)
    ;
}

int main(void) {
#pragma omp parallel num_threads(4)
#pragma omp single
  {
    int grandchildren = 0, children = 0;
#pragma omp taskgroup
    {
      for (int i = 0; i < 10; i++) {
#pragma omp task shared(grandchildren, children)
        {
          for (int j = 0; j < 10; j++) {
#pragma omp task shared(grandchildren)
            {
              spin_a_little();
              __atomic_fetch_add(&grandchildren, 1, __ATOMIC_RELAXED);
            }
          }
          __atomic_fetch_add(&children, 1, __ATOMIC_RELAXED);
        }
      }
    }
    CHECK(children == 10 && grandchildren == 100, "after the taskgroup: %d children, %d grandchildren",
          children, grandchildren);

    /* nested taskgroups */
    int inner = 0, outer = 0;
#pragma omp taskgroup
    {
#pragma omp task shared(outer)
      {
        spin_a_little();
        __atomic_fetch_add(&outer, 1, __ATOMIC_RELAXED);
      }
#pragma omp taskgroup
      {
        for (int i = 0; i < 5; i++) {
#pragma omp task shared(inner)
          __atomic_fetch_add(&inner, 1, __ATOMIC_RELAXED);
        }
      }
      CHECK_EQ("inner taskgroup's tasks done at its end", inner, 5);
    }
    CHECK_EQ("outer taskgroup's task done at its end", outer, 1);

    /* taskyield inside tasks */
    int yielded = 0;
    for (int i = 0; i < 50; i++) {
#pragma omp task shared(yielded)
      {
#pragma omp taskyield
        __atomic_fetch_add(&yielded, 1, __ATOMIC_RELAXED);
      }
    }
#pragma omp taskwait
    CHECK_EQ("tasks that yielded", yielded, 50);

    /* detach: the taskwait returns only after the fulfilment */
    omp_event_handle_t ev;
    int body_done = 0, fulfilled = 0;
#pragma omp task detach(ev) shared(body_done)
    body_done = 1;
#pragma omp task shared(fulfilled) firstprivate(ev)
    {
      spin_a_little();
      __atomic_store_n(&fulfilled, 1, __ATOMIC_RELEASE);
      omp_fulfill_event(ev);
    }
#pragma omp taskwait
    CHECK(body_done == 1 && __atomic_load_n(&fulfilled, __ATOMIC_ACQUIRE) == 1,
          "taskwait returned before the detached task's event was fulfilled (body %d, fulfilled %d)", body_done,
          fulfilled);

    /* priorities: all tasks run whatever their priority */
    int prio_ran = 0;
    for (int i = 0; i < 40; i++) {
#pragma omp task priority(i % 6) shared(prio_ran)
      __atomic_fetch_add(&prio_ran, 1, __ATOMIC_RELAXED);
    }
#pragma omp taskwait
    CHECK_EQ("tasks with priorities", prio_ran, 40);
  }
  long want = conf_env_long("CONF_EXPECT_PRIORITY", -1);
  if (want >= 0)
    CHECK_EQ("omp_get_max_task_priority", omp_get_max_task_priority(), want);
  return conf_end();
}
