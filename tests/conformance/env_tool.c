/* OMP_TOOL and OMP_TOOL_LIBRARIES (spec 21.3) with no tool to attach (a
 * library that does not exist, or none named): the program runs normally,
 * omp_control_tool answers omp_control_tool_notool, and Bobbin prints
 * nothing, as libomp (OMP_TOOL_VERBOSE_INIT would say what was tried; the
 * tools themselves are tests/ompt's). Runs itself as a child. */
#include "child.h"

static int child_main(void) {
  int sum = 0;
#pragma omp parallel num_threads(3) reduction(+ : sum)
  sum += 1;
#pragma omp parallel num_threads(2) reduction(+ : sum)
  sum += 1;
  /* No tool: every command answers omp_control_tool_notool (spec 19.1). */
  int notool = 1;
  for (int cmd = omp_control_tool_start; cmd <= omp_control_tool_end; cmd++)
    notool = notool && omp_control_tool(cmd, 0, NULL) == omp_control_tool_notool;
  printf("sum=%d tool=%d\n", sum, notool ? omp_control_tool_notool : 0);
  return 0;
}

static void run(const char *what, const char *const *env) {
  int status;
  char *out = conf_run_child("tool", env, &status);
  char want[64];
  snprintf(want, sizeof want, "sum=5 tool=%d", omp_control_tool_notool);
  CHECK(status == 0 && conf_count_lines(out, want) == 1, "%s: the program did not run normally: %s", what, out);
  if (conf_env_long("CONF_EXPECT_BOBBIN", 0)) CHECK(conf_count_lines(out, "") == 1, "%s: other output: %s", what, out);
  free(out);
}

int main(void) {
  if (*conf_child_role()) return child_main();
  const char *enabled[] = {"OMP_TOOL=enabled", NULL};
  const char *disabled[] = {"OMP_TOOL=disabled", NULL};
  const char *libs[] = {"OMP_TOOL_LIBRARIES=libnonexistent-tool.so", NULL};
  const char *libs_disabled[] = {"OMP_TOOL=disabled", "OMP_TOOL_LIBRARIES=libnonexistent-tool.so", NULL};
  const char *none[] = {NULL};
  run("OMP_TOOL=enabled", enabled);
  run("OMP_TOOL=disabled", disabled);
  run("OMP_TOOL_LIBRARIES", libs);
  run("OMP_TOOL=disabled with OMP_TOOL_LIBRARIES", libs_disabled);
  run("neither", none);
  return conf_end();
}
