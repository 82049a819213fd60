/* libomp entry points that compilers of other eras call, checked against
   libomp's behaviour:
   - __kmpc_threadprivate_register_vec + __kmpc_threadprivate_cached: a
     threadprivate array of 5 objects whose other threads' copies are built
     by the vector constructor, called once per copy with the count;
   - kmp_threadprivate_insert_private_data / kmp_threadprivate_insert: the
     calling thread's copy of a variable and libomp's record of it (global
     address, this thread's address, size), a copy per thread;
   - __kmpc_invoke_task_func: called in a region, it runs the region's
     outlined body again for the calling thread. */
#include "check.h"

typedef struct {
  int r1, flags, r2, r3;
  const char *psource;
} ident_t;
struct private_common {
  struct private_common *next, *link;
  void *gbl_addr, *par_addr;
  size_t cmn_size;
};
extern void __kmpc_threadprivate_register_vec(ident_t *, void *, void *(*)(void *, size_t),
                                              void *(*)(void *, void *, size_t), void (*)(void *, size_t), size_t);
extern void *__kmpc_threadprivate_cached(ident_t *, int, void *, size_t, void ***);
extern int __kmpc_global_thread_num(ident_t *);
extern int __kmpc_invoke_task_func(int);
extern void kmp_threadprivate_insert_private_data(int, void *, void *, size_t);
extern struct private_common *kmp_threadprivate_insert(int, void *, void *, size_t);

static ident_t loc = {0, 2, 0, 0, ";legacy;main;0;0;;"};

enum { N = 5 };
static int vec[N] = {1, 2, 3, 4, 5};
static void **vec_cache;
static int ctor_calls, ctor_bad;
static void *ctor_vec(void *p, size_t n) {
  __atomic_fetch_add(&ctor_calls, 1, __ATOMIC_RELAXED);
  if (n != N) __atomic_store_n(&ctor_bad, 1, __ATOMIC_RELAXED);
  for (size_t i = 0; i < n; i++) ((int *)p)[i] = 100 + (int)i;
  return p;
}

static long scalar = 42;
static long scalar_init = 7;
static _Thread_local int body_depth;
static int body_runs[8];

int main(void) {
  __kmpc_threadprivate_register_vec(&loc, vec, ctor_vec, NULL, NULL, N);
  int bad = 0, copies_other = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad, copies_other)
  {
    int gtid = __kmpc_global_thread_num(&loc);
    int *mine = __kmpc_threadprivate_cached(&loc, gtid, vec, sizeof vec, &vec_cache);
    if (mine != vec) {
      copies_other++;
      for (int i = 0; i < N; i++) bad += mine[i] != 100 + i;
    }
    for (int i = 0; i < N; i++) mine[i] += omp_get_thread_num();
  }
  CHECK(bad == 0, "%d elements of threads' copies not built by the vector constructor", bad);
  CHECK(!ctor_bad, "the vector constructor got a count other than %d", N);
  CHECK(ctor_calls == copies_other, "the vector constructor ran %d times for %d copies", ctor_calls, copies_other);

  kmp_threadprivate_insert_private_data(0, &scalar, &scalar_init, sizeof scalar);
  int rec_bad = 0;
#pragma omp parallel num_threads(3) reduction(+ : rec_bad)
  {
    int gtid = __kmpc_global_thread_num(&loc);
    struct private_common *r = kmp_threadprivate_insert(gtid, &scalar, &scalar_init, sizeof scalar);
    if (!r || r->gbl_addr != (void *)&scalar || r->cmn_size != sizeof scalar || !r->par_addr) {
      rec_bad++;
    } else if (r->par_addr != (void *)&scalar && *(long *)r->par_addr != scalar_init) {
      rec_bad++;
    }
  }
  CHECK(rec_bad == 0, "%d threads got a wrong threadprivate record", rec_bad);

#pragma omp parallel num_threads(2)
  {
    int tid = omp_get_thread_num();
    __atomic_fetch_add(&body_runs[tid], 1, __ATOMIC_RELAXED);
    if (++body_depth == 1) {
      int rc = __kmpc_invoke_task_func(__kmpc_global_thread_num(&loc));
      CHECK(rc == 1, "__kmpc_invoke_task_func returned %d", rc);
    }
    --body_depth;
  }
  CHECK(body_runs[0] == 2 && body_runs[1] == 2, "the region's body ran %d and %d times (want 2 each)", body_runs[0],
        body_runs[1]);
  return conf_end();
}
