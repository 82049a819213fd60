/* Dependences on undeferred tasks and on taskwait (clang 14:
   __kmpc_omp_wait_deps): `task if(0) depend(...)` starts only after every
   earlier sibling it depends on has completed (writers before a reader,
   readers and the writer before a writer, a mutexinoutset set), sees their
   results, and counts as done for later siblings; no earlier sibling on
   its addresses, or one long finished, does not block; the same inside an
   explicit task (that task's own children) and from every thread at once
   (each implicit task's own children); `taskwait depend(...)` likewise. */
#include "check.h"

static void work(void) {
  for (volatile int i = 0; i < 30000; i++)
    ;
}

static void rounds(const char *where, int n) {
  for (int r = 0; r < n; r++) {
    int a = 0, b = 0, c = 0, readers = 0, set = 0, late = 0, fresh = 0;
    (void)late; /* named only by depend clauses */
#pragma omp task depend(out : a) shared(a)
    {
      work();
      a = 1;
    }
#pragma omp task depend(out : b) shared(b)
    {
      work();
      b = 2;
    }
    for (int i = 0; i < 3; i++) {
#pragma omp task depend(in : c) shared(readers)
      {
        work();
        __atomic_fetch_add(&readers, 1, __ATOMIC_RELAXED);
      }
    }
    for (int i = 0; i < 3; i++) {
#pragma omp task depend(mutexinoutset : late) shared(set)
      {
        work();
        __atomic_fetch_add(&set, 1, __ATOMIC_RELAXED);
      }
    }
    int sa = -1, sb = -1, sr = -1;
#pragma omp task if(0) depend(in : a, b) shared(a, b, sa, sb)
    sa = a, sb = b;
    CHECK(sa == 1 && sb == 2, "%s round %d: if(0) reader saw a=%d b=%d, want 1 2", where, r, sa, sb);
#pragma omp task if(0) depend(out : c) shared(readers, sr, c)
    sr = __atomic_load_n(&readers, __ATOMIC_RELAXED), c = 3;
    CHECK(sr == 3, "%s round %d: if(0) writer ran after %d of 3 readers", where, r, sr);
#pragma omp task if(0) depend(inout : late) shared(set, sr)
    sr = __atomic_load_n(&set, __ATOMIC_RELAXED);
    CHECK(sr == 3, "%s round %d: if(0) inout ran after %d of 3 mutexinoutset tasks", where, r, sr);
#pragma omp task if(0) depend(inout : fresh) shared(fresh)
    fresh = 1; /* no earlier sibling names it */
    int after = -1;
#pragma omp task depend(inout : c) shared(c, after)
    {
      work();
      after = c, c = 4;
    }
#pragma omp taskwait depend(in : c)
    CHECK(after == 3 && c == 4, "%s round %d: taskwait depend(in: c) returned before the writer ran", where,
          r);
    int d = 0;
#pragma omp task depend(inout : d) shared(d)
    {
      work();
      d = 7;
    }
#pragma omp taskwait depend(out : d)
    CHECK(d == 7, "%s round %d: taskwait depend(out: d) returned before the writer ran", where, r);
#pragma omp taskwait
    CHECK(fresh == 1 && a == 1, "%s round %d: lost results", where, r);
  }
}

int main(void) {
#pragma omp parallel
  {
#pragma omp single
    rounds("single", 10);
#pragma omp single
#pragma omp task
    rounds("explicit task", 10);
    rounds("every thread", 3);
  }
  return conf_end();
}
