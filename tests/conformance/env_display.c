// LIBOMP14-DEFECT: OMP_DISPLAY_ENV writes "   _OPENMP='201611'" (three spaces) and lines without a value ("[host] OMP_NUM_THREADS: value is not defined"), not NAME='value'
/* OMP_DISPLAY_ENV and omp_display_env (spec 21.7, 18.15), field by field: one
 * block, from "OPENMP DISPLAY ENVIRONMENT BEGIN" to "... END"; first
 * `  _OPENMP='yyyymm'`, then one `  [devices] NAME='value'` line per ICV-backed
 * variable, OMP_* only unless verbose; the values are the ones set. The
 * program runs itself as a child to see what the runtime prints at start-up. */
#include "child.h"

#include <ctype.h>

static const char *const kSet[] = {
    "OMP_NUM_THREADS=3", "OMP_SCHEDULE=dynamic,2", "OMP_DYNAMIC=true", "OMP_MAX_ACTIVE_LEVELS=3",
    "OMP_THREAD_LIMIT=7", "OMP_CANCELLATION=true", "OMP_DEFAULT_DEVICE=2", "OMP_MAX_TASK_PRIORITY=5",
    "OMP_AFFINITY_FORMAT=T%n", "OMP_DISPLAY_AFFINITY=false", "OMP_ALLOCATOR=omp_default_mem_space:alignment=64",
    "OMP_WAIT_POLICY=active", "OMP_TOOL=disabled", "OMP_TARGET_OFFLOAD=disabled", "OMP_PROC_BIND=spread,close",
    "OMP_NUM_TEAMS=4", "OMP_TEAMS_THREAD_LIMIT=2", "OMP_STACKSIZE=2M", NULL};
/* Displayed values, compared without case; NULL: present, any value. */
static const char *const kShown[][2] = {
    {"OMP_NUM_THREADS", "3"}, {"OMP_SCHEDULE", "dynamic,2"}, {"OMP_DYNAMIC", "true"}, {"OMP_MAX_ACTIVE_LEVELS", "3"},
    {"OMP_THREAD_LIMIT", "7"}, {"OMP_CANCELLATION", "true"}, {"OMP_DEFAULT_DEVICE", "2"},
    {"OMP_MAX_TASK_PRIORITY", "5"}, {"OMP_AFFINITY_FORMAT", "T%n"}, {"OMP_DISPLAY_AFFINITY", "false"},
    {"OMP_ALLOCATOR", "omp_default_mem_space:alignment=64"}, {"OMP_WAIT_POLICY", "active"}, {"OMP_TOOL", "disabled"},
    {"OMP_TARGET_OFFLOAD", "disabled"}, {"OMP_PROC_BIND", "spread,close"}, {"OMP_NUM_TEAMS", "4"},
    {"OMP_TEAMS_THREAD_LIMIT", "2"}, {"OMP_STACKSIZE", NULL}, {"OMP_PLACES", NULL}, {"OMP_TOOL_LIBRARIES", NULL},
    {"OMP_TOOL_VERBOSE_INIT", NULL}, {"OMP_DEBUG", NULL}};
#define NSHOWN (int)(sizeof kShown / sizeof kShown[0])

/* Checks the `which`-th block of `out` (0-based); returns how many blocks there are. */
static int check_block(const char *out, int which, int verbose, int check_values) {
  int blocks = 0, seen[NSHOWN] = {0}, vendor = 0;
  char line[1024];
  const char *p = out, *end;
  int in = 0, row = 0;
  for (; *p; p = end + (*end != 0)) {
    end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    snprintf(line, sizeof line, "%.*s", (int)(end - p), p);
    if (strcmp(line, "OPENMP DISPLAY ENVIRONMENT BEGIN") == 0) { in = blocks++ == which; row = 0; continue; }
    if (strcmp(line, "OPENMP DISPLAY ENVIRONMENT END") == 0) { in = 0; continue; }
    if (!in) continue;
    if (row++ == 0) {
      int ok = strlen(line) == 18 && strncmp(line, "  _OPENMP='", 11) == 0 && line[17] == '\'';
      for (int k = 11; ok && k < 17; k++) ok = isdigit((unsigned char)line[k]);
      CHECK(ok, "block %d: the first line is \"%s\", not \"  _OPENMP='yyyymm'\"", which, line);
      continue;
    }
    char *close = strchr(line, ']'), *eq = strstr(line, "='");
    size_t len = strlen(line);
    int ok = strncmp(line, "  [", 3) == 0 && close && close[1] == ' ' && eq && eq > close && line[len - 1] == '\'' &&
             strchr(eq + 2, '\'') == line + len - 1;
    CHECK(ok, "block %d: \"%s\" is not \"  [devices] NAME='value'\"", which, line);
    if (!ok) continue;
    *eq = 0;
    line[len - 1] = 0;
    const char *name = close + 2, *value = eq + 2;
    if (strncmp(name, "OMP_", 4) != 0) vendor++;
    for (int i = 0; i < NSHOWN; i++) {
      if (strcmp(name, kShown[i][0]) != 0) continue;
      seen[i]++;
      CHECK(!check_values || !kShown[i][1] || strcasecmp(value, kShown[i][1]) == 0, "block %d: %s='%s', want '%s'",
            which, name, value, kShown[i][1]);
    }
  }
  if (which < blocks) {
    for (int i = 0; i < NSHOWN; i++) CHECK(seen[i] == 1, "block %d shows %s %d times", which, kShown[i][0], seen[i]);
    CHECK(verbose || vendor == 0, "block %d is not verbose but shows %d vendor variables", which, vendor);
    /* Verbose may add vendor variables (spec); Bobbin lists its BOBBIN_* ones. */
    CHECK(!verbose || vendor > 0 || !conf_env_long("CONF_EXPECT_BOBBIN", 0), "block %d: verbose, no BOBBIN_ rows", which);
  }
  return blocks;
}

int main(void) {
  if (strcmp(conf_child_role(), "start") == 0) {
    int sum = 0; /* a region that calls the runtime, so that every runtime starts */
#pragma omp parallel num_threads(2) reduction(+ : sum)
    sum += omp_get_thread_num();
    return sum != 1;
  }
  if (strcmp(conf_child_role(), "api") == 0) {
    omp_display_env(0);
    omp_display_env(1);
    return 0;
  }
  int status;
  const char *true_env[32], *verbose_env[32];
  int n = 0;
  for (; kSet[n]; n++) true_env[n] = verbose_env[n] = kSet[n];
  true_env[n] = "OMP_DISPLAY_ENV=true", verbose_env[n] = "OMP_DISPLAY_ENV=VERBOSE";
  true_env[n + 1] = verbose_env[n + 1] = NULL;

  char *out = conf_run_child("start", true_env, &status);
  CHECK(status == 0 && check_block(out, 0, 0, 1) == 1, "OMP_DISPLAY_ENV=true: not one block (status %d): %s", status, out);
  free(out);
  out = conf_run_child("start", verbose_env, &status);
  CHECK(status == 0 && check_block(out, 0, 1, 1) == 1, "OMP_DISPLAY_ENV=VERBOSE: not one block: %s", out);
  free(out);
  const char *off[] = {"OMP_DISPLAY_ENV=false", NULL};
  out = conf_run_child("start", off, &status);
  CHECK(status == 0 && strstr(out, "OPENMP DISPLAY") == NULL, "OMP_DISPLAY_ENV=false printed: %s", out);
  free(out);
  /* omp_display_env(0), then (1): two blocks; the defaults have values too. */
  out = conf_run_child("api", off, &status);
  CHECK(status == 0 && check_block(out, 0, 0, 0) == 2, "omp_display_env(0), (1): not two blocks: %s", out);
  check_block(out, 1, 1, 0);
  free(out);
  return conf_end();
}
