/* stress_pause: omp_pause_resource (soft and hard) between regions wider
 * than the machine, with tasks, in three processes at once (the program
 * runs itself three times), so that the processors are oversubscribed and
 * team members are often still leaving their team, or parked in it, when a
 * pause stops the workers.
 *
 * Guards two hangs: a pause that stopped a worker while a member parked on
 * it had not yet left its team (the next fork waited for that member
 * forever), and a member that kept the task list of a deleted worker whose
 * address the new worker 0 reused (it never looked at its team's tasks and
 * spun at the barrier). Both hung within 40 runs of 1000 rounds with two
 * other such runs beside it; plain spinning threads in one process did not
 * reproduce either. Run with BOBBIN_WIDE_TEAMS=threads and =fibers: the
 * team of 3 on a 2-processor machine takes both paths.
 */
#include "stress.h"
#include "pause_region.h"

#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

// The parent: kLanes lanes, each starting STRESS_RUNS copies (20) of the
// program one after another, each copy with its own watchdog. The hangs
// came early in a process's life (within 40 runs of 1000 rounds started one
// after another; never in three copies of 30,000 rounds each), so many
// short copies: 60 in all. (30 per lane took 62 s alone and 90 s, the
// limit, beside the other suites on a 2-processor CI machine.)
static int run_copies(char **argv) {
  enum { kLanes = 3 };
  const long runs = conf_env_long("STRESS_RUNS", 20);
  pid_t pids[kLanes] = {0};
  long started[kLanes] = {0};
  char *args[] = {argv[0], (char *)"copy", NULL};
  int failed = 0, running = 0;
  do {
    for (int i = 0; i < kLanes; i++) {
      if (pids[i] || started[i] == runs || failed)
        continue;
      if (posix_spawn(&pids[i], "/proc/self/exe", NULL, NULL, args, environ) != 0) {
        printf("FAIL stress_pause: cannot start a copy\n");
        return 1;
      }
      started[i]++;
      running++;
    }
    int status = 0;
    pid_t done = wait(&status);
    if (done < 0)
      break;
    for (int i = 0; i < kLanes; i++)
      if (pids[i] == done) {
        pids[i] = 0;
        running--;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
          printf("FAIL stress_pause: copy %ld of lane %d ended with status %#x\n", started[i], i, status);
          failed = 1;
        }
      }
  } while (running > 0);
  return failed;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return run_copies(argv);
  stress_begin("stress_pause", 30);
  const long rounds = conf_env_long("STRESS_ROUNDS", 1000);
  omp_set_num_threads(3); /* also starts the runtime: a pause before that has nothing to release */
  stress_phase("pause then a region of 3 with tasks", rounds);
  for (long r = 0; r < rounds && !conf_has_failed(); r++) {
    int rc = pause_round(r);
    CHECK(rc == 0, "round %ld: %s returned %d", r, pause_call(r), rc);
    omp_set_num_threads(3); /* a hard pause may reset nthreads-var */
    pause_region_t got = pause_region();
    CHECK(got.team == 3 && got.tasks == 16 && got.fib == 55 && got.sum == 6,
          "round %ld: team %d, tasks %d, fib %ld, sum %ld", r, got.team, got.tasks, got.fib, got.sum);
    stress_progress(1);
  }
  return stress_end();
}
