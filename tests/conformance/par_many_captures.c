/* Regions whose outlined bodies take many arguments: clang passes each
   variable a region names as one more argument of its microtask, so a
   region naming 100 locals makes __kmpc_fork_call (and __kmpc_fork_teams)
   carry about 100 variable arguments. Every thread must see each variable
   at its own address with its own value (a weighted sum catches two swapped
   arguments; the address of the last one catches a shifted list), at the
   outer level, nested, in host teams and in a parallel region inside them;
   and with 65 and 66 variables named (one more or one fewer argument passed
   on the stack). */
#include "check.h"

#define D10(M, a) M(a##0) M(a##1) M(a##2) M(a##3) M(a##4) M(a##5) M(a##6) M(a##7) M(a##8) M(a##9)
#define D100(M) D10(M, 0) D10(M, 1) D10(M, 2) D10(M, 3) D10(M, 4) D10(M, 5) D10(M, 6) D10(M, 7) D10(M, 8) D10(M, 9)
#define D60(M) D10(M, 0) D10(M, 1) D10(M, 2) D10(M, 3) D10(M, 4) D10(M, 5)

/* v<i> = 3i + 1 (i = 1<i> - 100: 1##07 is 107), of three types. */
#define IDX(x) (1##x - 100)
#define DECL(x) long v##x = 3 * IDX(x) + 1;
/* Each variable weighted by its index + 1. */
#define TERM(x) +(IDX(x) + 1) * v##x
#define WANT(x) +(IDX(x) + 1) * (3 * IDX(x) + 1)

static long want_all(void) { return 0 D100(WANT); }
static long want_60(void) { return 0 D60(WANT); }

int main(void) {
  D100(DECL)
  long *last = &v99;
  long got[16];
  const long all = want_all();

  /* 100 variables and `got`, `last` at the outer level. */
  for (int i = 0; i < 16; i++) got[i] = 0;
#pragma omp parallel num_threads(4)
  {
    int t = omp_get_thread_num();
    got[t] = 0 D100(TERM);
    CHECK(&v99 == last, "outer thread %d: the 100th variable at %p, not %p", t, (void *)&v99, (void *)last);
  }
  for (int t = 0; t < 4; t++) CHECK_EQ("outer weighted sum", got[t], all);

  /* Nested: each of 2 outer threads opens a team of 3 naming them all. */
  omp_set_max_active_levels(2);
  for (int i = 0; i < 16; i++) got[i] = 0;
#pragma omp parallel num_threads(2)
  {
    int o = omp_get_thread_num();
#pragma omp parallel num_threads(3)
    {
      int t = omp_get_thread_num();
      got[o * 3 + t] = 0 D100(TERM);
      CHECK(&v99 == last, "nested thread %d.%d: the 100th variable at the wrong address", o, t);
      CHECK_EQ("nested level", omp_get_level(), 2);
    }
  }
  for (int t = 0; t < 6; t++) CHECK_EQ("nested weighted sum", got[t], all);

  /* 65 and 66 variables with `got`: one region's stack arguments odd in
     number, the other's even. */
  for (int i = 0; i < 16; i++) got[i] = 0;
#pragma omp parallel num_threads(4)
  {
    got[omp_get_thread_num()] = 0 D60(TERM) + v60 + v61 + v62 + v63 + v64;
  }
  for (int t = 0; t < 4; t++) CHECK_EQ("65 variables", got[t], want_60() + 3 * (60 + 61 + 62 + 63 + 64) + 5);
  for (int i = 0; i < 16; i++) got[i] = 0;
#pragma omp parallel num_threads(4)
  {
    got[omp_get_thread_num()] = 0 D60(TERM) + v60 + v61 + v62 + v63 + v64 + v65;
  }
  for (int t = 0; t < 4; t++) CHECK_EQ("66 variables", got[t], want_60() + 3 * (60 + 61 + 62 + 63 + 64 + 65) + 6);

  /* Host teams naming them all, and a parallel region in each team naming
     them all (libomp 14 may give that region one thread: a second thread's
     slot starts right). */
  for (int i = 0; i < 16; i++) got[i] = i % 2 ? all : 0;
  long team_sum[2] = {0, 0};
#pragma omp teams num_teams(2) thread_limit(2)
  {
    int tm = omp_get_team_num();
    team_sum[tm] = 0 D100(TERM);
#pragma omp parallel num_threads(2)
    {
      got[tm * 2 + omp_get_thread_num()] = 0 D100(TERM);
      CHECK(&v99 == last, "team %d thread %d: the 100th variable at the wrong address", tm, omp_get_thread_num());
    }
  }
  for (int tm = 0; tm < 2; tm++) CHECK_EQ("teams weighted sum", team_sum[tm], all);
  for (int t = 0; t < 4; t++) CHECK_EQ("parallel in teams weighted sum", got[t], all);
  return conf_end();
}
