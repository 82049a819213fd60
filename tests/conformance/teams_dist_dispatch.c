/* distribute parallel for with a dynamic, guided, runtime or static loop
   schedule as a compiler that does not split the composite emits it:
   __kmpc_dist_dispatch_init_{4,4u,8,8u}, then __kmpc_dispatch_next_*, called
   here directly in a parallel region of each team (clang 14 itself emits a
   distribute static init and a plain dispatch_init instead). Checked, per
   loop shape, schedule and league (5.2, distribute and worksharing-loop
   constructs): every iteration runs exactly once; each team runs one
   contiguous part, in team order, of at most ceil(trip / teams) iterations
   (dist_schedule(static) with no chunk); the init's last flag is set on
   exactly the threads of the team whose part ends the loop; inside a team,
   dynamic chunks are c iterations from the part's start, guided chunks
   shrink but stay at least c (the last excepted), static chunk k is on thread
   k % team size, static without a chunk is one block per thread in thread
   order (not checked for a team of one thread, where no program could tell
   chunks apart); dispatch_next flags as last exactly the chunk that ends
   the part. */
#include "check.h"

typedef struct { int32_t r1, flags, r2, r3; const char *psource; } ident_t;
static ident_t loc = {0, 2, 0, 0, ";teams_dist_dispatch.c;run;0;0;;"};
int32_t __kmpc_global_thread_num(ident_t *);

#define MAXN 160
#define MAXT 8
#define MONO (1 << 29) /* kmp_sch_modifier_monotonic */
enum { STATIC_CHUNKED = 33, STATIC = 34, DYNAMIC = 35, GUIDED = 36, RUNTIME = 37 };

static int trip, league, tsize[MAXT], init_last[MAXT][MAXT];
static int count[MAXN], team_of[MAXN], clen[MAXN], ctid[MAXN], clast[MAXN];
static omp_sched_t rs_kind; /* run-sched-var the teams set for RUNTIME */
static int rs_chunk;

static void record(const char *what, uint64_t jl, uint64_t ju, int team, int tid, int last, int st_ok) {
  CHECK(jl <= ju && ju < (uint64_t)trip && st_ok, "%s: chunk [%llu, %llu] of %d iterations, stride ok %d", what,
        (unsigned long long)jl, (unsigned long long)ju, trip, st_ok);
  if (!(jl <= ju && ju < (uint64_t)trip)) return;
  for (uint64_t j = jl; j <= ju; j++)
    __atomic_fetch_add(&count[j], 1, __ATOMIC_RELAXED), team_of[j] = team;
  clen[jl] = (int)(ju - jl + 1), ctid[jl] = tid, clast[jl] = last;
}

static void check(const char *what, int sched, int chunk) {
  int kind = sched & ~MONO, c = chunk > 0 ? chunk : 1;
  if (kind == RUNTIME) kind = rs_kind == omp_sched_static ? STATIC_CHUNKED : DYNAMIC, c = rs_chunk;
  for (int j = 0; j < trip; j++)
    CHECK(count[j] == 1, "%s: iteration %d ran %d times", what, j, count[j]);
  if (conf_failed) return;
  for (int t = 0, j = 0; t < league; t++) {
    int tb = j;
    while (j < trip && team_of[j] == t) j++;
    int te = j, part = te - tb, prev = part + 1, want_last = part > 0 && te == trip;
    CHECK(t < league - 1 || j == trip, "%s: iteration %d ran in team %d after team %d (one part per team, in order)",
          what, j, j < trip ? team_of[j] : -1, t);
    CHECK(part <= (trip + league - 1) / league, "%s: team %d of %d ran %d of %d iterations", what, t, league, part, trip);
    for (int i = 0; i < tsize[t]; i++)
      CHECK(init_last[t][i] == want_last, "%s: dist_dispatch_init's last flag in team %d thread %d: %d, want %d",
            what, t, i, init_last[t][i], want_last);
    for (int k = tb, ptid = -1; k < te; k += clen[k]) {
      int o = k - tb, len = clen[k], rest = part - o < c ? part - o : c;
      CHECK(len > 0, "%s: iteration %d starts no chunk", what, k);
      if (len <= 0) break;
      CHECK(clast[k] == (k + len == te), "%s: team %d's chunk at %d (of [%d, %d)) has last flag %d", what, t, k, tb,
            te, clast[k]);
      if (tsize[t] == 1) continue; /* a lone thread's chunks are not observable: any split will do */
      if (kind == DYNAMIC || kind == STATIC_CHUNKED)
        CHECK(len == rest, "%s: chunk at %d of team %d's part [%d, %d) has %d iterations, want %d", what, k, t, tb, te,
              len, rest);
      if (kind == STATIC_CHUNKED)
        CHECK(ctid[k] == (o / c) % tsize[t], "%s: chunk at %d (offset %d) ran on thread %d of %d", what, k, o, ctid[k],
              tsize[t]);
      if (kind == GUIDED)
        CHECK(len >= rest && len <= prev, "%s: guided chunk at %d of [%d, %d): %d iterations after %d, chunk %d", what,
              k, tb, te, len, prev, c);
      if (kind == STATIC)
        CHECK(ctid[k] > ptid && len <= (part + tsize[t] - 1) / tsize[t],
              "%s: static block at %d: %d iterations on thread %d after thread %d (team of %d)", what, k, len, ctid[k],
              ptid, tsize[t]);
      prev = len, ptid = ctid[k];
    }
  }
}

/* One loop `for (i = lb; trip iterations; i += st)` of type T (U: unsigned
   of its width) over nteams teams of nthr threads. */
#define RUN(S, T, ST, U)                                                                                 \
  void __kmpc_dist_dispatch_init_##S(ident_t *, int32_t, int32_t, int32_t *, T, T, ST, ST);              \
  int __kmpc_dispatch_next_##S(ident_t *, int32_t, int32_t *, T *, T *, ST *);                           \
  static uint64_t index_##S(T lb, ST st, T i) { return st > 0 ? ((U)i - (U)lb) / (U)st : ((U)lb - (U)i) / (U)-st; } \
  static void run_##S(const char *what, T lb, ST st, int n, int sched, ST chunk, int nteams, int nthr) {  \
    T ub = (T)((U)lb + (U)(n - 1) * (U)st);                                                              \
    trip = n;                                                                                            \
    memset(count, 0, sizeof count), memset(clen, 0, sizeof clen), memset(init_last, 0xff, sizeof init_last); \
    _Pragma("omp teams num_teams(nteams) thread_limit(nthr)")                                            \
    _Pragma("omp parallel num_threads(nthr)")                                                            \
      {                                                                                                  \
        int team = omp_get_team_num(), tid = omp_get_thread_num();                                       \
        int32_t gtid = __kmpc_global_thread_num(&loc), tl = -1, last = 0;                                \
        if (tid == 0) tsize[team] = omp_get_num_threads();                                               \
        if (team == 0 && tid == 0) league = omp_get_num_teams();                                         \
        __kmpc_dist_dispatch_init_##S(&loc, gtid, sched, &tl, lb, ub, st, chunk);                        \
        init_last[team][tid] = tl;                                                                       \
        T l, u;                                                                                          \
        ST s;                                                                                            \
        while (__kmpc_dispatch_next_##S(&loc, gtid, &last, &l, &u, &s))                                  \
          record(what, index_##S(lb, st, l), index_##S(lb, st, u), team, tid, last, s == st);            \
      }                                                                                                  \
    check(what, sched, (int)chunk);                                                                      \
  }
RUN(4, int32_t, int32_t, uint32_t)
RUN(4u, uint32_t, int32_t, uint32_t)
RUN(8, int64_t, int64_t, uint64_t)
RUN(8u, uint64_t, int64_t, uint64_t)

int main(void) {
  static const int scheds[][2] = {{DYNAMIC | MONO, 0}, {DYNAMIC | MONO, 4}, {GUIDED | MONO, 3}, {GUIDED, 1},
                                  {STATIC_CHUNKED, 5}, {STATIC, 0},         {RUNTIME, 0}};
  static const int leagues[][2] = {{1, 1}, {2, 2}, {3, 2}, {4, 3}};
  static const int trips[] = {1, 2, 97, MAXN};
  int combo = 0;
  for (int r = 0; r < 2; r++) {
    /* run-sched-var, which the teams' initial threads and their regions inherit */
    rs_kind = r ? omp_sched_static : omp_sched_dynamic, rs_chunk = r ? 3 : 2;
    omp_set_schedule(rs_kind, rs_chunk);
    for (unsigned s = 0; s < sizeof scheds / sizeof scheds[0]; s++)
      for (unsigned g = 0; g < sizeof leagues / sizeof leagues[0]; g++)
        for (unsigned k = 0; k < sizeof trips / sizeof trips[0]; k++) {
          int sc = scheds[s][0], ch = scheds[s][1], nt = leagues[g][0], nth = leagues[g][1], n = trips[k];
          if (r && sc != RUNTIME) continue;
          switch (combo++ % 4) { /* each index type in turn, counting up and down */
            case 0:
              run_4("int up", -1000003, 3, n, sc, ch, nt, nth);
              run_4("int down", 50, -7, n, sc, ch, nt, nth);
              break;
            case 1:
              run_4u("unsigned up", 3000000000u, 5, n, sc, ch, nt, nth);
              run_4u("unsigned down", 4000000000u, -9, n, sc, ch, nt, nth);
              break;
            case 2:
              run_8("long up", -(1LL << 40), (1LL << 33) + 1, n, sc, ch, nt, nth);
              run_8("long down", 1LL << 50, -12345, n, sc, ch, nt, nth);
              break;
            default:
              run_8u("unsigned long up", UINT64_MAX - 2000, 11, n, sc, ch, nt, nth);
              run_8u("unsigned long down", (1ULL << 63) + 12345, -(1LL << 35), n, sc, ch, nt, nth);
          }
          if (conf_failed) {
            printf("in: schedule %d chunk %d, %d teams of %d threads asked, %d iterations\n", sc, ch, nt, nth, n);
            return conf_end();
          }
        }
  }
  return conf_end();
}
