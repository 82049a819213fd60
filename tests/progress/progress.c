/* Nested teams whose members wait for one another outside the runtime, with
   more OpenMP threads than cores: every shape must complete, as it does on a
   runtime with a kernel thread per OpenMP thread.

   usage: progress SHAPE [OUTERS [INNERS [ROUNDS]]]
     SHAPE:  one of shapes.h's (spin, yield, flag, pipe, ..., epoll, futex), each
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

static int parse_list(const char *arg, int *out, int max) {
  int n = 0;
  char *copy = strdup(arg), *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) out[n++] = atoi(t);
  free(copy);
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s spin|yield|flag|pipe|pthread|sem|call [OUTERS [INNERS [ROUNDS]]]\n", argv[0]);
    return 2;
  }
  g_shape = shape_by_name(argv[1]);
  if (g_shape < 0) SHAPE_FAIL("unknown shape %s", argv[1]);
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
      if (inner > MAX_INNER) SHAPE_FAIL("inner team of %d (at most %d)", inner, MAX_INNER);
      g_outer = outer;
      g_inner = inner;
      double t = omp_get_wtime();
#pragma omp parallel num_threads(outer) reduction(| : bad)
      {
        if (omp_get_num_threads() != outer) bad |= 1;
        for (int k = 0; k < 3; k++) bad |= shape_region(g_shape, inner, g_rounds);
      }
      printf("%s outer %d x inner %d: %.3f s\n", kShapes[g_shape], outer, inner, omp_get_wtime() - t);
      fflush(stdout);
    }
  if (bad) SHAPE_FAIL("%s: a team had the wrong size or missed a round", kShapes[g_shape]);
  printf("ok: %s, %d x %d shapes, %.2f s\n", kShapes[g_shape], no, ni, omp_get_wtime() - t0);
  return 0;
}
