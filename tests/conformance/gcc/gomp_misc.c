/* The rest of gcc's entry points: named and unnamed critical sections and
   the lock for atomics gcc cannot do lock-free (long double); single with a
   large copyprivate block; host teams (GOMP_teams_reg); cancellation of a
   loop, sections, a taskgroup (also from the tasks of a loop's task
   reduction: the taskgroup around the loop) and a region (with OMP_CANCELLATION=true in
   CONF_EXPECT_CANCEL=1, and as no-ops without it); the error directive at
   execution time (a warning lets the program go on; fatal ends it with exit
   status 1, checked in a child process); the allocate clause (GOMP_alloc);
   lastprivate(conditional:); the
   nestable-lock routines at libgomp's first version node (OMP_1.0). */
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

struct block {
  int v[100];
};

/* The lock routines of libgomp's first ABI (OMP_1.0, gcc 4.3 and older),
   whose nestable lock is 8 bytes ({lock, count}); libgomp 3.0 (OMP_3.0) made
   it 16. A binary built then binds to these versions. */
typedef struct {
  int lock, count;
} nest_lock_25;
void nest_init_25(nest_lock_25 *);
void nest_set_25(nest_lock_25 *);
int nest_test_25(nest_lock_25 *);
void nest_unset_25(nest_lock_25 *);
void nest_destroy_25(nest_lock_25 *);
__asm__(".symver nest_init_25, omp_init_nest_lock@OMP_1.0\n"
        ".symver nest_set_25, omp_set_nest_lock@OMP_1.0\n"
        ".symver nest_test_25, omp_test_nest_lock@OMP_1.0\n"
        ".symver nest_unset_25, omp_unset_nest_lock@OMP_1.0\n"
        ".symver nest_destroy_25, omp_destroy_nest_lock@OMP_1.0");

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "fatal")) {
#pragma omp error at(execution) severity(fatal) message("stop here")
    return 0; /* not reached */
  }
  /* the fatal error directive, in a child process (before any thread exists) */
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    execl("/proc/self/exe", argv[0], "fatal", (char *)NULL);
    _exit(99);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1,
        "error severity(fatal): the child ended with status %#x, want exit status 1", status);

#pragma omp error at(execution) severity(warning) message("a warning from the error directive; the program goes on")

  long plain = 0, named = 0;
  long double ld = 0;
#pragma omp parallel num_threads(4)
  for (int i = 0; i < 1000; i++) {
#pragma omp critical
    plain++;
#pragma omp critical(gomp_misc_name)
    named += 2;
#pragma omp atomic
    ld += 0.5L;
  }
  CHECK(plain == 4000 && named == 8000, "critical: %ld and %ld, want 4000 and 8000", plain, named);
  CHECK(ld == 2000.0L, "atomic on long double: %Lg, want 2000", ld);

  int copied_ok = 0;
#pragma omp parallel num_threads(4) reduction(+ : copied_ok)
  {
    struct block b;
#pragma omp single copyprivate(b)
    for (int i = 0; i < 100; i++)
      b.v[i] = i * i;
    int ok = 1;
    for (int i = 0; i < 100; i++)
      ok &= b.v[i] == i * i;
    copied_ok += ok;
  }
  CHECK_EQ("threads that received the copyprivate block", copied_ok, 4);

  int teams_seen[8] = {0}, nteams = 0;
#pragma omp teams num_teams(3)
  {
    int t = omp_get_team_num();
    if (t >= 0 && t < 8)
      __atomic_fetch_add(&teams_seen[t], 1, __ATOMIC_RELAXED);
    if (t == 0)
      nteams = omp_get_num_teams();
  }
  CHECK(nteams == 3 && teams_seen[0] == 1 && teams_seen[1] == 1 && teams_seen[2] == 1,
        "teams: %d teams, team numbers seen %d %d %d", nteams, teams_seen[0], teams_seen[1], teams_seen[2]);

  /* cancellation */
  long want_cancel = conf_env_long("CONF_EXPECT_CANCEL", 0);
  CHECK_EQ("omp_get_cancellation", omp_get_cancellation(), want_cancel);
  int iters = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp for schedule(dynamic)
    for (int i = 0; i < 100000; i++) {
      __atomic_fetch_add(&iters, 1, __ATOMIC_RELAXED);
#pragma omp cancel for if (i == 10)
#pragma omp cancellation point for
    }
  }
  if (want_cancel)
    CHECK(iters < 100000, "a cancelled loop ran all %d iterations", iters);
  else
    CHECK_EQ("iterations of a loop whose cancel is a no-op", iters, 100000);

  /* more cancelled dynamic loops in one region than the runtime keeps loops
     in flight: a thread that cancels leaves the loop without asking for
     another chunk */
  int rounds_done = 0;
#pragma omp parallel num_threads(4) reduction(+ : rounds_done)
  for (int round = 0; round < 20; round++) {
#pragma omp for schedule(dynamic)
    for (int i = 0; i < 1000; i++) {
#pragma omp cancel for if (i == 10)
    }
    rounds_done++;
  }
  CHECK_EQ("rounds of a cancelled dynamic loop", rounds_done, 4 * 20);

  int after = 0, tasks_ran = 0;
#pragma omp parallel num_threads(4) shared(after)
  {
#pragma omp single
    {
#pragma omp taskgroup
      {
        for (int i = 0; i < 1000; i++) {
#pragma omp task shared(tasks_ran)
          {
            if (i == 0) {
#pragma omp cancel taskgroup
            }
#pragma omp cancellation point taskgroup
            __atomic_fetch_add(&tasks_ran, 1, __ATOMIC_RELAXED);
          }
        }
      }
    }
#pragma omp cancel parallel if (omp_get_thread_num() == 0)
#pragma omp cancellation point parallel
    __atomic_fetch_add(&after, 1, __ATOMIC_RELAXED);
  }
  if (want_cancel) {
    CHECK(tasks_ran < 1000, "a cancelled taskgroup ran all %d tasks", tasks_ran);
    CHECK(after < 4, "all %d threads went past a cancelled region's cancellation point", after);
  } else {
    CHECK(tasks_ran == 1000 && after == 4, "without cancellation: %d tasks, %d threads", tasks_ran, after);
  }

  /* cancel taskgroup in a task of a worksharing loop's task reduction
     cancels the taskgroup around the loop (libgomp's reading): a task
     created in that taskgroup after the loop is discarded */
  int red = 0, late_ran = 0;
#pragma omp parallel num_threads(4) shared(late_ran)
#pragma omp taskgroup
  {
    int mine = 0;
#pragma omp for reduction(task, + : red)
    for (int i = 0; i < 64; ++i) {
      red++;
      mine = 1;
#pragma omp task in_reduction(+ : red)
      {
        red += 0;
#pragma omp cancel taskgroup
      }
    }
#pragma omp task firstprivate(mine) shared(late_ran)
    if (mine) __atomic_fetch_add(&late_ran, 1, __ATOMIC_RELAXED);
  }
  CHECK_EQ("task reduction of a loop whose tasks cancel their taskgroup", red, 64);
  if (want_cancel)
    CHECK_EQ("tasks created after the loop in a taskgroup its reduction tasks cancelled", late_ran, 0);
  else
    CHECK(late_ran >= 1, "without cancellation no task after the loop ran (%d)", late_ran);

  int sec = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp sections
    {
#pragma omp section
      {
#pragma omp cancel sections
      }
#pragma omp section
      __atomic_fetch_add(&sec, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK(sec <= 1, "sections with a cancel: the other section ran %d times", sec);

  /* the allocate clause: each thread's private copy comes from the allocator
     (GOMP_alloc / GOMP_free), aligned for its type */
  long priv = 0, allocated_ok = 0;
#pragma omp parallel num_threads(4) private(priv) allocate(omp_low_lat_mem_alloc : priv) \
    reduction(+ : allocated_ok)
  {
    priv = omp_get_thread_num() + 1;
    allocated_ok += ((uintptr_t)&priv % _Alignof(long) == 0) && priv == omp_get_thread_num() + 1;
  }
  CHECK_EQ("threads whose allocate-clause copy was aligned and private", allocated_ok, 4);

  /* the OMP_1.0 nestable lock: nesting counts, mutual exclusion */
  nest_lock_25 old;
  long guarded = 0;
  int depth_ok = 1;
  nest_init_25(&old);
#pragma omp parallel num_threads(4)
  for (int i = 0; i < 200; i++) {
    nest_set_25(&old);
    int d = nest_test_25(&old); /* held by this thread: the new depth */
    if (d != 2)
      depth_ok = 0;
    guarded++;
    nest_unset_25(&old);
    nest_unset_25(&old);
  }
  nest_destroy_25(&old);
  CHECK(depth_ok && guarded == 800, "omp_*_nest_lock@OMP_1.0: depth ok %d, %ld of 800 increments", depth_ok,
        guarded);

  /* lastprivate(conditional:): the value of the last iteration that assigned it */
  int lastset = -1;
#pragma omp parallel for num_threads(4) schedule(dynamic, 3) lastprivate(conditional : lastset)
  for (int i = 0; i < 1000; i++)
    if (i % 7 == 3)
      lastset = i;
  CHECK_EQ("lastprivate(conditional:)", lastset, 997);
  return conf_end();
}
