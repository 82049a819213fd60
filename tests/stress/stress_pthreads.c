/* Program threads using OpenMP at once: several POSIX threads each open
   parallel regions (a loop with a reduction, tasks from a single, a nested
   region), while the main thread waits for them in pthread_join, outside
   the runtime. The main thread calls the runtime only afterwards, so the
   first thread to call it — the runtime's initial thread — is one of
   them, and it exits before the others are done. A team of one of these
   threads must never wait for a worker whose kernel thread is in user code
   or gone. Two waves, then the main thread's own region. */
#include "stress.h"

enum { NTHREADS = 4, REPS = 40 };

static int wave_bad[NTHREADS];

static void *user_thread(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int rep = 0; rep < REPS; rep++) {
    long s = 0;
#pragma omp parallel for reduction(+ : s) num_threads(2)
    for (int i = 0; i < 10000; i++) s += i + t;
    if (s != 49995000L + 10000L * t) wave_bad[t]++;
    int created = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int k = 0; k < 20; k++) {
#pragma omp task shared(created)
      {
#pragma omp atomic
        created++;
      }
    }
    if (created != 20) wave_bad[t] += 100;
    int inner = 0;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : inner)
    {
#pragma omp parallel num_threads(2) reduction(+ : inner)
      inner += 1;
    }
    if (inner != 4) wave_bad[t] += 10000;
    stress_progress(1);
  }
  return NULL;
}

static void wave(const char *name) {
  stress_phase(name, NTHREADS * REPS);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    wave_bad[t] = 0;
    if (pthread_create(&th[t], NULL, user_thread, (void *)(intptr_t)t) != 0) {
      printf("FAIL stress_pthreads: cannot create a thread\n");
      exit(1);
    }
  }
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < NTHREADS; t++) CHECK(wave_bad[t] == 0, "%s: thread %d: wrong results (code %d)", name, t, wave_bad[t]);
}

int main(void) {
  stress_begin("stress_pthreads", 60);
  wave("4 threads, the first of which starts the runtime");
  wave("4 more threads, after that one has gone");
  stress_phase("the main thread's region", 1);
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 1000; i++) s += i;
  CHECK(s == 499500, "the main thread's region: %ld", s);
  return stress_end();
}
