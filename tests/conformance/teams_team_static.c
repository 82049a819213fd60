/* distribute parallel for dist_schedule(static, c) as a compiler that does
   not split the composite emits it: every thread of a team's parallel region
   calls __kmpc_team_static_init_{4,4u,8,8u} for the team's first chunk and
   the stride to its next, then runs each of the team's chunks as a
   worksharing loop (clang 14 itself emits a distribute static init instead;
   called here directly). Checked, per loop shape, chunk and league (5.2,
   distribute construct): chunk k of c iterations runs on team k % teams and
   each iteration exactly once; every thread of a team gets the same answer:
   the first chunk starts at iteration team * c and ends c iterations later or
   at the loop's last iteration, a team with no chunk gets a start past the
   loop's end, the stride is teams * c steps, and the last flag is set in
   the team that runs the loop's last iteration. A chunk below 1 counts as 1. */
#include "check.h"

typedef struct { int32_t r1, flags, r2, r3; const char *psource; } ident_t;
static ident_t loc = {0, 2, 0, 0, ";teams_team_static.c;run;0;0;;"};
int32_t __kmpc_global_thread_num(ident_t *);

#define MAXN 160
#define MAXT 8
struct answer {
  uint64_t first, end; /* the first chunk as iteration indices [first, end] */
  int64_t stride;
  int last;
};
static int count[MAXN], team_of[MAXN], league, tsize[MAXT];
static struct answer got[MAXT][MAXT];

static void check(const char *what, int trip, int chunk, int64_t stride_per_step) {
  int c = chunk > 0 ? chunk : 1;
  for (int j = 0; j < trip; j++)
    CHECK(count[j] == 1 && team_of[j] == (j / c) % league, "%s, chunk %d: iteration %d ran %d times, in team %d of %d",
          what, chunk, j, count[j], team_of[j], league);
  for (int t = 0; t < league; t++)
    for (int i = 0; i < tsize[t]; i++) {
      struct answer a = got[t][i];
      uint64_t first = (uint64_t)t * c, end = first + c < (uint64_t)trip ? first + c - 1 : (uint64_t)trip - 1;
      int has = first < (uint64_t)trip, last = t == ((trip - 1) / c) % league;
      CHECK(has ? a.first == first && a.end == end : a.first >= (uint64_t)trip,
            "%s, chunk %d, team %d thread %d: first chunk [%llu, %llu] of %d iterations, want [%llu, %llu]", what,
            chunk, t, i, (unsigned long long)a.first, (unsigned long long)a.end, trip, (unsigned long long)first,
            (unsigned long long)end);
      CHECK(a.stride == (int64_t)league * c * stride_per_step && a.last == last,
            "%s, chunk %d, team %d thread %d: stride %lld (want %lld), last %d (want %d)", what, chunk, t, i,
            (long long)a.stride, (long long)league * c * stride_per_step, a.last, last);
    }
}

/* `for (i = lb; trip iterations; i += st)` of type T (U: unsigned of its
   width) over nteams teams of nthr threads. */
#define RUN(S, T, ST, U)                                                                                 \
  void __kmpc_team_static_init_##S(ident_t *, int32_t, int32_t *, T *, T *, ST *, ST, ST);               \
  static uint64_t index_##S(T lb, ST st, T i) { return st > 0 ? ((U)i - (U)lb) / (U)st : ((U)lb - (U)i) / (U)-st; } \
  static void run_##S(const char *what, T lb, ST st, int trip, ST chunk, int nteams, int nthr) {         \
    T ub = (T)((U)lb + (U)(trip - 1) * (U)st);                                                           \
    memset(count, 0, sizeof count);                                                                      \
    _Pragma("omp teams num_teams(nteams) thread_limit(nthr)")                                            \
    _Pragma("omp parallel num_threads(nthr)")                                                            \
    {                                                                                                    \
      int team = omp_get_team_num(), tid = omp_get_thread_num();                                         \
      int32_t gtid = __kmpc_global_thread_num(&loc), last = -1;                                          \
      T lo = lb, hi = ub;                                                                                \
      ST stride = 0;                                                                                     \
      if (tid == 0) tsize[team] = omp_get_num_threads();                                                 \
      if (team == 0 && tid == 0) league = omp_get_num_teams();                                           \
      __kmpc_team_static_init_##S(&loc, gtid, &last, &lo, &hi, &stride, st, chunk);                     \
      struct answer a = {index_##S(lb, st, lo), index_##S(lb, st, hi), (int64_t)stride, last};           \
      got[team][tid] = a;                                                                                \
      /* the team's chunks, each a worksharing loop; later chunks from the stride */                     \
      uint64_t step = (uint64_t)(stride / st), c = chunk > 0 ? (uint64_t)chunk : 1;                      \
      for (uint64_t first = a.first; first < (uint64_t)trip; first += step) {                            \
        int end = (int)(first + c < (uint64_t)trip ? first + c : (uint64_t)trip);                        \
        _Pragma("omp for schedule(static)")                                                              \
        for (int j = (int)first; j < end; j++) {                                                         \
          __atomic_fetch_add(&count[j], 1, __ATOMIC_RELAXED);                                            \
          team_of[j] = team;                                                                             \
        }                                                                                                \
        if (step == 0) break; /* a wrong stride: check() reports it */                                   \
      }                                                                                                  \
    }                                                                                                    \
    check(what, trip, (int)chunk, st);                                                                   \
  }
RUN(4, int32_t, int32_t, uint32_t)
RUN(4u, uint32_t, int32_t, uint32_t)
RUN(8, int64_t, int64_t, uint64_t)
RUN(8u, uint64_t, int64_t, uint64_t)

int main(void) {
  static const int leagues[][2] = {{1, 1}, {2, 2}, {3, 1}, {4, 2}};
  static const int trips[] = {1, 2, 97, MAXN};
  static const int chunks[] = {-1, 0, 1, 4, 7, 50};
  int combo = 0;
  for (unsigned g = 0; g < sizeof leagues / sizeof leagues[0]; g++)
    for (unsigned k = 0; k < sizeof trips / sizeof trips[0]; k++)
      for (unsigned c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        int nt = leagues[g][0], nth = leagues[g][1], n = trips[k], ch = chunks[c];
        switch (combo++ % 4) { /* each index type in turn, counting up and down */
          case 0:
            run_4("int up", -1000003, 3, n, ch, nt, nth);
            run_4("int down", 50, -7, n, ch, nt, nth);
            break;
          case 1:
            run_4u("unsigned up", 3000000000u, 5, n, ch, nt, nth);
            run_4u("unsigned down", 4000000000u, -9, n, ch, nt, nth);
            break;
          case 2:
            run_8("long up", -(1LL << 40), (1LL << 33) + 1, n, ch, nt, nth);
            run_8("long down", 1LL << 50, -12345, n, ch, nt, nth);
            break;
          default:
            run_8u("unsigned long up", UINT64_MAX - 2000, 11, n, ch, nt, nth);
            run_8u("unsigned long down", (1ULL << 63) + 12345, -(1LL << 35), n, ch, nt, nth);
        }
        if (conf_failed) {
          printf("in: %d teams of %d threads asked, %d iterations, chunk %d\n", nt, nth, n, ch);
          return conf_end();
        }
      }
  return conf_end();
}
