/* moldable: chains of moldable tasks, after the ARMS experiments.
 *
 * P chains of D steps each; the steps of a chain are tasks ordered by a
 * dependence on the chain's token, the chains independent of each other
 * (the DAG's parallelism is P). Each step opens a nested parallel region
 * over its chain's block: a moldable task, whose width the runtime may
 * choose when dyn-var is true. Two kernels:
 *   matmul  C += A x B on 128 x 128 doubles (compute-bound: scales with the width)
 *   triad   a = b + s * c over 2^21 doubles (memory-bound: scales with the bandwidth)
 *   mixed   even chains matmul, odd chains triad (default)
 *
 *   usage: moldable [P] [D] [matmul|triad|mixed] [W|all]
 *   W: the width each step asks for (num_threads); all (default) asks for the
 *   number of processors; BENCH_WIDTH, when set, overrides W (bench.h).
 *   The outer team is OMP_NUM_THREADS as usual.
 *   Fixed widths: W = 1, 2, ... with OMP_DYNAMIC=false; the model: W = all with
 *   OMP_DYNAMIC=true (or Bobbin's BOBBIN_MOLD=on).
 *
 * Verification: the same steps run serially first; every element must be
 * equal (each element's arithmetic is the same whatever the width). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { MB = 128, TRIAD_N = 1 << 21 };

typedef struct {
  int kind;  /* 0 matmul, 1 triad */
  double *a, *b, *c;
} Chain;

static int g_width;

static void step_matmul(Chain *ch, int width) {
  const double *A = ch->a, *B = ch->b;
  double *C = ch->c;
#pragma omp parallel for num_threads(width) schedule(static)
  for (int i = 0; i < MB; i++)
    for (int k = 0; k < MB; k++) {
      double aik = A[i * MB + k];
      for (int j = 0; j < MB; j++) C[i * MB + j] += aik * B[k * MB + j];
    }
}

/* a = b + s * c, then the roles of a and b swap (the next step reads this one's result). */
static void step_triad(Chain *ch, int width) {
  double *a = ch->a;
  const double *b = ch->b, *c = ch->c;
#pragma omp parallel for num_threads(width) schedule(static)
  for (long i = 0; i < TRIAD_N; i++) a[i] = b[i] + 0.5 * c[i];
  double *t = ch->a;
  ch->a = ch->b;
  ch->b = t;
}

static void step(Chain *ch, int width) {
  if (ch->kind == 0) step_matmul(ch, width);
  else step_triad(ch, width);
}

static void chain_init(Chain *ch, int kind, int seed) {
  ch->kind = kind;
  long n = kind == 0 ? MB * MB : TRIAD_N;
  ch->a = malloc(sizeof(double) * (size_t)n);
  ch->b = malloc(sizeof(double) * (size_t)n);
  ch->c = malloc(sizeof(double) * (size_t)n);
  if (!ch->a || !ch->b || !ch->c) {
    fprintf(stderr, "moldable: out of memory\n");
    exit(2);
  }
  for (long i = 0; i < n; i++) {
    ch->a[i] = kind == 0 ? (double)((i * 7 + seed) % 13) / 13.0 : 0.0;
    ch->b[i] = (double)((i * 5 + seed) % 11) / 11.0;
    ch->c[i] = kind == 0 ? 0.0 : (double)((i * 3 + seed) % 17) / 17.0;
  }
}

static int chain_equal(const Chain *x, const Chain *y) {
  long n = x->kind == 0 ? MB * MB : TRIAD_N;
  return memcmp(x->a, y->a, sizeof(double) * (size_t)n) == 0 && memcmp(x->b, y->b, sizeof(double) * (size_t)n) == 0 &&
         memcmp(x->c, y->c, sizeof(double) * (size_t)n) == 0;
}

int main(int argc, char **argv) {
  int p = (int)bench_long_arg(argc, argv, 1, 2, "P");
  int d = (int)bench_long_arg(argc, argv, 2, 60, "D");
  const char *kind = argc > 3 ? argv[3] : "mixed";
  g_width = bench_width_arg(argc, argv, 4);
  if (p < 1 || d < 1 || (strcmp(kind, "matmul") && strcmp(kind, "triad") && strcmp(kind, "mixed"))) {
    fprintf(stderr, "usage: moldable [P] [D] [matmul|triad|mixed] [W|all]\n");
    return 2;
  }
  int width = g_width ? g_width : omp_get_num_procs();
  omp_set_max_active_levels(2);

  Chain *par = calloc((size_t)p, sizeof(Chain)), *ref = calloc((size_t)p, sizeof(Chain));
  char *token = calloc((size_t)p, 1);
  for (int i = 0; i < p; i++) {
    int k = !strcmp(kind, "matmul") ? 0 : !strcmp(kind, "triad") ? 1 : i % 2;
    chain_init(&par[i], k, i);
    chain_init(&ref[i], k, i);
  }
  for (int i = 0; i < p; i++)
    for (int s = 0; s < d; s++) step(&ref[i], 1);

  double t0 = bench_now();
#pragma omp parallel
#pragma omp single
  for (int s = 0; s < d; s++)
    for (int i = 0; i < p; i++) {
      Chain *ch = &par[i];
#pragma omp task depend(inout : token[i]) firstprivate(ch)
      step(ch, width);
    }
  double time_s = bench_now() - t0;
  (void)token;  /* named only by depend clauses, which gcc does not count as a use */

  int ok = 1;
  for (int i = 0; i < p; i++) ok &= chain_equal(&par[i], &ref[i]);
  bench_result("moldable", ok, "p=%d d=%d kind=%s width=%d threads=%d dynamic=%d time_s=%.6f", p, d, kind, g_width,
               bench_team_size(), omp_get_dynamic(), time_s);
  return ok ? 0 : 1;
}
