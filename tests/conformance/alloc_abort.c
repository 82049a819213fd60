/* fallback=abort_fb ends the program when an allocation fails (spec 6.2);
 * here the pool is spent. The program runs itself as a child, which must end
 * abnormally after the allocation and before the line that follows it (stock
 * runtimes abort, or exit with an error status). Bobbin aborts (SIGABRT) and
 * says why in exactly one line first. */
#include "child.h"

#include <signal.h>

static int child_main(void) {
  omp_alloctrait_t t[] = {{omp_atk_pool_size, 1024}, {omp_atk_fallback, omp_atv_abort_fb}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 2, t);
  void *ok = omp_alloc(512, a);
  printf("first block %s\n", ok ? "allocated" : "NULL");
  fflush(stdout);
  void *p = omp_alloc(2048, a); /* past the pool: abort */
  printf("abort_fb returned %p\n", p);
  return 0;
}

int main(void) {
  if (*conf_child_role()) return child_main();
  const char *env[] = {NULL};
  int status = 0;
  char *out = conf_run_child("abort", env, &status);
  CHECK(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0),
        "the child ended normally (status %#x): %s", status, out);
  CHECK(conf_count_lines(out, "first block allocated") == 1, "the child's first allocation failed: %s", out);
  CHECK(conf_count_lines(out, "abort_fb returned") == 0, "abort_fb returned to the program: %s", out);
  if (conf_env_long("CONF_EXPECT_BOBBIN", 0)) {
    /* SIGABRT, after one line naming the routine, the size and the trait. */
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "Bobbin did not abort (status %#x)", status);
    CHECK(conf_count_lines(out, "") == 2, "Bobbin printed more than one line before aborting: %s", out);
    CHECK(conf_count_lines(out, "bobbin: omp_alloc:") == 1 && conf_count_lines(out, "2048 bytes") == 1 &&
              conf_count_lines(out, "abort_fb") == 1,
          "Bobbin's abort line does not say what failed: %s", out);
  }
  free(out);
  return conf_end();
}
