/* depend: out -> in -> inout chains run in order; readers of one address run
   after the writer before them and before the writer after them;
   mutexinoutset tasks never overlap and all finish before a later reader;
   depend objects (depobj) and array sections name addresses; an undeferred
   task and a taskwait with depend clauses wait for their predecessors only;
   depend iterators, of two iterations and of none. */
#include "check.h"

static int seq;
static int next_seq(void) { return __atomic_add_fetch(&seq, 1, __ATOMIC_ACQ_REL); }

static void spin_a_little(void) {
  for (volatile int i = 0; i < 20000; i++)
    ;
}

/* Four tasks whose depend clauses iterate j over [0, k). */
__attribute__((noipa)) static void iterator_tasks(int *p, int k, int *ran) {
#pragma omp task depend(iterator(j = 0 : k), out : p[j]) shared(ran)
  {
    spin_a_little();
    for (int j = 0; j < k; j++) p[j] = 5;
    __atomic_add_fetch(ran, 1, __ATOMIC_RELAXED);
  }
#pragma omp task depend(iterator(j = 0 : k), in : p[j]) depend(iterator(j = 0 : k), inout : p[j + 2]) shared(ran)
  {
    for (int j = 0; j < k; j++)
      if (p[j] != 5) CHECK(0, "a reader of p[0:%d] ran before its writer", k);
    __atomic_add_fetch(ran, 1, __ATOMIC_RELAXED);
  }
#pragma omp task depend(iterator(j = 0 : k), mutexinoutset : p[j]) shared(ran)
  __atomic_add_fetch(ran, 1, __ATOMIC_RELAXED);
#pragma omp task depend(iterator(j = 0 : k), mutexinoutset : p[j]) depend(iterator(j = 0 : k), out : p[j + 2]) shared(ran)
  __atomic_add_fetch(ran, 1, __ATOMIC_RELAXED);
}

int main(void) {
#pragma omp parallel num_threads(4)
#pragma omp single
  {
    for (int rep = 0; rep < 20; rep++) {
      int x = 0, a = 0, r1 = 0, r2 = 0, r3 = 0, w2 = 0;
      (void)x; /* named only by depend clauses */
      seq = 0;
#pragma omp task depend(out : x) shared(a)
      {
        spin_a_little();
        a = next_seq();
      }
#pragma omp task depend(in : x) shared(r1)
      {
        spin_a_little();
        r1 = next_seq();
      }
#pragma omp task depend(in : x) shared(r2)
      r2 = next_seq();
#pragma omp task depend(in : x) shared(r3)
      r3 = next_seq();
#pragma omp task depend(inout : x) shared(w2)
      w2 = next_seq();
#pragma omp taskwait
      CHECK(a == 1, "rep %d: the writer ran %d-th, want first", rep, a);
      CHECK(r1 > a && r2 > a && r3 > a && w2 > r1 && w2 > r2 && w2 > r3,
            "rep %d: order writer %d, readers %d %d %d, second writer %d", rep, a, r1, r2, r3, w2);
    }

    /* mutexinoutset: mutually exclusive, then a reader after all of them */
    int active = 0, overlap = 0, done = 0, reader_saw = -1, y = 0;
    (void)y;
    for (int i = 0; i < 8; i++) {
#pragma omp task depend(mutexinoutset : y) shared(active, overlap, done)
      {
        if (__atomic_add_fetch(&active, 1, __ATOMIC_ACQ_REL) != 1)
          overlap = 1;
        spin_a_little();
        __atomic_sub_fetch(&active, 1, __ATOMIC_ACQ_REL);
        __atomic_add_fetch(&done, 1, __ATOMIC_ACQ_REL);
      }
    }
#pragma omp task depend(in : y) shared(reader_saw, done)
    reader_saw = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
#pragma omp taskwait
    CHECK(!overlap, "two mutexinoutset tasks overlapped");
    CHECK_EQ("mutexinoutset tasks done when the reader after them ran", reader_saw, 8);

    /* depend objects and array sections */
    int arr[16] = {0};
    (void)arr;
    omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : arr[0])
    int first = 0, second = 0;
    seq = 0;
#pragma omp task depend(depobj : obj) shared(first)
    {
      spin_a_little();
      first = next_seq();
    }
#pragma omp task depend(in : arr[0:4]) shared(second)
    second = next_seq();
#pragma omp taskwait
#pragma omp depobj(obj) destroy
    CHECK(first == 1 && second == 2, "depobj writer ran %d-th, the reader of arr[0:4] %d-th", first, second);

    /* an undeferred task waits for its predecessors */
    int z = 0, producer = 0, consumer_saw = 0;
    (void)z;
#pragma omp task depend(out : z) shared(producer)
    {
      spin_a_little();
      spin_a_little();
      producer = 42;
    }
#pragma omp task if (0) depend(in : z) shared(consumer_saw, producer)
    consumer_saw = producer;
    CHECK_EQ("if(0) task with depend(in) saw its producer's result", consumer_saw, 42);

    /* taskwait depend waits for the named predecessor */
    int w = 0, val = 0;
    (void)w;
#pragma omp task depend(out : w) shared(val)
    {
      spin_a_little();
      val = 7;
    }
#pragma omp taskwait depend(in : w)
    CHECK_EQ("taskwait depend(in) saw its producer's result", val, 7);
#pragma omp taskwait

    /* depend iterators, of two iterations and of none (gcc then passes a
       total of 0 with per-kind counts that are not: the total rules) */
    int p[4] = {0, 0, 0, 0}, ran = 0;
    iterator_tasks(p, 2, &ran);
#pragma omp taskwait
    iterator_tasks(p, -1, &ran);
#pragma omp taskwait
    CHECK_EQ("tasks with iterator depend clauses that ran", ran, 8);
  }
  return conf_end();
}
