/* Simple locks: omp_set_lock/omp_unset_lock give mutual exclusion;
   omp_test_lock returns nonzero and takes the lock only when it is free, and
   returns 0 while another thread holds it; omp_init_lock_with_hint works with
   each hint; locks can be destroyed and initialised again. */
#include "check.h"

#define ITERS 3000

int main(void) {
  omp_lock_t lock;
  omp_init_lock(&lock);
  long counter = 0;
  int inside = 0, overlap = 0;
#pragma omp parallel num_threads(6)
  {
    for (int i = 0; i < ITERS; i++) {
      omp_set_lock(&lock);
      if (inside++)
        overlap++;
      counter++;
      inside--;
      omp_unset_lock(&lock);
    }
  }
  CHECK_EQ("lock-protected counter", counter, 6L * ITERS);
  CHECK_EQ("threads found inside the lock", overlap, 0);

  /* test_lock: thread 0 holds the lock across a barrier; the others must
     fail to take it; after thread 0 releases, exactly one succeeds. */
  int got_while_held = 0, winners = 0;
#pragma omp parallel num_threads(4)
  {
    if (omp_get_thread_num() == 0)
      CHECK(omp_test_lock(&lock) != 0, "omp_test_lock on a free lock returned 0");
#pragma omp barrier
    if (omp_get_thread_num() != 0 && omp_test_lock(&lock))
      __atomic_fetch_add(&got_while_held, 1, __ATOMIC_RELAXED);
#pragma omp barrier
    if (omp_get_thread_num() == 0)
      omp_unset_lock(&lock);
#pragma omp barrier
    int won = omp_get_thread_num() != 0 && omp_test_lock(&lock);
    if (won)
      __atomic_fetch_add(&winners, 1, __ATOMIC_RELAXED);
#pragma omp barrier
    if (won)
      omp_unset_lock(&lock); /* the owner releases it */
  }
  CHECK_EQ("omp_test_lock successes while another thread held the lock", got_while_held, 0);
  CHECK_EQ("omp_test_lock winners on a released lock", winners, 1);
  CHECK(omp_test_lock(&lock) != 0, "omp_test_lock after the winner released it returned 0");
  omp_unset_lock(&lock);
  omp_destroy_lock(&lock);

  static const omp_sync_hint_t hints[] = {
      omp_sync_hint_none, omp_sync_hint_uncontended, omp_sync_hint_contended,
      omp_sync_hint_nonspeculative, omp_sync_hint_speculative,
      omp_sync_hint_contended | omp_sync_hint_speculative};
  for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
    omp_lock_t hl;
    omp_init_lock_with_hint(&hl, hints[h]);
    long c = 0;
#pragma omp parallel num_threads(4)
    for (int i = 0; i < 1000; i++) {
      omp_set_lock(&hl);
      c++;
      omp_unset_lock(&hl);
    }
    CHECK(c == 4000, "lock with hint %d: counter %ld, want 4000", (int)hints[h], c);
    CHECK(omp_test_lock(&hl) != 0, "lock with hint %d: omp_test_lock on a free lock failed",
          (int)hints[h]);
    omp_unset_lock(&hl);
    omp_destroy_lock(&hl);
  }
  return conf_end();
}
