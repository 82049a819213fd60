/* OMP_TOOL and OMP_TOOL_LIBRARIES (spec 21.3) with no tool to attach: the
 * program runs normally and omp_control_tool answers
 * omp_control_tool_notool. Bobbin cannot load OMPT tools yet, and says so in
 * one line, once, when a tool was asked for (OMP_TOOL=enabled or
 * OMP_TOOL_LIBRARIES); otherwise it says nothing. Runs itself as a child. */
#include "child.h"

#define NOTICE "OMPT tools are not supported yet"

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

static void run(const char *what, const char *const *env, int notices) {
  int status;
  char *out = conf_run_child("tool", env, &status);
  char want[64];
  snprintf(want, sizeof want, "sum=5 tool=%d", omp_control_tool_notool);
  CHECK(status == 0 && conf_count_lines(out, want) == 1, "%s: the program did not run normally: %s", what, out);
  if (conf_env_long("CONF_EXPECT_BOBBIN", 0)) {
    CHECK(conf_count_lines(out, NOTICE) == notices, "%s: %d lines say \"" NOTICE "\", want %d: %s", what,
          conf_count_lines(out, NOTICE), notices, out);
    CHECK(conf_count_lines(out, "") == 1 + notices, "%s: other output: %s", what, out);
  }
  free(out);
}

int main(void) {
  if (*conf_child_role()) return child_main();
  const char *enabled[] = {"OMP_TOOL=enabled", NULL};
  const char *disabled[] = {"OMP_TOOL=disabled", NULL};
  const char *libs[] = {"OMP_TOOL_LIBRARIES=libnonexistent-tool.so", NULL};
  const char *libs_disabled[] = {"OMP_TOOL=disabled", "OMP_TOOL_LIBRARIES=libnonexistent-tool.so", NULL};
  const char *none[] = {NULL};
  run("OMP_TOOL=enabled", enabled, 1);
  run("OMP_TOOL=disabled", disabled, 0);
  run("OMP_TOOL_LIBRARIES", libs, 1);
  run("OMP_TOOL=disabled with OMP_TOOL_LIBRARIES", libs_disabled, 0);
  run("neither", none, 0);
  return conf_end();
}
