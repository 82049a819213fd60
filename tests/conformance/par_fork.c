/* fork() after parallel regions: the child has only the forking thread, and
   its own regions must still get their teams (the runtime starts new
   threads in it, as libomp does). The child checks a region's size, a
   reduction and tasks; an alarm ends it if it hangs, and the parent reports
   how it ended. Then the parent goes on with regions of its own. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int team_sum(void) {
  int sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
  sum += omp_get_thread_num() + 1;
  return sum;
}

static int child(void) {
  alarm(5);
  if (team_sum() != 3) return 2;
  int created = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  for (int k = 0; k < 100; k++) {
#pragma omp task shared(created)
    {
#pragma omp atomic
      created++;
    }
  }
  if (created != 100) return 3;
  return 0;
}

int main(void) {
  CHECK_EQ("a region before fork", team_sum(), 3);
  for (int round = 0; round < 2; round++) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) _exit(child());
    CHECK(pid > 0, "fork failed");
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "round %d: the child %s %d (2: wrong team, 3: lost tasks, SIGALRM 14: it hung)", round,
          WIFEXITED(status) ? "exited with" : "was killed by signal",
          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    CHECK_EQ("a region in the parent after fork", team_sum(), 3);
    if (__atomic_load_n(&conf_failed, __ATOMIC_ACQUIRE)) break;
  }
  return conf_end();
}
