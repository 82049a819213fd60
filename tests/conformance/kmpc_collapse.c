/* libomp 17+'s entry points for collapsed rectangular loop nests, called
   directly as a compiler would: __kmpc_process_loop_nest_rectang (canonical
   <= / >= bounds, each loop's trip count, the space's size),
   __kmpc_calc_original_ivs_rectang (the loop variables of each point, in
   the order of the sequential nest) and __kmpc_for_collapsed_init (each
   thread's static part as its first and last points: the parts of a team
   of 3 tile the space, in thread order, and one has the last iteration,
   ending at the canonical upper bounds); and a triangular nest (the inner
   loop's bounds depend on the outer variable), whose parts on 1 to 4
   threads tile it.
   The nest: int32 i = 0; i < 10; i++ / int64 j = 20; j > 5; j -= 3 /
   uint32 k = 0; k != 8; k += 2 (10 x 5 x 4 points).
   Looked up at run time: libomp 14 has none of them (the checks are then
   skipped on it; Bobbin must have them). */
#include "check.h"

typedef struct {
  int32_t loop_type, iv_type, comparison, outer_iv;
  uint64_t lb0, lb1, ub0, ub1;
  int64_t step;
  uint64_t trip_count;
} nest_bounds;

typedef uint64_t (*process_fn)(void *, int32_t, nest_bounds *, int32_t);
typedef void (*calc_fn)(void *, uint64_t, const nest_bounds *, uint64_t *, int32_t);
typedef int32_t (*init_fn)(void *, int32_t, nest_bounds *, nest_bounds *, int32_t, int32_t *);
int __kmpc_global_thread_num(void *);

enum { LE = 0, GE = 1, NE = 2, LT = 3, GT = 4 };
enum { U32 = 4, I32 = 5, U64 = 6, I64 = 7 };
enum { NI = 10, NJ = 5, NK = 4, TOTAL = NI * NJ * NK };

static void make_nest(nest_bounds *b) {
  memset(b, 0, 3 * sizeof *b);
  b[0] = (nest_bounds){I32, I32, LT, 0, 0, 0, 10, 0, 1, 0};
  b[1] = (nest_bounds){I64, I64, GT, 0, 20, 0, 5, 0, -3, 0};
  b[2] = (nest_bounds){U32, U32, NE, 0, 0, 0, 8, 0, 2, 0};
}

/* The sequential nest's points, in order. */
static int64_t want_i[TOTAL], want_j[TOTAL], want_k[TOTAL];
static void sequential(void) {
  int n = 0;
  for (int32_t i = 0; i < 10; i++)
    for (int64_t j = 20; j > 5; j -= 3)
      for (uint32_t k = 0; k != 8; k += 2) {
        want_i[n] = i;
        want_j[n] = j;
        want_k[n] = k;
        n++;
      }
}

static int index_of(const uint64_t *iv) {
  for (int n = 0; n < TOTAL; n++)
    if ((int32_t)iv[0] == want_i[n] && (int64_t)iv[1] == want_j[n] && (uint32_t)iv[2] == want_k[n]) return n;
  return -1;
}

int main(void) {
  process_fn process = (process_fn)dlsym(RTLD_DEFAULT, "__kmpc_process_loop_nest_rectang");
  calc_fn calc = (calc_fn)dlsym(RTLD_DEFAULT, "__kmpc_calc_original_ivs_rectang");
  init_fn init = (init_fn)dlsym(RTLD_DEFAULT, "__kmpc_for_collapsed_init");
  if (!process || !calc || !init) {
    CHECK(conf_env_long("CONF_EXPECT_BOBBIN", 0) == 0, "Bobbin does not export the collapsed-nest entry points");
    printf("this runtime has no collapsed-nest entry points: nothing checked\n");
    return conf_end();
  }
  sequential();
  nest_bounds nest[3];
  make_nest(nest);
  int gtid = __kmpc_global_thread_num(NULL);
  uint64_t total = process(NULL, gtid, nest, 3);
  CHECK_EQ("points of the collapsed space", (long)total, TOTAL);
  CHECK(nest[0].trip_count == NI && nest[1].trip_count == NJ && nest[2].trip_count == NK,
        "trip counts %llu %llu %llu, want 10 5 4", (unsigned long long)nest[0].trip_count,
        (unsigned long long)nest[1].trip_count, (unsigned long long)nest[2].trip_count);
  CHECK(nest[0].comparison == LE && nest[1].comparison == GE && nest[2].comparison == LE,
        "canonical comparisons %d %d %d, want <= >= <=", nest[0].comparison, nest[1].comparison, nest[2].comparison);
  for (uint64_t p = 0; p < total && !conf_has_failed(); p++) {
    uint64_t iv[3];
    calc(NULL, p, nest, iv, 3);
    CHECK(index_of(iv) == (int)p, "point %llu: (%d, %lld, %u), want (%lld, %lld, %lld)", (unsigned long long)p,
          (int32_t)iv[0], (long long)(int64_t)iv[1], (uint32_t)iv[2], (long long)want_i[p], (long long)want_j[p],
          (long long)want_k[p]);
  }

  int first[3], last[3], has[3] = {0, 0, 0}, lastiter[3] = {0, 0, 0};
#pragma omp parallel num_threads(3)
  {
    int t = omp_get_thread_num();
    nest_bounds mine[3], part[3];
    make_nest(mine);
    int32_t plast = 0;
    has[t] = init(NULL, __kmpc_global_thread_num(NULL), mine, part, 3, &plast);
    lastiter[t] = plast;
    if (has[t]) {
      uint64_t a[3] = {part[0].lb0, part[1].lb0, part[2].lb0}, z[3] = {part[0].ub0, part[1].ub0, part[2].ub0};
      first[t] = index_of(a);
      /* The part with the last iteration ends at the canonical upper bounds
         (9, 6, 7), which is no point of the nest (libomp's contract). */
      last[t] = plast ? ((int32_t)z[0] == 9 && (int64_t)z[1] == 6 && (uint32_t)z[2] == 7 ? TOTAL - 1 : -2) : index_of(z);
    }
  }
  {
    int next = 0, lasts = 0;
    for (int t = 0; t < 3; t++) {
      lasts += lastiter[t];
      if (!has[t]) continue;
      CHECK(first[t] == next && last[t] >= first[t], "thread %d's part is points %d..%d, want it to start at %d", t,
            first[t], last[t], next);
      next = last[t] + 1;
      if (lastiter[t]) CHECK_EQ("the part with the last iteration ends at", last[t], TOTAL - 1);
    }
    CHECK_EQ("points covered by the threads' parts", next, TOTAL);
    CHECK_EQ("threads told they have the last iteration", lasts, 1);
  }

  /* A triangle: for (int32 i = 0; i < 7; i++) for (int32 j = i; j < 10 - i;
     j++), 30 points. Each part, from its first point to its last in the
     nest's order (which may lie outside the triangle), holds the points of
     the triangle between them: the parts of teams of 1 to 4 tile it. */
  for (int nt = 1; nt <= 4; nt++) {
    static int owner_of[7][10];
    memset(owner_of, 0xff, sizeof owner_of);
    int lasts = 0, twice = 0;
#pragma omp parallel num_threads(nt) reduction(+ : lasts, twice)
    {
      nest_bounds tri[2], part[2];
      memset(tri, 0, sizeof tri);
      tri[0] = (nest_bounds){I32, I32, LT, 0, 0, 0, 7, 0, 1, 0};
      tri[1] = (nest_bounds){I32, I32, LT, 0, 0, 1, 10, (uint64_t)(int64_t)-1, 1, 0};
      int32_t plast = 0;
      if (init(NULL, __kmpc_global_thread_num(NULL), tri, part, 2, &plast)) {
        int32_t fi = (int32_t)part[0].lb0, fj = (int32_t)part[1].lb0;
        int32_t li = (int32_t)part[0].ub0, lj = (int32_t)part[1].ub0;
        for (int32_t i = 0; i < 7; i++)
          for (int32_t j = i; j < 10 - i; j++) {
            int after_first = i > fi || (i == fi && j >= fj), before_last = i < li || (i == li && j <= lj);
            if (!after_first || !before_last) continue;
            if (__atomic_exchange_n(&owner_of[i][j], omp_get_thread_num(), __ATOMIC_RELAXED) != -1) twice++;
          }
      }
      lasts += plast;
    }
    int missing = 0;
    for (int i = 0; i < 7; i++)
      for (int j = i; j < 10 - i; j++) missing += owner_of[i][j] == -1;
    CHECK(missing == 0 && twice == 0, "triangle on %d threads: %d points in no part, %d in two", nt, missing, twice);
    CHECK_EQ("triangle: threads told they have the last iteration", lasts, 1);
  }
  return conf_end();
}
