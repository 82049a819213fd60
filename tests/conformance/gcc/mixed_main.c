/* One process, two compilers, one runtime: this gcc-built program (linked to
   libgomp.so.1) calls a clang-built library (linked to libomp.so.5), and
   both open parallel regions and create tasks. On Bobbin (preloaded, or
   both names from the compat directory) they must share one runtime:
   - one worker pool: thread i of an outermost team that fits the machine
     runs on worker i, so the gcc region's and the clang region's thread i
     are one kernel thread (a wider team runs as fibers: par_wide_teams.c);
   - one region tree: a clang region opened inside a gcc region is nested in
     it (omp_get_level 2, the gcc thread as its ancestor);
   - tasks of both kinds complete under both kinds of taskwait;
   - both halves see the same bobbin_version and omp_get_thread_num.
   On stock runtimes (libgomp and libomp side by side) these checks fail:
   that run is registered as an expected failure. */
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "mixed.h"

int main(void) {
  /* one worker pool */
  long gcc_tid[MIXED_MAXT] = {0};
  int width = omp_get_num_procs() < 4 ? omp_get_num_procs() : 4;
  for (int rep = 0; rep < 3; rep++) {
#pragma omp parallel num_threads(width)
    gcc_tid[omp_get_thread_num()] = (long)syscall(SYS_gettid);
    struct mixed_view v;
    memset(&v, 0, sizeof v);
    mixed_lib_region(width, &v);
    CHECK(v.team_size == width && v.level == 1, "clang region from sequential gcc code: %d threads at level %d",
          v.team_size, v.level);
    CHECK_EQ("sum of the clang region's tasks", v.task_sum, 5050);
    for (int t = 0; t < width; t++)
      CHECK(gcc_tid[t] == v.kernel_tid[t],
            "thread %d of the gcc region ran on kernel thread %ld, of the clang region on %ld: two worker pools", t,
            gcc_tid[t], v.kernel_tid[t]);
  }

  /* one region tree: a clang region nested in a gcc one */
  omp_set_max_active_levels(2);
  struct mixed_view inner[2];
  memset(inner, 0, sizeof inner);
#pragma omp parallel num_threads(2)
  mixed_lib_region(2, &inner[omp_get_thread_num()]);
  for (int t = 0; t < 2; t++) {
    CHECK(inner[t].level == 2 && inner[t].ancestor == t,
          "clang region inside gcc thread %d: level %d, ancestor %d (want 2 and %d)", t, inner[t].level,
          inner[t].ancestor, t);
    CHECK_EQ("tasks of a nested clang region", inner[t].task_sum, 5050);
  }

  /* gcc tasks that create clang tasks and wait for them */
  long total = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
  {
    for (int k = 0; k < 20; k++) {
#pragma omp task shared(total)
      __atomic_fetch_add(&total, mixed_lib_tasks(10), __ATOMIC_RELAXED);
    }
#pragma omp taskwait
  }
  CHECK_EQ("gcc tasks around clang tasks", total, 20 * 55);

  /* one runtime as both halves see it */
  struct mixed_identity lib;
  mixed_lib_identity(&lib);
  void *mine = dlsym(RTLD_DEFAULT, "bobbin_version");
  void *my_api = (void *)(uintptr_t)&omp_get_thread_num;
  Dl_info a, b;
  CHECK(mine && lib.bobbin_version == mine, "bobbin_version: %p here, %p in the clang library", mine,
        lib.bobbin_version);
  CHECK(dladdr(my_api, &a) && dladdr(lib.omp_get_thread_num, &b) && a.dli_fbase == b.dli_fbase,
        "omp_get_thread_num comes from %s here and from %s in the clang library",
        dladdr(my_api, &a) ? a.dli_fname : "?", dladdr(lib.omp_get_thread_num, &b) ? b.dli_fname : "?");
  return conf_end();
}
