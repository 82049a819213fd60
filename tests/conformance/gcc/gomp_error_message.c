/* The error directive at execution time prints what libgomp prints for a
   gcc-built program, since job scripts and test harnesses match it:
   "libgomp: error directive encountered: <message>" and an empty line for
   a warning, "libgomp: fatal error: error directive encountered: <message>"
   before a fatal one ends the program with exit status 1 (libgomp's
   error-1 test reads these lines). Checked in a child process. */
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "child.h"

static int child_main(const char *role) {
  (void)role;
#pragma omp error at(execution) severity(warning)
#pragma omp error at(execution) severity(warning) message("first")
#pragma omp error at(execution) severity(fatal) message("the end")
  return 0;
}

int main(void) {
  if (*conf_child_role())
    return child_main(conf_child_role());
  const char *env[] = {NULL};
  int status = 0;
  char *out = conf_run_child("error", env, &status);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "the child ended with status %#x, want exit status 1", status);
  CHECK(strstr(out, "libgomp: error directive encountered\n\n") != NULL, "no warning line without a message in: %s", out);
  CHECK(strstr(out, "libgomp: error directive encountered: first\n\n") != NULL, "no warning line 'first' in: %s", out);
  CHECK(strstr(out, "libgomp: fatal error: error directive encountered: the end") != NULL,
        "no fatal error line in: %s", out);
  free(out);
  return conf_end();
}
