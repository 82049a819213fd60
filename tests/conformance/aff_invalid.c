/* A value of OMP_PLACES or OMP_PROC_BIND that is not valid (the spec leaves
   the behaviour to the implementation) must not stop the program: it runs
   with a usable place list (non-empty places of processors the process may
   use), omp_get_proc_bind() returns an omp_proc_bind_t, and teams are placed
   by the rule of whatever policy is in force. The runtime says so on
   stderr: Bobbin in exactly one line naming the variable and the value
   (DESIGN.md: a warning naming the variable and the value used instead);
   any runtime in at least one line. To read its own stderr the program
   runs itself again as a child with stderr on a pipe; CONF_WARN_VAR names
   the variable. */
#include <sys/wait.h>

#include "affinity.h"

static int child(void) {
  aff_list_read();
  for (int i = 0; i < aff_places.n; i++)
    for (int j = 0; j < i; j++)
      if (aff_same_set(&aff_places.p[i], &aff_places.p[j]))
        printf("note: places %d and %d are the same set\n", j, i); /* allowed, but worth seeing */
  int b = (int)omp_get_proc_bind();
  CHECK(b >= omp_proc_bind_false && b <= omp_proc_bind_spread, "omp_get_proc_bind() = %d", b);
  aff_check_initial();
  aff_run(2, -1, 0);
  aff_run(aff_places.n + 1, -1, 0);
  return conf_end();
}

int main(int argc, char **argv) {
  (void)argc;
  if (getenv("CONF_AFF_CHILD"))
    return child();
  const char *var = getenv("CONF_WARN_VAR");
  const char *value = var ? getenv(var) : NULL;
  int fds[2];
  if (!var || !value || pipe(fds) != 0) {
    printf("FAIL aff_invalid.c: CONF_WARN_VAR must name a variable that is set\n");
    return 1;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    setenv("CONF_AFF_CHILD", "1", 1);
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  close(fds[1]);
  char err[16384];
  size_t len = 0;
  ssize_t k;
  while ((k = read(fds[0], err + len, sizeof err - 1 - len)) > 0)
    len += (size_t)k;
  err[len] = 0;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  printf("%s", err); /* the child's stderr, for the log */
  int lines = 0, naming = 0;
  for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n")) {
    lines++;
    if (strstr(line, var) && strstr(line, value))
      naming++;
  }
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the program with %s='%s' failed (status %#x)", var, value,
        status);
  const char *bobbin = getenv("CONF_EXPECT_BOBBIN");
  if (bobbin && bobbin[0] == '1')
    CHECK(naming == 1 && lines == 1, "%s='%s': %d lines on stderr, %d naming the variable and value; want one", var,
          value, lines, naming);
  else
    CHECK(lines >= 1, "%s='%s': nothing on stderr", var, value);
  return conf_end();
}
