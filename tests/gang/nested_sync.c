/* Nested parallel regions whose inner teams synchronise outside the runtime:
   a user-written spin barrier (atomics only), pthread_barrier_wait, or
   blocking pipe reads between members. On a runtime that multiplexes
   OpenMP threads on fewer workers without gang scheduling, a member that
   waits this way keeps its worker, and the member it waits for never runs.

   usage: nested_sync SYNC SHAPE
     SYNC:  spin | pthread | pipe
     SHAPE: two    (the outer team's threads all open inner teams at once)
            many   (each outer thread opens 100 inner regions in a row)
            three  (three nesting levels, syncing at the two inner ones)
   The outer team has omp_get_max_threads() threads (OMP_NUM_THREADS); each
   inner team asks for 8 and syncs however many it gets: run with
   OMP_DYNAMIC=true, which lets the runtime give fewer threads than asked. */
#include <errno.h>
#include <string.h>

#include "gang.h"

enum { SPIN, PTHREAD, PIPE };
static int g_sync;
static long g_rounds_done;

/* One round of the chosen synchronisation among the n members of the
   innermost team; `shared` is per team. */
typedef struct {
  spin_barrier spin;
  pthread_barrier_t pb;
  int pipes[16][2];
} team_sync;

static void team_sync_init(team_sync* s, int n) {
  memset(&s->spin, 0, sizeof s->spin);
  pthread_barrier_init(&s->pb, NULL, (unsigned)n);
  for (int i = 0; i < n; i++)
    if (pipe(s->pipes[i]) != 0) GANG_FAIL("pipe: %s", strerror(errno));
}

static void team_sync_destroy(team_sync* s, int n) {
  pthread_barrier_destroy(&s->pb);
  for (int i = 0; i < n; i++) {
    close(s->pipes[i][0]);
    close(s->pipes[i][1]);
  }
}

/* Member t of n: a ring of blocking pipe reads (t passes a token to t+1),
   or one barrier episode. */
static void sync_round(team_sync* s, int t, int n, int* sense) {
  switch (g_sync) {
    case SPIN:
      spin_wait(&s->spin, n, sense);
      break;
    case PTHREAD:
      pthread_barrier_wait(&s->pb);
      break;
    case PIPE: {
      char c = 'x';
      if (t == 0 && write(s->pipes[1 % n][1], &c, 1) != 1) GANG_FAIL("write");
      if (t != 0) {
        if (read(s->pipes[t][0], &c, 1) != 1) GANG_FAIL("read");
        if (write(s->pipes[(t + 1) % n][1], &c, 1) != 1) GANG_FAIL("write");
      } else if (n > 1 && read(s->pipes[0][0], &c, 1) != 1) {
        GANG_FAIL("read");
      }
      break;
    }
  }
}

/* An inner team that syncs `rounds` times; returns its size. */
static int inner_team(int rounds) {
  int size = 0;
  team_sync s;
#pragma omp parallel num_threads(8) shared(s, size)
  {
#pragma omp single
    {
      size = omp_get_num_threads();
      team_sync_init(&s, size);
    }
    int sense = 0, t = omp_get_thread_num();
    for (int r = 0; r < rounds; r++) sync_round(&s, t, size, &sense);
#pragma omp barrier
#pragma omp single
    team_sync_destroy(&s, size);
  }
  __atomic_fetch_add(&g_rounds_done, 1, __ATOMIC_RELAXED);
  return size;
}

int main(int argc, char** argv) {
  if (argc < 3) GANG_FAIL("usage: nested_sync spin|pthread|pipe two|many|three");
  g_sync = !strcmp(argv[1], "spin") ? SPIN : !strcmp(argv[1], "pthread") ? PTHREAD : PIPE;
  const char* shape = argv[2];
  /* Sync rounds per inner region (GANG_ROUNDS): fewer on synthetic machines,
     where dozens of workers share this machine's cores and every round of a
     user spin barrier waits for the OS to run each member. */
  int rounds = getenv("GANG_ROUNDS") ? atoi(getenv("GANG_ROUNDS")) : 20;
  char what[128];
  snprintf(what, sizeof what, "nested regions synchronising with %s (%s)", argv[1], shape);
  gang_watch(what, 20, &g_rounds_done);
  omp_set_max_active_levels(3);

  int outer = omp_get_max_threads();
  long expected = 0;
  spin_barrier start = {0, 0};
  if (!strcmp(shape, "three")) {
#pragma omp parallel num_threads(2)
    {
      int sense = 0;
      spin_wait(&start, omp_get_num_threads(), &sense);
      team_sync mid;
      int msize = 0;
#pragma omp parallel num_threads(2) shared(mid, msize)
      {
#pragma omp single
        {
          msize = omp_get_num_threads();
          team_sync_init(&mid, msize);
        }
        int s2 = 0;
        for (int r = 0; r < 5; r++) {
          inner_team(rounds / 2 + 1);
          sync_round(&mid, omp_get_thread_num(), msize, &s2);
        }
#pragma omp barrier
#pragma omp single
        team_sync_destroy(&mid, msize);
      }
    }
    expected = -1;  /* team sizes are the runtime's choice: count only completion */
  } else {
    int regions = !strcmp(shape, "many") ? (getenv("GANG_ROUNDS") ? 10 : 100) : 3;
    int outer_got = 0;
#pragma omp parallel num_threads(outer)
    {
#pragma omp single
      outer_got = omp_get_num_threads();
      /* All outer threads reach their first inner fork together. */
      int sense = 0;
      spin_wait(&start, omp_get_num_threads(), &sense);
      for (int k = 0; k < regions; k++) {
        int got = inner_team(rounds);
        if (got < 1 || got > 8) GANG_FAIL("inner team of %d", got);
      }
    }
    expected = (long)outer_got * regions;
  }
  if (expected > 0 && g_rounds_done != expected)
    GANG_FAIL("%ld inner regions completed, expected %ld", g_rounds_done, expected);
  printf("ok: %s, %ld inner regions\n", what, g_rounds_done);
  return 0;
}
