/* Nested teams whose members wait for one another outside the runtime, with
   more OpenMP threads than cores: every shape must complete, as it does on a
   runtime with a kernel thread per OpenMP thread.

   usage: progress SHAPE [OUTERS [INNERS [ROUNDS]]]
     SHAPE:  spin | yield | flag | pipe | pthread | sem (shapes.h), each
             after an omp barrier (so members parked in the runtime are
             ready behind one that waits in user code)
     OUTERS, INNERS: comma-separated team sizes (default 1,2,4,8 and 2,3,4,8,16)
   Each outer thread opens three inner regions of INNER threads (dyn-var
   false: the team must have exactly that many threads), each synchronising
   ROUNDS times (default 20). PROGRESS_TIMEOUT (s, default 100) bounds the
   run: past it the program prints the shape it was in and exits 3.
   The shapes are bots/syncshapes/shapes.h (the benchmark runs the same). */
#include <signal.h>

#include "shapes.h"

static int g_shape;
static int g_rounds = 20;
static volatile int g_outer, g_inner;

static void on_alarm(int sig) {
  (void)sig;
  char buf[160];
  int n = snprintf(buf, sizeof buf, "HUNG: %s, outer %d x inner %d did not complete\n", kShapes[g_shape], g_outer,
                   g_inner);
  if (write(2, buf, (size_t)n) < 0) _exit(4);
  _exit(3);
}

#define FAIL(...)                     \
  do {                                \
    fprintf(stderr, "FAIL: ");        \
    fprintf(stderr, __VA_ARGS__);     \
    fprintf(stderr, "\n");            \
    exit(1);                          \
  } while (0)

/* One inner region; returns 0 when every member took part in every round. */
static int inner_region(int inner) {
  team_state *s = malloc(sizeof *s);
  int bad = 0;
  state_init(s, inner);
#pragma omp parallel num_threads(inner) shared(s, bad)
  {
    int me = omp_get_thread_num(), n = omp_get_num_threads(), local = 0;
    if (n != inner) {
#pragma omp atomic write
      bad = 1;
    }
    /* An omp barrier first: members parked in the runtime are then ready
       while another one already waits in user code. */
#pragma omp barrier
    if (n == inner)
      for (int r = 1; r <= g_rounds; r++) {
        sync_round(g_shape, s, me, n, r, &local);
#pragma omp atomic
        s->sum += r;
      }
  }
  long want = (long)inner * g_rounds * (g_rounds + 1) / 2;
  if (!bad && s->sum != want) {
    fprintf(stderr, "FAIL: %s: sum %ld, expected %ld\n", kShapes[g_shape], s->sum, want);
    bad = 1;
  }
  state_destroy(s, inner);
  free(s);
  return bad;
}

static int parse_list(const char *arg, int *out, int max) {
  int n = 0;
  char *copy = strdup(arg), *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) out[n++] = atoi(t);
  free(copy);
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s spin|yield|flag|pipe|pthread|sem [OUTERS [INNERS [ROUNDS]]]\n", argv[0]);
    return 2;
  }
  g_shape = shape_by_name(argv[1]);
  if (g_shape < 0) FAIL("unknown shape %s", argv[1]);
  int outers[8] = {1, 2, 4, 8}, inners[8] = {2, 3, 4, 8, 16}, no = 4, ni = 5;
  if (argc > 2) no = parse_list(argv[2], outers, 8);
  if (argc > 3) ni = parse_list(argv[3], inners, 8);
  if (argc > 4) g_rounds = atoi(argv[4]);
  const char *to = getenv("PROGRESS_TIMEOUT");
  signal(SIGALRM, on_alarm);
  alarm(to ? (unsigned)atoi(to) : 100);
  omp_set_dynamic(0);
  omp_set_max_active_levels(2);
  double t0 = omp_get_wtime();
  int bad = 0;
  for (int a = 0; a < no; a++)
    for (int b = 0; b < ni; b++) {
      int outer = outers[a], inner = inners[b];
      if (inner > MAX_INNER) FAIL("inner team of %d (at most %d)", inner, MAX_INNER);
      g_outer = outer;
      g_inner = inner;
      double t = omp_get_wtime();
#pragma omp parallel num_threads(outer) reduction(| : bad)
      {
        if (omp_get_num_threads() != outer) bad |= 1;
        for (int k = 0; k < 3; k++) bad |= inner_region(inner);
      }
      printf("%s outer %d x inner %d: %.3f s\n", kShapes[g_shape], outer, inner, omp_get_wtime() - t);
      fflush(stdout);
    }
  if (bad) FAIL("%s: a team had the wrong size or missed a round", kShapes[g_shape]);
  printf("ok: %s, %d x %d shapes, %.2f s\n", kShapes[g_shape], no, ni, omp_get_wtime() - t0);
  return 0;
}
