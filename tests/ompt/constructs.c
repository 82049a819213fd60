/* The programs of the OMPT suite, one per construct family, chosen by
   argv[1]; each checks its own results (exit 1 on a wrong one) and makes
   the same callbacks, in kind and number, on every run, whatever the
   schedule: ompt_check.py compares their counts with the stock runtime's.

   usage: constructs parallel|nested|tasks|deps|taskgroup|untied|detach|
                     taskloop|locks|sync|loops|sections|reduction|ordered|
                     cancel|control */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failed;
#define CHECK(c)                                                \
  do {                                                          \
    if (!(c)) {                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      failed = 1;                                               \
    }                                                           \
  } while (0)

static void parallel_regions(void) {
  int n = 0;
#pragma omp parallel num_threads(2) reduction(+ : n)
  n += 1;
  CHECK(n == 2);
#pragma omp parallel num_threads(3)
  {
#pragma omp barrier
  }
#pragma omp parallel if (0)
  n++;
  CHECK(n == 3);
}

static void nested(void) {
  int n = 0;
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : n)
  {
#pragma omp parallel num_threads(2) reduction(+ : n)
    n += 1;
  }
  CHECK(n == 4);
}

static int fib(int k) {
  if (k < 2) return k;
  int a, b;
#pragma omp task shared(a)
  a = fib(k - 1);
#pragma omp task shared(b)
  b = fib(k - 2);
#pragma omp taskwait
  return a + b;
}

static void tasks(void) {
  int r = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  r = fib(10);
  CHECK(r == 55);
  int x = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task if (0) shared(x)
    x++;
#pragma omp task final(1) shared(x)
    {
#pragma omp task shared(x)
      x++;
    }
#pragma omp taskwait
  }
  CHECK(x == 2);
}

/* Dependences: a chain and a fan-in, created before any of them may run
   (the first task waits for the creator's go), so every edge exists. */
static void deps(void) {
  int a = 0, b = 0, go = 0, order[4] = {0}, k = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task depend(out : a) shared(a, go, order, k)
    {
      for (int i = 0; i < 20000; i++) {
        int g;
#pragma omp atomic read
        g = go;
        if (g) break;
        usleep(100);
      }
      a = 1;
      order[k++] = 1;
    }
#pragma omp task depend(in : a) depend(out : b) shared(a, b, order, k)
    {
      b = a + 1;
      order[k++] = 2;
    }
#pragma omp task depend(inout : a, b) shared(a, b, order, k)
    {
      a += b;
      order[k++] = 3;
    }
#pragma omp atomic write
    go = 1;
#pragma omp taskwait depend(in : a)
    CHECK(a == 3 && b == 2);
  }
  CHECK(order[0] == 1 && order[1] == 2 && order[2] == 3);
}

static void taskgroups(void) {
  int n = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp taskgroup
    {
      for (int i = 0; i < 8; i++) {
#pragma omp task shared(n)
        {
#pragma omp atomic
          n++;
        }
      }
    }
    CHECK(n == 8);
  }
}

static void untied(void) {
  int n = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task untied shared(n)
    {
#pragma omp taskgroup
      {
#pragma omp task shared(n)
        {
#pragma omp atomic
          n++;
        }
      }
#pragma omp atomic
      n++;
    }
#pragma omp taskwait
  }
  CHECK(n == 2);
}

static void detach(void) {
  int x = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    omp_event_handle_t ev;
    /* Fulfilled by its own body: always early (whether a fulfilment from
       outside comes before or after the body ends depends on timing). */
#pragma omp task detach(ev) shared(x)
    {
      x = 1;
      omp_fulfill_event(ev);
    }
#pragma omp task shared(x)
    x += 0;
#pragma omp taskwait
  }
  CHECK(x == 1);
}

static void taskloops(void) {
  long s = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp taskloop num_tasks(4) reduction(+ : s)
    for (int i = 0; i < 100; i++) s += i;
  }
  CHECK(s == 4950);
}

static void locks(void) {
  omp_lock_t l;
  omp_nest_lock_t nl;
  int n = 0;
  omp_init_lock(&l);
  omp_init_nest_lock(&nl);
#pragma omp parallel num_threads(2)
  {
    omp_set_lock(&l);
    n++;
    omp_unset_lock(&l);
    omp_set_nest_lock(&nl);
    omp_set_nest_lock(&nl);
    n++;
    omp_unset_nest_lock(&nl);
    omp_unset_nest_lock(&nl);
  }
  if (omp_test_lock(&l)) omp_unset_lock(&l);
  omp_destroy_lock(&l);
  omp_destroy_nest_lock(&nl);
  CHECK(n == 4);
}

static void synchronization(void) {
  int n = 0, m = 0, s = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp critical
    n++;
#pragma omp barrier
#pragma omp master
    m++;
#pragma omp masked filter(1)
    m++;
#pragma omp single
    s++;
#pragma omp flush
  }
  CHECK(n == 2 && m == 2 && s == 1);
}

static void loops(void) {
  long a = 0, b = 0, c = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(static) reduction(+ : a)
    for (int i = 0; i < 100; i++) a += i;
#pragma omp for schedule(dynamic, 7) reduction(+ : b) nowait
    for (int i = 0; i < 100; i++) b += i;
#pragma omp for schedule(guided) reduction(+ : c)
    for (int i = 0; i < 100; i++) c += i;
  }
  CHECK(a == 4950 && b == 4950 && c == 4950);
}

static void sections(void) {
  int x = 0, y = 0;
#pragma omp parallel num_threads(2)
#pragma omp sections
  {
#pragma omp section
    x = 1;
#pragma omp section
    y = 1;
  }
  CHECK(x == 1 && y == 1);
}

static void reductions(void) {
  long s = 0;
  double d = 0;
#pragma omp parallel num_threads(2) reduction(+ : s, d)
  {
    s += omp_get_thread_num() + 1;
    d += 0.5;
  }
  CHECK(s == 3 && d == 1.0);
}

static void ordered(void) {
  int seq[8], k = 0;
#pragma omp parallel for ordered schedule(dynamic) num_threads(2)
  for (int i = 0; i < 8; i++) {
#pragma omp ordered
    seq[k++] = i;
  }
  for (int i = 0; i < 8; i++) CHECK(seq[i] == i);
  int a[8] = {0};
#pragma omp parallel for ordered(1) num_threads(2)
  for (int i = 1; i < 8; i++) {
#pragma omp ordered depend(sink : i - 1)
    a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
  }
  CHECK(a[7] == 7);
}

/* Cancellation is on (OMP_CANCELLATION=true, set by the harness). Only a
   taskgroup's: which threads of a cancelled region reach its barriers
   depends on timing, on any runtime. */
static void cancel(void) {
  int ran = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp taskgroup
    {
#pragma omp task shared(ran)
      {
#pragma omp cancel taskgroup
      }
#pragma omp taskwait
      for (int i = 0; i < 4; i++) {
#pragma omp task shared(ran)
        {
#pragma omp atomic
          ran++;
        }
      }
    }
  }
  CHECK(ran == 0);
}

/* gcc 12's omp.h and libgomp have no omp_control_tool. */
static void control(void) {
#ifdef __clang__
  int rc = 0;
#pragma omp parallel num_threads(1)
  rc = omp_control_tool(omp_control_tool_flush, 1, NULL);
  CHECK(rc == 7);
#endif
}

int main(int argc, char** argv) {
  static const struct {
    const char* name;
    void (*run)(void);
  } progs[] = {{"parallel", parallel_regions}, {"nested", nested}, {"tasks", tasks}, {"deps", deps},
               {"taskgroup", taskgroups},      {"untied", untied}, {"detach", detach}, {"taskloop", taskloops},
               {"locks", locks},               {"sync", synchronization},     {"loops", loops},   {"sections", sections},
               {"reduction", reductions},      {"ordered", ordered}, {"cancel", cancel}, {"control", control}};
  if (argc != 2) {
    fprintf(stderr, "usage: constructs NAME\n");
    return 2;
  }
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
    if (strcmp(argv[1], progs[i].name) == 0) {
      progs[i].run();
      return failed;
    }
  fprintf(stderr, "constructs: no program %s\n", argv[1]);
  return 2;
}
