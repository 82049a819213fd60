/* A thread per request: one program thread after another (CHURN of them,
   each started when the previous one has ended) opens a parallel region of
   2 whose tasks its members share, while the main thread's team of 2 keeps
   making and stealing tasks all along. Program threads get a worker
   descriptor each, with an id that only grows; a thief's steal-policy
   state (victim history, random generator) must still never be shared
   with a thread alive at the same time: the 4095th such thread used to get
   pool worker 1's slot (a race that ThreadSanitizer reports, suite
   tsan-stress). Checks every request's and every round's task count.
   Stock libomp 14 fails it (a bus error in a barrier, or an assertion in
   kmp_alloc.cpp, within the first requests). */
#include "stress.h"

enum { CHURN = 4400, TASKS = 8 };

static int stop, bad_requests;

static void *request(void *arg) {
  (void)arg;
  int done = 0;
#pragma omp parallel num_threads(2) shared(done)
#pragma omp single
  for (int k = 0; k < TASKS; k++) {
#pragma omp task shared(done)
    {
#pragma omp atomic
      done++;
    }
  }
  if (done != TASKS) __atomic_fetch_add(&bad_requests, 1, __ATOMIC_RELAXED);
  stress_progress(1);
  return NULL;
}

static void *churn(void *arg) {
  (void)arg;
  for (int i = 0; i < CHURN; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, request, NULL) != 0) {
      printf("FAIL stress_thread_churn: cannot create thread %d\n", i);
      exit(1);
    }
    pthread_join(t, NULL);
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  return NULL;
}

int main(void) {
  stress_begin("stress_thread_churn", 120);
  stress_phase("program threads one after another, beside a team stealing", CHURN);
  pthread_t churner;
  long rounds = 0, bad_rounds = 0;
  int go = 1;
  // Started by the main thread, not by a member of its team: a thread
  // started on a pool worker inherits the worker's processor mask (one
  // processor), and so would every request thread (7.8 s instead of 1.3).
  if (pthread_create(&churner, NULL, churn, NULL) != 0) {
    printf("FAIL stress_thread_churn: cannot create the churning thread\n");
    exit(1);
  }
  // Each round ends at a barrier after which every member reads whether to
  // go on.
#pragma omp parallel num_threads(2) shared(go) reduction(+ : rounds, bad_rounds)
  {
    for (;;) {
      int done = 0, made = 0;
#pragma omp for schedule(static, 1)
      for (int k = 0; k < 2 * TASKS; k++) {
        made++;
#pragma omp task shared(done)
        {
#pragma omp atomic
          done++;
        }
      }
#pragma omp taskwait
      // Each thread waits for its own children only: counted apart.
      if (done != made) bad_rounds++;
      rounds++;
#pragma omp single
      go = !__atomic_load_n(&stop, __ATOMIC_ACQUIRE);
      if (!go) break;
#pragma omp barrier
    }
  }
  pthread_join(churner, NULL);
  CHECK(bad_requests == 0, "%d of %d requests lost tasks", bad_requests, CHURN);
  CHECK(bad_rounds == 0, "%ld of %ld rounds of the main team lost tasks", bad_rounds, rounds);
  printf("%d program threads, %ld rounds of the main team\n", CHURN, rounds);
  return stress_end();
}
