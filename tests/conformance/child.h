/* child.h: run this program again as a child process and capture its output.
 *
 * Some behaviours show only at start-up (OMP_DISPLAY_ENV, OMP_TOOL) or end
 * the process (an allocator's abort_fb), so a program cannot check them in
 * itself. It runs itself instead: conf_run_child(role, env, &status) starts
 * /proc/self/exe with CONF_CHILD=<role> and the given "VAR=value" settings
 * added to (or replacing) its own environment, and returns what the child
 * wrote to stdout and stderr, in one string. main() starts with
 * `if (*conf_child_role()) return child_main(conf_child_role());`.
 *
 * The child inherits LD_PRELOAD, LD_LIBRARY_PATH and CONF_EXPECT_BOBBIN, so
 * it runs on the same runtime as the parent, in every mode of run.py.
 */
#ifndef CONF_CHILD_H
#define CONF_CHILD_H

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

extern char **environ;

static const char *conf_child_role(void) CONF_UNUSED;
static const char *conf_child_role(void) {
  const char *r = getenv("CONF_CHILD");
  return r ? r : "";
}

/* Whether "NAME=..." strings `a` and `b` set the same variable. */
static int conf_same_var(const char *a, const char *b) CONF_UNUSED;
static int conf_same_var(const char *a, const char *b) {
  size_t n = strcspn(a, "=");
  return strncmp(a, b, n + 1) == 0;
}

/* `env` ends with NULL. Returns the output (free it); *status as waitpid. */
static char *conf_run_child(const char *role, const char *const *env, int *status) CONF_UNUSED;
static char *conf_run_child(const char *role, const char *const *env, int *status) {
  size_t n = 0, k = 0, extra = 0;
  while (environ[n]) n++;
  while (env[extra]) extra++;
  char **envp = calloc(n + extra + 2, sizeof *envp);
  char role_var[128];
  snprintf(role_var, sizeof role_var, "CONF_CHILD=%s", role);
  for (size_t i = 0; i < n; i++) {
    int replaced = conf_same_var(environ[i], role_var);
    for (size_t j = 0; j < extra && !replaced; j++) replaced = conf_same_var(environ[i], env[j]);
    if (!replaced) envp[k++] = environ[i];
  }
  for (size_t j = 0; j < extra; j++) envp[k++] = (char *)env[j];
  envp[k++] = role_var;
  envp[k] = NULL;

  int fd[2];
  if (pipe(fd) != 0) {
    CHECK(0, "pipe failed");
    return strdup("");
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) { /* only async-signal-safe calls until exec */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* abort_fb children: no core files */
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    char *argv[] = {"/proc/self/exe", NULL};
    execve("/proc/self/exe", argv, envp);
    _exit(127);
  }
  close(fd[1]);
  size_t cap = 4096, len = 0;
  char *out = malloc(cap);
  ssize_t got;
  while ((got = read(fd[0], out + len, cap - len - 1)) > 0) {
    len += (size_t)got;
    if (cap - len < 1024) out = realloc(out, cap *= 2);
  }
  out[len] = 0;
  close(fd[0]);
  waitpid(pid, status, 0);
  free(envp);
  return out;
}

/* The number of lines of `text` that contain `needle`. */
static int conf_count_lines(const char *text, const char *needle) CONF_UNUSED;
static int conf_count_lines(const char *text, const char *needle) {
  int count = 0;
  for (const char *line = text; *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
    if (strstr(buf, needle)) count++;
    line += len + (end ? 1 : 0);
  }
  return count;
}

#endif
