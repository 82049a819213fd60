/* POSIX waits among OpenMP threads and plain threads: pthread_barrier_wait,
   sem_wait and read on pipes keep their POSIX contract under any runtime
   (Bobbin makes them let a worker's other fibers run first:
   ult/block_linux.cpp).
   - plain POSIX threads: 4 threads x 2000 rounds of one barrier, exactly
     one PTHREAD_BARRIER_SERIAL_THREAD per round, and no thread enters round
     r+1 before every thread has finished round r; a barrier of 1; init with
     count 0 is EINVAL; destroy right after the last wait returns;
   - a process-shared barrier in shared memory between a parent and a
     forked child;
   - nested teams of 4 under an outer team of 2 (more threads than a small
     machine's cores): a POSIX barrier per team, a semaphore ring and a
     pipe ring, 50 rounds each, every member's round numbers checked;
   - read on an empty non-blocking pipe in a team still fails with EAGAIN,
     and sem_wait's success leaves errno alone. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { PT = 4, PT_ROUNDS = 2000, INNER = 4, ROUNDS = 50 };

static pthread_barrier_t g_bar;
static int g_phase[PT];
static int g_serial[PT_ROUNDS];

static void *pt_body(void *arg) {
  int me = (int)(long)arg;
  for (int r = 0; r < PT_ROUNDS; r++) {
    __atomic_store_n(&g_phase[me], r, __ATOMIC_RELAXED);
    int rc = pthread_barrier_wait(&g_bar);
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
      __atomic_fetch_add(&g_serial[r], 1, __ATOMIC_RELAXED);
    else
      CHECK(rc == 0, "pthread_barrier_wait returned %d", rc);
    for (int i = 0; i < PT; i++) {
      int p = __atomic_load_n(&g_phase[i], __ATOMIC_RELAXED);
      CHECK(p >= r, "round %d: thread %d still in round %d after the barrier", r, i, p);
    }
    /* nobody may enter round r+1's store before everyone checked round r */
    pthread_barrier_wait(&g_bar);
  }
  return NULL;
}

static void plain_threads(void) {
  pthread_barrier_t b;
  CHECK(pthread_barrier_init(&b, NULL, 0) == EINVAL, "a barrier of 0 threads was accepted");
  CHECK(pthread_barrier_init(&b, NULL, 1) == 0, "a barrier of 1 thread was refused");
  CHECK(pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD, "the only thread of a barrier is not serial");
  CHECK(pthread_barrier_destroy(&b) == 0, "destroy of an idle barrier failed");

  CHECK(pthread_barrier_init(&g_bar, NULL, PT) == 0, "pthread_barrier_init failed");
  pthread_t t[PT];
  for (long i = 0; i < PT; i++)
    pthread_create(&t[i], NULL, pt_body, (void *)i);
  for (int i = 0; i < PT; i++)
    pthread_join(t[i], NULL);
  for (int r = 0; r < PT_ROUNDS; r++)
    CHECK(g_serial[r] == 1, "round %d: %d serial threads, want 1", r, g_serial[r]);
  CHECK(pthread_barrier_destroy(&g_bar) == 0, "destroy after the last round failed");
}

static void process_shared(void) {
  pthread_barrier_t *b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(b != MAP_FAILED, "mmap failed");
  if (b == MAP_FAILED)
    return;
  pthread_barrierattr_t a;
  pthread_barrierattr_init(&a);
  pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  CHECK(pthread_barrier_init(b, &a, 2) == 0, "process-shared pthread_barrier_init failed");
  pthread_barrierattr_destroy(&a);
  pid_t pid = fork();
  if (pid == 0) {
    for (int r = 0; r < 100; r++)
      pthread_barrier_wait(b);
    _exit(0);
  }
  for (int r = 0; r < 100; r++)
    pthread_barrier_wait(b);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child ended with status %#x", status);
  pthread_barrier_destroy(b);
  munmap(b, sizeof *b);
}

typedef struct {
  pthread_barrier_t bar;
  sem_t sems[INNER];
  int pipes[INNER][2];
  int seen[INNER];
} team_t;

static void nested_teams(void) {
  int bad = 0;
  omp_set_max_active_levels(2);
  omp_set_dynamic(0);
#pragma omp parallel num_threads(2) reduction(| : bad)
  {
    team_t *s = calloc(1, sizeof *s);
    pthread_barrier_init(&s->bar, NULL, INNER);
    for (int i = 0; i < INNER; i++) {
      sem_init(&s->sems[i], 0, 0);
      if (pipe(s->pipes[i]) != 0)
        bad = 1;
    }
#pragma omp parallel num_threads(INNER) shared(s) reduction(| : bad)
    {
      int me = omp_get_thread_num();
      if (omp_get_num_threads() != INNER)
        bad = 1;
#pragma omp barrier
      for (int r = 1; r <= ROUNDS && !bad; r++) {
        /* POSIX barrier: everyone's round r is seen after it */
        __atomic_store_n(&s->seen[me], r, __ATOMIC_RELAXED);
        pthread_barrier_wait(&s->bar);
        for (int i = 0; i < INNER; i++)
          if (__atomic_load_n(&s->seen[i], __ATOMIC_RELAXED) < r)
            bad = 1;
        pthread_barrier_wait(&s->bar);
        /* semaphore ring: 0 starts, each passes it on */
        if (me == 0) {
          sem_post(&s->sems[1]);
          errno = 4321;
          while (sem_wait(&s->sems[0]) != 0)
            if (errno != EINTR)
              bad = 1;
          if (errno != 4321)
            bad |= 2;
        } else {
          while (sem_wait(&s->sems[me]) != 0)
            if (errno != EINTR)
              bad = 1;
          sem_post(&s->sems[(me + 1) % INNER]);
        }
        /* pipe ring carrying the round number */
        char c = (char)r, got = 0;
        if (me == 0) {
          if (write(s->pipes[1][1], &c, 1) != 1 || read(s->pipes[0][0], &got, 1) != 1 || got != c)
            bad = 1;
        } else {
          if (read(s->pipes[me][0], &got, 1) != 1 || got != c || write(s->pipes[(me + 1) % INNER][1], &got, 1) != 1)
            bad = 1;
        }
      }
    }
    /* a non-blocking pipe says EAGAIN at once, whatever waits beside it */
    int nb[2];
    if (pipe2(nb, O_NONBLOCK) == 0) {
      char c;
      errno = 0;
      if (read(nb[0], &c, 1) != -1 || errno != EAGAIN)
        bad |= 4;
      close(nb[0]);
      close(nb[1]);
    }
    pthread_barrier_destroy(&s->bar);
    for (int i = 0; i < INNER; i++) {
      sem_destroy(&s->sems[i]);
      close(s->pipes[i][0]);
      close(s->pipes[i][1]);
    }
    free(s);
  }
  CHECK(!(bad & 1), "a member missed a round or read a wrong value in a nested team");
  CHECK(!(bad & 2), "a successful sem_wait changed errno");
  CHECK(!(bad & 4), "read on an empty non-blocking pipe did not fail with EAGAIN");
}

int main(void) {
  plain_threads();
  process_shared();
  nested_teams();
  return conf_end();
}
