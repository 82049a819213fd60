/* OMP_PROC_BIND and proc_bind: omp_get_proc_bind() follows the bind-var
   list level by level, and every team's places and partitions follow the
   rule of the policy in force (primary, close, spread; true: bound inside the
   parent's partition; false: not bound and clauses ignored) for team sizes
   below, at and above the number of places, and for nested teams when
   max-active-levels allows them (a list of more than one policy raises it,
   5.2, OMP_PROC_BIND). The checks live in affinity.h. */
#include "affinity.h"

static void check_bind_level(const char *where, int level, const int *list, int n) {
  int got = (int)omp_get_proc_bind();
  CHECK(got >= omp_proc_bind_false && got <= omp_proc_bind_spread, "%s: omp_get_proc_bind() = %d", where, got);
  if (n == 0)
    return; /* OMP_PROC_BIND unset: implementation defined */
  int want = list[level < n ? level : n - 1];
  if (want == omp_proc_bind_true) /* a runtime may report the policy it uses for true */
    CHECK(got != omp_proc_bind_false, "%s: omp_get_proc_bind() = false, want true", where);
  else
    CHECK(got == want, "%s: omp_get_proc_bind() = %d, want %d (OMP_PROC_BIND=%s)", where, got, want,
          getenv("OMP_PROC_BIND"));
}

int main(void) {
  int list[8];
  int n = aff_env_binds(list, 8);
  aff_list_read();
  aff_list_expect();
  aff_check_initial();
  check_bind_level("initial thread", 0, list, n);
  if (n > 1 && !getenv("OMP_MAX_ACTIVE_LEVELS") && !getenv("OMP_NESTED"))
    CHECK(omp_get_max_active_levels() > 1, "OMP_PROC_BIND=%s has %d policies but max-active-levels is %d",
          getenv("OMP_PROC_BIND"), n, omp_get_max_active_levels());
#pragma omp parallel num_threads(2)
  {
    check_bind_level("level 1", 1, list, n);
#pragma omp parallel num_threads(2)
    check_bind_level("level 2", omp_get_level(), list, n);
  }

  int P = aff_places.n;
  int sizes[] = {1, 2, 3, P - 1, P, P + 1, P <= 8 ? 2 * P + 1 : 0};
  int clauses[] = {-1, omp_proc_bind_master, omp_proc_bind_close, omp_proc_bind_spread};
  for (size_t c = 0; c < sizeof clauses / sizeof clauses[0]; c++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      int dup = sizes[i] < 1;
      for (size_t j = 0; j < i; j++)
        dup |= sizes[j] == sizes[i];
      if (!dup)
        aff_run(sizes[i], clauses[c], 0);
    }
  if (omp_get_max_active_levels() > 1) {
    aff_run(2, -1, 2);
    aff_run(2, -1, 3);
    if (P > 2)
      aff_run(P, -1, 2);
    aff_run(2, omp_proc_bind_spread, 3);
  }
  if (conf_has_failed()) {
    char buf[2048];
    aff_list_str(&aff_places, buf, sizeof buf);
    printf("OMP_PLACES='%s' OMP_PROC_BIND='%s': %d places %s\n", getenv("OMP_PLACES"), getenv("OMP_PROC_BIND"), P,
           buf);
  }
  return conf_end();
}
