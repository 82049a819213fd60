/* Random dependence DAGs checked against a sequential oracle. For each of
   several fixed seeds, 400 sibling tasks name 1-4 distinct cells out of 24
   with random kinds (in, out, inout, mutexinoutset) and do random work.
   Every task stamps its start and end from one atomic clock; afterwards each
   pair of tasks that name a common cell must satisfy the spec's rule for
   their kinds, in creation order: in/in nothing, mutexinoutset/mutexinoutset
   no overlap, anything else end(earlier) < start(later). Each task also
   checks the data it sees: the last writer of each cell (in creation order)
   and how many mutexinoutset tasks touched it before. Three ways to name the
   cells: iterator depend clauses (runtime-built lists, several cells), one
   plain clause per kind (one cell), and the first form inside an explicit
   task (the parent's own dependence domain). The third form draws no
   mutexinoutset: libomp 14 loses track of such tasks under an explicit
   parent, which dep_mutex_in_task checks on its own. */
#include "check.h"

enum { NCELL = 24, NTASK = 400, MAXD = 4, NSEED = 5 };
enum { K_IN, K_OUT, K_INOUT, K_MUTEX };
static const char *kname[] = {"in", "out", "inout", "mutexinoutset"};

struct spec {
  int n, addr[MAXD], kind[MAXD], want_last[MAXD], want_msum[MAXD], work;
  int cnt[4], list[4][MAXD]; /* cells per kind, for the iterator clauses */
};
static struct spec tasks[NTASK];
static struct { int last, msum; } cell[NCELL]; /* guarded by the dependences only */
static long clock_, start[NTASK], end[NTASK];

static unsigned rng;
static unsigned next_rand(void) { return rng = rng * 1103515245u + 12345u, rng >> 8; }

static void generate(int maxd, int mutex) {
  int last[NCELL], msum[NCELL];
  for (int c = 0; c < NCELL; c++)
    last[c] = -1, msum[c] = 0, cell[c].last = -1, cell[c].msum = 0;
  for (int t = 0; t < NTASK; t++) {
    struct spec *s = &tasks[t];
    memset(s, 0, sizeof *s);
    s->n = 1 + next_rand() % maxd;
    s->work = next_rand() % 3000;
    for (int d = 0; d < s->n; d++) {
      int a, dup;
      do { /* distinct cells within one task */
        a = next_rand() % NCELL, dup = 0;
        for (int e = 0; e < d; e++)
          dup |= s->addr[e] == a;
      } while (dup);
      unsigned r = next_rand() % (mutex ? 100 : 85);
      int k = r < 40 ? K_IN : r < 55 ? K_OUT : r < 85 ? K_INOUT : K_MUTEX;
      s->addr[d] = a, s->kind[d] = k, s->want_last[d] = last[a], s->want_msum[d] = msum[a];
      s->list[k][s->cnt[k]++] = a;
      if (k == K_OUT || k == K_INOUT)
        last[a] = t;
      if (k == K_MUTEX)
        msum[a]++;
    }
  }
}

static void body(int t) {
  struct spec *s = &tasks[t];
  start[t] = __atomic_fetch_add(&clock_, 1, __ATOMIC_SEQ_CST);
  int seen[MAXD];
  for (int d = 0; d < s->n; d++) {
    int a = s->addr[d];
    seen[d] = cell[a].msum;
    if (s->kind[d] != K_MUTEX)
      CHECK(seen[d] == s->want_msum[d], "task %d (%s cell %d) saw %d mutexinoutset updates, want %d",
            t, kname[s->kind[d]], a, seen[d], s->want_msum[d]);
    CHECK(cell[a].last == s->want_last[d], "task %d (%s cell %d) saw last writer %d, want %d", t,
          kname[s->kind[d]], a, cell[a].last, s->want_last[d]);
  }
  for (volatile int i = 0; i < s->work; i++)
    ;
  for (int d = 0; d < s->n; d++) {
    if (s->kind[d] == K_OUT || s->kind[d] == K_INOUT)
      cell[s->addr[d]].last = t;
    if (s->kind[d] == K_MUTEX)
      cell[s->addr[d]].msum = seen[d] + 1; /* an overlap loses an update */
  }
  end[t] = __atomic_fetch_add(&clock_, 1, __ATOMIC_SEQ_CST);
}

static void create_iterator_form(void) {
  for (int t = 0; t < NTASK; t++) {
    struct spec *s = &tasks[t];
#pragma omp task firstprivate(t) depend(iterator(k = 0 : s->cnt[K_IN]), in : cell[s->list[K_IN][k]]) \
    depend(iterator(k = 0 : s->cnt[K_OUT]), out : cell[s->list[K_OUT][k]])                           \
    depend(iterator(k = 0 : s->cnt[K_INOUT]), inout : cell[s->list[K_INOUT][k]])                     \
    depend(iterator(k = 0 : s->cnt[K_MUTEX]), mutexinoutset : cell[s->list[K_MUTEX][k]])
    body(t);
  }
}

static void create_plain_form(void) {
  for (int t = 0; t < NTASK; t++) {
    int a = tasks[t].addr[0];
    switch (tasks[t].kind[0]) {
    case K_IN:
#pragma omp task firstprivate(t) depend(in : cell[a])
      body(t);
      break;
    case K_OUT:
#pragma omp task firstprivate(t) depend(out : cell[a])
      body(t);
      break;
    case K_INOUT:
#pragma omp task firstprivate(t) depend(inout : cell[a])
      body(t);
      break;
    default:
#pragma omp task firstprivate(t) depend(mutexinoutset : cell[a])
      body(t);
    }
  }
}

static void check_order(int seed, const char *form) {
  for (int i = 0; i < NTASK; i++)
    for (int di = 0; di < tasks[i].n; di++)
      for (int j = i + 1; j < NTASK; j++)
        for (int dj = 0; dj < tasks[j].n; dj++) {
          if (tasks[i].addr[di] != tasks[j].addr[dj])
            continue;
          int ki = tasks[i].kind[di], kj = tasks[j].kind[dj];
          int ok = (ki == K_IN && kj == K_IN) ||
                   (ki == K_MUTEX && kj == K_MUTEX ? end[i] < start[j] || end[j] < start[i]
                                                   : end[i] < start[j]);
          CHECK(ok, "seed %d, %s: task %d (%s) ran [%ld,%ld], task %d (%s) ran [%ld,%ld] on cell %d",
                seed, form, i, kname[ki], start[i], end[i], j, kname[kj], start[j], end[j],
                tasks[i].addr[di]);
        }
}

int main(void) {
  static const char *forms[] = {"iterator clauses", "one plain clause", "inside a task"};
  for (int seed = 1; seed <= NSEED; seed++)
    for (int form = 0; form < 3; form++) {
      rng = (unsigned)seed * 7919u + (unsigned)form;
      generate(form == 1 ? 1 : MAXD, form != 2);
      clock_ = 0;
#pragma omp parallel
#pragma omp single
      {
        if (form == 0)
          create_iterator_form();
        else if (form == 1)
          create_plain_form();
        else {
#pragma omp task
          create_iterator_form();
        }
      }
      CHECK_EQ("clock ticks (two per task)", clock_, 2 * NTASK);
      check_order(seed, forms[form]);
      for (int c = 0; c < NCELL; c++) {
        int want = 0;
        for (int t = 0; t < NTASK; t++)
          for (int d = 0; d < tasks[t].n; d++)
            want += tasks[t].addr[d] == c && tasks[t].kind[d] == K_MUTEX;
        CHECK(cell[c].msum == want, "seed %d, %s: cell %d got %d mutexinoutset updates, want %d",
              seed, forms[form], c, cell[c].msum, want);
      }
    }
  return conf_end();
}
