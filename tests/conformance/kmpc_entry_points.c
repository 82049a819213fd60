/* libomp entry points that compilers other than clang 14 (Intel's, flang,
 * clang 19) call, called directly: the kmpc lock routines, barrier with a
 * master block, scope, task ids, proxy tasks, task parts and threadprivate
 * without a cache. Then libomp 19's additions (sections_init/next_section/
 * end_sections, fork_call_if, taskwait_deps_51, copyprivate_light,
 * dispatch_deinit, omp_in_explicit_task), found with dlsym so that the
 * program also runs on a libomp that lacks them (libomp 14: that part is
 * skipped and says so).
 */
#include "check.h"

typedef struct kmpc_ident kmpc_ident;
#define L ((kmpc_ident *)0)
int __kmpc_global_thread_num(kmpc_ident *);
void __kmpc_init_lock(kmpc_ident *, int, void **);
void __kmpc_set_lock(kmpc_ident *, int, void **);
void __kmpc_unset_lock(kmpc_ident *, int, void **);
int __kmpc_test_lock(kmpc_ident *, int, void **);
void __kmpc_destroy_lock(kmpc_ident *, int, void **);
void __kmpc_init_nest_lock(kmpc_ident *, int, void **);
void __kmpc_set_nest_lock(kmpc_ident *, int, void **);
void __kmpc_unset_nest_lock(kmpc_ident *, int, void **);
int __kmpc_test_nest_lock(kmpc_ident *, int, void **);
void __kmpc_destroy_nest_lock(kmpc_ident *, int, void **);
int __kmpc_barrier_master(kmpc_ident *, int);
void __kmpc_end_barrier_master(kmpc_ident *, int);
int __kmpc_barrier_master_nowait(kmpc_ident *, int);
void __kmpc_scope(kmpc_ident *, int, void *);
void __kmpc_end_scope(kmpc_ident *, int, void *);
unsigned long long __kmpc_get_taskid(void);
unsigned long long __kmpc_get_parent_taskid(void);
void *__kmpc_threadprivate(kmpc_ident *, int, void *, size_t);

#define ITERS 2000

static void locks(void) {
  omp_lock_t lock;
  omp_nest_lock_t nest;
  /* one counter per lock: the two locks do not exclude each other (one
     shared counter made this test racy: 1 to 230 increments lost in 1 run
     of 4-40 beside three others, on libomp's runtime as on Bobbin) */
  long counter = 0, nest_counter = 0;
  int gtid = __kmpc_global_thread_num(L);
  __kmpc_init_lock(L, gtid, (void **)&lock);
  __kmpc_init_nest_lock(L, gtid, (void **)&nest);
#pragma omp parallel
  {
    int me = __kmpc_global_thread_num(L);
    for (int k = 0; k < ITERS; k++) {
      __kmpc_set_lock(L, me, (void **)&lock);
      counter++;
      __kmpc_unset_lock(L, me, (void **)&lock);
      __kmpc_set_nest_lock(L, me, (void **)&nest);
      int depth = __kmpc_test_nest_lock(L, me, (void **)&nest);
      CHECK(depth == 2, "__kmpc_test_nest_lock by the owner: %d, want 2", depth);
      nest_counter++;
      __kmpc_unset_nest_lock(L, me, (void **)&nest);
      __kmpc_unset_nest_lock(L, me, (void **)&nest);
    }
  }
  CHECK_EQ("counter under the kmpc simple lock", counter, (long)ITERS * omp_get_max_threads());
  CHECK_EQ("counter under the kmpc nestable lock", nest_counter, (long)ITERS * omp_get_max_threads());
  CHECK(__kmpc_test_lock(L, gtid, (void **)&lock) == 1, "__kmpc_test_lock of a free lock failed");
  CHECK(__kmpc_test_lock(L, gtid, (void **)&lock) == 0, "__kmpc_test_lock of a held lock succeeded");
  omp_unset_lock(&lock); /* the omp_* routines share the storage */
  __kmpc_destroy_lock(L, gtid, (void **)&lock);
  __kmpc_destroy_nest_lock(L, gtid, (void **)&nest);
}

/* barrier_master: the others stay in the barrier until thread 0 ends its
   block, so they all see what it wrote there. */
static void barrier_master(void) {
  int flag = 0, seen_late = 0, masters = 0;
#pragma omp parallel
  {
    int gtid = __kmpc_global_thread_num(L);
    for (int round = 1; round <= 20; round++) {
      if (__kmpc_barrier_master(L, gtid)) {
        __atomic_fetch_add(&masters, 1, __ATOMIC_RELAXED);
        for (volatile int spin = 0; spin < 20000; spin++) {
        }
        __atomic_store_n(&flag, round, __ATOMIC_RELAXED);
        __kmpc_end_barrier_master(L, gtid);
      } else if (__atomic_load_n(&flag, __ATOMIC_RELAXED) != round) {
        __atomic_store_n(&seen_late, 1, __ATOMIC_RELAXED);
      }
#pragma omp barrier
      if (__kmpc_barrier_master_nowait(L, gtid))
        __atomic_fetch_add(&masters, 1, __ATOMIC_RELAXED);
      __kmpc_scope(L, gtid, NULL);
      __kmpc_end_scope(L, gtid, NULL);
    }
  }
  CHECK(!seen_late, "a thread left __kmpc_barrier_master before thread 0 called __kmpc_end_barrier_master");
  CHECK_EQ("master blocks run", masters, 40);
}

/* libomp's release builds give every task the id ~0; the initial task's
   parent is 0. */
static void task_ids(void) {
  CHECK(__kmpc_get_taskid() == ~0ull, "__kmpc_get_taskid in the initial task: %llx", __kmpc_get_taskid());
  CHECK(__kmpc_get_parent_taskid() == 0, "__kmpc_get_parent_taskid in the initial task: %llx",
        __kmpc_get_parent_taskid());
#pragma omp parallel
#pragma omp single
  {
#pragma omp task
    CHECK(__kmpc_get_parent_taskid() == ~0ull, "__kmpc_get_parent_taskid in a task: %llx",
          __kmpc_get_parent_taskid());
  }
}

static int tp_value = 7;
static void threadprivate_uncached(void) {
  int bad = 0;
#pragma omp parallel
  {
    int gtid = __kmpc_global_thread_num(L);
    int *mine = __kmpc_threadprivate(L, gtid, &tp_value, sizeof tp_value);
    if (*mine != 7)
      __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
    *mine = 100 + omp_get_thread_num();
#pragma omp barrier
    if (__kmpc_threadprivate(L, gtid, &tp_value, sizeof tp_value) != mine || *mine != 100 + omp_get_thread_num())
      __atomic_store_n(&bad, 2, __ATOMIC_RELAXED);
  }
  CHECK(!bad, "__kmpc_threadprivate: a thread's copy was not its own (%d)", bad);
}

/* ---- libomp 19's additions, through dlsym -------------------------------- */

typedef void (*microtask)(int *, int *, ...);
static int region_threads;
static void body(int *gtid, int *tid, void *arg) {
  (void)gtid;
  (void)tid;
  __atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED);
  if (omp_get_thread_num() == 0)
    region_threads = omp_get_num_threads();
}

static void llvm19(void) {
  int (*sections_init)(kmpc_ident *, int) = dlsym(RTLD_DEFAULT, "__kmpc_sections_init");
  int (*next_section)(kmpc_ident *, int, int) = dlsym(RTLD_DEFAULT, "__kmpc_next_section");
  void (*end_sections)(kmpc_ident *, int) = dlsym(RTLD_DEFAULT, "__kmpc_end_sections");
  void (*fork_call_if)(kmpc_ident *, int, microtask, int, void *) = dlsym(RTLD_DEFAULT, "__kmpc_fork_call_if");
  void *(*copyprivate_light)(kmpc_ident *, int, void *) = dlsym(RTLD_DEFAULT, "__kmpc_copyprivate_light");
  int (*in_explicit_task)(void) = dlsym(RTLD_DEFAULT, "omp_in_explicit_task");
  void (*dispatch_deinit)(kmpc_ident *, int) = dlsym(RTLD_DEFAULT, "__kmpc_dispatch_deinit");
  if (!sections_init || !next_section || !end_sections || !fork_call_if || !copyprivate_light || !in_explicit_task ||
      !dispatch_deinit) {
    printf("libomp 19 entry points not in this runtime: that part skipped\n");
    return;
  }
  enum { NSECT = 7 };
  int runs[NSECT] = {0};
  for (int round = 0; round < 50; round++) {
#pragma omp parallel
    {
      int gtid = __kmpc_global_thread_num(L);
      sections_init(L, gtid);
      for (int s; (s = next_section(L, gtid, NSECT)) < NSECT;) {
        if (s < 0)
          break;
        __atomic_fetch_add(&runs[s], 1, __ATOMIC_RELAXED);
      }
      end_sections(L, gtid);
#pragma omp barrier
      dispatch_deinit(L, gtid);
    }
  }
  for (int s = 0; s < NSECT; s++)
    CHECK(runs[s] == 50, "section %d ran %d times in 50 constructs", s, runs[s]);

  int hits = 0;
  fork_call_if(L, 1, (microtask)body, 1, &hits);
  CHECK(hits == region_threads && hits == omp_get_max_threads(), "fork_call_if(1): %d calls, team of %d", hits,
        region_threads);
  hits = 0;
  fork_call_if(L, 1, (microtask)body, 0, &hits);
  CHECK(hits == 1 && region_threads == 1, "fork_call_if(0): %d calls, team of %d", hits, region_threads);

  int bad = 0;
#pragma omp parallel
  {
    int gtid = __kmpc_global_thread_num(L);
    int mine = omp_get_thread_num() == 1 ? 4242 : -1;
    int *from = copyprivate_light(L, gtid, omp_get_thread_num() == 1 ? &mine : NULL);
    if (omp_get_num_threads() > 1 && *from != 4242)
      __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
#pragma omp barrier
  }
  CHECK(!bad, "__kmpc_copyprivate_light did not hand every thread the publisher's pointer");

  CHECK(!in_explicit_task(), "omp_in_explicit_task in the initial task");
  int in_task = 0;
#pragma omp parallel
#pragma omp single
  {
    CHECK(!in_explicit_task(), "omp_in_explicit_task in an implicit task");
#pragma omp task shared(in_task)
    in_task = in_explicit_task();
  }
  CHECK(in_task == 1, "omp_in_explicit_task in an explicit task: %d", in_task);
}

int main(void) {
  locks();
  barrier_master();
  task_ids();
  threadprivate_uncached();
  llvm19();
  return conf_end();
}
