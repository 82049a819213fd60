/* User-defined reductions (declare reduction) in C: a struct holding a
   sum, a minimum, a maximum and a count, with an initializer expression;
   one with an initializer that calls a function; used on parallel, for
   (16 threads: tree combining) and sections. */
#include "check.h"

struct stats {
  long sum;
  int min, max;
  int count;
};

static void stats_merge(struct stats *out, const struct stats *in) {
  out->sum += in->sum;
  out->min = in->min < out->min ? in->min : out->min;
  out->max = in->max > out->max ? in->max : out->max;
  out->count += in->count;
}
static void stats_add(struct stats *s, int v) {
  struct stats one = {v, v, v, 1};
  stats_merge(s, &one);
}

#pragma omp declare reduction(merge : struct stats : stats_merge(&omp_out, &omp_in)) \
    initializer(omp_priv = (struct stats){0, 1 << 30, -(1 << 30), 0})

/* Polynomial product mod p, initialised by a function. */
typedef struct {
  unsigned long long v;
} modp;
#define P 1000000007ULL
static void modp_one(modp *m) { m->v = 1; }
#pragma omp declare reduction(mulp : modp : omp_out.v = omp_out.v * omp_in.v % P) \
    initializer(modp_one(&omp_priv))

int main(void) {
  struct stats s = {0, 1 << 30, -(1 << 30), 0};
#pragma omp parallel for reduction(merge : s) num_threads(16) schedule(dynamic, 3)
  for (int i = -500; i < 700; i++)
    stats_add(&s, i);
  CHECK(s.sum == 119400 && s.min == -500 && s.max == 699 && s.count == 1200,
        "merge on for: {%ld, %d, %d, %d}", s.sum, s.min, s.max, s.count);

  struct stats r = {5, 5, 5, 1}; /* the original takes part */
#pragma omp parallel reduction(merge : r) num_threads(7)
  stats_add(&r, omp_get_thread_num() * 10);
  CHECK(r.sum == 5 + 210 && r.min == 0 && r.max == 60 && r.count == 8,
        "merge on parallel: {%ld, %d, %d, %d}", r.sum, r.min, r.max, r.count);

  struct stats sec = {0, 1 << 30, -(1 << 30), 0};
#pragma omp parallel num_threads(3)
  {
#pragma omp sections reduction(merge : sec)
    {
#pragma omp section
      stats_add(&sec, 3);
#pragma omp section
      stats_add(&sec, -8);
#pragma omp section
      stats_add(&sec, 40);
#pragma omp section
      stats_add(&sec, 1);
    }
  }
  CHECK(sec.sum == 36 && sec.min == -8 && sec.max == 40 && sec.count == 4,
        "merge on sections: {%ld, %d, %d, %d}", sec.sum, sec.min, sec.max, sec.count);

  modp prod = {1};
  unsigned long long want = 1;
  for (unsigned long long i = 1; i <= 5000; i++)
    want = want * i % P;
#pragma omp parallel for reduction(mulp : prod) num_threads(8)
  for (unsigned long long i = 1; i <= 5000; i++)
    prod.v = prod.v * i % P;
  CHECK(prod.v == want, "mulp (function initializer): %llu, want %llu", prod.v, want);
  return conf_end();
}
