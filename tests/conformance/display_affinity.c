/* OMP_DISPLAY_AFFINITY=true (spec 21.2.4): each thread of a region prints
 * its affinity line (affinity-format-var) at the first region, and again
 * only when a field of its line changed. omp_display_affinity (18.14.3)
 * prints the calling thread's line in the given format, or the ICV's if the
 * format is NULL. Runs itself as a child to read the lines. */
#include "child.h"

static void child_main(void) {
  for (int r = 0; r < 4; r++) {
    /* Regions 0 and 1 are the same; region 2 has one more thread (every
     * line's N changes); region 3 is as region 2. */
    int sum = 0;
#pragma omp parallel num_threads(r < 2 ? 2 : 3) reduction(+ : sum)
    sum += omp_get_thread_num(); /* libomp 14 prints nothing for a region that never calls it */
    printf("END %d\n", r);
    fflush(stdout);
  }
  omp_display_affinity("DISPLAY n=%n");
  omp_display_affinity(NULL);
#pragma omp parallel num_threads(2)
  {
#pragma omp barrier
    if (omp_get_thread_num() == 1) omp_display_affinity("MEMBER n=%n of %N");
  }
}

/* How many lines between "END r-1" and "END r" contain `needle`. */
static int lines_in_region(const char *out, int r, const char *needle) {
  char from[16], to[16];
  snprintf(from, sizeof from, "END %d\n", r - 1);
  snprintf(to, sizeof to, "END %d\n", r);
  const char *a = r == 0 ? out : strstr(out, from), *b = strstr(out, to);
  if (!a || !b || b < a) return -1;
  char *part = strndup(a, (size_t)(b - a));
  int n = conf_count_lines(part, needle);
  free(part);
  return n;
}

int main(void) {
  if (*conf_child_role()) {
    child_main();
    return 0;
  }
  const char *env[] = {"OMP_DISPLAY_AFFINITY=TRUE", "OMP_AFFINITY_FORMAT=AFF L=%L n=%n N=%N", NULL};
  int status;
  char *out = conf_run_child("display", env, &status);
  CHECK_EQ("the child's exit status", status, 0);
  CHECK(lines_in_region(out, 0, "AFF L=1") == 2 && lines_in_region(out, 0, "AFF L=1 n=0 N=2") == 1 &&
            lines_in_region(out, 0, "AFF L=1 n=1 N=2") == 1,
        "first region: not one line per thread:\n%s", out);
  CHECK(lines_in_region(out, 1, "AFF") == 0, "the same region again printed lines:\n%s", out);
  CHECK(lines_in_region(out, 2, "AFF L=1") == 3 && lines_in_region(out, 2, "AFF L=1 n=2 N=3") == 1,
        "a region of 3 threads: not one line per thread:\n%s", out);
  CHECK(lines_in_region(out, 3, "AFF") == 0, "the 3-thread region again printed lines:\n%s", out);
  CHECK_EQ("omp_display_affinity(\"DISPLAY n=%n\") lines", conf_count_lines(out, "DISPLAY n=0"), 1);
  CHECK_EQ("omp_display_affinity(NULL) lines", conf_count_lines(out, "AFF L=0 n=0 N=1"), 1);
  CHECK_EQ("omp_display_affinity in a member", conf_count_lines(out, "MEMBER n=1 of 2"), 1);
  free(out);

  const char *off[] = {"OMP_DISPLAY_AFFINITY=false", "OMP_AFFINITY_FORMAT=AFF L=%L", NULL};
  out = conf_run_child("display", off, &status);
  CHECK(conf_count_lines(out, "AFF L=1") == 0, "OMP_DISPLAY_AFFINITY=false printed lines:\n%s", out);
  free(out);
  return conf_end();
}
