/* Nestable locks: the owner may set the lock again (recursive acquire);
   omp_test_nest_lock returns the new nesting count to the owner and 0 to any
   other thread; the lock is free only after as many unsets as sets. */
#include "check.h"

static omp_nest_lock_t nl;
static long counter;

static void recurse(int depth) {
  omp_set_nest_lock(&nl);
  counter++;
  if (depth > 0)
    recurse(depth - 1);
  omp_unset_nest_lock(&nl);
}

int main(void) {
  omp_init_nest_lock(&nl);
  CHECK_EQ("omp_test_nest_lock on a free lock", omp_test_nest_lock(&nl), 1);
  CHECK_EQ("omp_test_nest_lock by the owner (2nd)", omp_test_nest_lock(&nl), 2);
  omp_set_nest_lock(&nl);
  CHECK_EQ("omp_test_nest_lock by the owner (4th)", omp_test_nest_lock(&nl), 4);

  int other_got = -1;
#pragma omp parallel num_threads(2)
  {
    /* The owner is the initial task; thread 1's implicit task is another. */
    if (omp_get_thread_num() == 1)
      other_got = omp_test_nest_lock(&nl);
  }
  CHECK_EQ("omp_test_nest_lock while another task holds it", other_got, 0);
  for (int i = 0; i < 4; i++)
    omp_unset_nest_lock(&nl);

  /* Now free: any thread can take it. */
  int got = -1;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1) {
      got = omp_test_nest_lock(&nl);
      if (got)
        omp_unset_nest_lock(&nl);
    }
  }
  CHECK_EQ("omp_test_nest_lock after four unsets", got, 1);

  /* Contention with recursion: each acquire nests 5 deep. */
#pragma omp parallel num_threads(6)
  for (int i = 0; i < 500; i++)
    recurse(4);
  CHECK_EQ("nest-lock counter", counter, 6L * 500 * 5);

  /* The nesting count seen by test while holding through set. */
  int counts_ok = 1;
#pragma omp parallel num_threads(4) reduction(&& : counts_ok)
  {
    for (int i = 0; i < 200; i++) {
      omp_set_nest_lock(&nl);
      int c2 = omp_test_nest_lock(&nl);
      int c3 = omp_test_nest_lock(&nl);
      counts_ok = counts_ok && c2 == 2 && c3 == 3;
      omp_unset_nest_lock(&nl);
      omp_unset_nest_lock(&nl);
      omp_unset_nest_lock(&nl);
    }
  }
  CHECK(counts_ok, "omp_test_nest_lock by the owner did not return 2 then 3");
  omp_destroy_nest_lock(&nl);
  return conf_end();
}
