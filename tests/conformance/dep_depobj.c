/* depend objects: `#pragma omp depobj` initialised with each dependence
   kind, used in depend(depobj: ...) alone, several in one clause and
   together with plain clauses; update(in) turns a writer into a reader;
   destroy, then init again on another address; an array section in a
   depobj; a depobj on an undeferred task and on taskwait. Order is checked
   with stamps from one atomic counter. */
#include "check.h"

static int clock_;
static int stamp(void) {
  for (volatile int i = 0; i < 5000; i++)
    ;
  return __atomic_add_fetch(&clock_, 1, __ATOMIC_ACQ_REL);
}

int main(void) {
  int a = 0, b = 0, arr[32];
  (void)a, (void)b, (void)arr; /* named only by depend clauses */
  omp_depend_t wa, wb, rd, sec, mx;
#pragma omp parallel
#pragma omp single
  for (int r = 0; r < 10; r++) {
    int s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, m1 = 0, m2 = 0, s7 = 0, s8 = 0;
#pragma omp depobj(wa) depend(out : a)
#pragma omp depobj(wb) depend(inout : b)
#pragma omp depobj(rd) depend(inout : a)
#pragma omp depobj(rd) update(in)
#pragma omp depobj(sec) depend(inout : arr[4:8])
#pragma omp depobj(mx) depend(mutexinoutset : b)
#pragma omp task depend(depobj : wa, wb) shared(s1)
    s1 = stamp();
#pragma omp task depend(depobj : rd) shared(s2)
    s2 = stamp(); /* a reader of a (update(in)) */
#pragma omp task depend(depobj : rd) depend(in : b) shared(s3)
    s3 = stamp();
#pragma omp task depend(depobj : mx) shared(m1)
    m1 = stamp();
#pragma omp task depend(depobj : mx) shared(m2)
    m2 = stamp();
#pragma omp task depend(depobj : wa) shared(s4)
    s4 = stamp(); /* a writer of a, after both readers */
#pragma omp task depend(depobj : sec) shared(s5)
    s5 = stamp();
#pragma omp task depend(in : arr[4]) shared(s6)
    s6 = stamp(); /* arr[4] is the section's base address */
#pragma omp task if(0) depend(depobj : wb) shared(s7)
    s7 = stamp();
#pragma omp depobj(wa) destroy
#pragma omp depobj(wa) depend(inout : arr[0])
#pragma omp task depend(depobj : wa) shared(s8)
    s8 = stamp();
#pragma omp taskwait depend(depobj : wa)
    CHECK(s8 > 0, "round %d: taskwait depend(depobj) returned before its predecessor ran", r);
#pragma omp taskwait
    CHECK(s1 < s2 && s1 < s3, "round %d: readers of a (%d, %d) not after the writer (%d)", r, s2, s3, s1);
    CHECK(s3 > s1, "round %d: in(b) reader %d not after inout(b) writer %d", r, s3, s1);
    CHECK(m1 > s3 && m2 > s3 && m1 != m2,
          "round %d: mutexinoutset on b (%d, %d) not after the reader of b (%d)", r, m1, m2, s3);
    CHECK(s4 > s2 && s4 > s3, "round %d: writer of a (%d) not after its readers (%d, %d)", r, s4, s2, s3);
    CHECK(s6 > s5, "round %d: reader of arr[4] (%d) not after the section's writer (%d)", r, s6, s5);
    CHECK(s7 > m1 && s7 > m2, "round %d: if(0) depobj(inout b) task (%d) not after the set (%d, %d)", r,
          s7, m1, m2);
#pragma omp depobj(wa) destroy
#pragma omp depobj(wb) destroy
#pragma omp depobj(rd) destroy
#pragma omp depobj(sec) destroy
#pragma omp depobj(mx) destroy
  }
  return conf_end();
}
