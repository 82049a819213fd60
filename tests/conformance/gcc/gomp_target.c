/* Target constructs of a gcc build with no offload device: they run on the
   host (spec 13.8). GOMP_target_ext runs the region as the initial thread of
   a new contention group (level 0, thread 0 of 1, a parallel region inside
   it gets a team); firstprivate data is the region's own copy; nowait makes
   it a task that takes part in dependences; thread_limit reaches
   thread-limit-var; teams inside it (GOMP_teams4) run one after another with
   their own team numbers, and distribute shares a loop among them. The data
   constructs (target data, update, enter/exit data, with depend and nowait)
   change nothing on the host but keep their dependences. The device memory
   routines work on the host device (omp_get_initial_device(), and
   omp_initial_device) and refuse others. With OMP_TARGET_OFFLOAD=mandatory
   (in child processes) a region on the default device, which is the host
   when there is no other, and one with if(false) run; one on a device
   number that does not exist ends the program. */
#include <errno.h>

#include "child.h"

static int child_main(const char *role) {
  int x = 0;
  if (!strcmp(role, "device_5")) {
#pragma omp target device(5) map(tofrom : x)
    x = 1;
    printf("ran x=%d\n", x);
    return 0;
  }
  if (!strcmp(role, "if_false")) {
#pragma omp target if (0) map(tofrom : x)
    x = 1;
    printf("ran x=%d\n", x);
    return x == 1 ? 0 : 1;
  }
#pragma omp target map(tofrom : x)
  x = 1;
  printf("ran x=%d\n", x);
  return 0;
}

int main(void) {
  if (*conf_child_role()) return child_main(conf_child_role());
  int host = omp_get_initial_device();

  static const char *const mandatory[] = {"OMP_TARGET_OFFLOAD=mandatory", NULL};
  int status = 0;
  char *out = conf_run_child("device_5", mandatory, &status);
  CHECK(WIFEXITED(status) ? WEXITSTATUS(status) != 0 : 1,
        "OMP_TARGET_OFFLOAD=mandatory: a target region on device 5 did not end the program: %s", out);
  CHECK(!strstr(out, "ran x="), "OMP_TARGET_OFFLOAD=mandatory: the region on device 5 ran on the host: %s", out);
  free(out);
  out = conf_run_child("default", mandatory, &status);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && strstr(out, "ran x=1"),
        "OMP_TARGET_OFFLOAD=mandatory: a target region on the default device did not run: status %#x, %s", status, out);
  free(out);
  out = conf_run_child("if_false", mandatory, &status);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && strstr(out, "ran x=1"),
        "OMP_TARGET_OFFLOAD=mandatory: target if(0) did not run on the host: status %#x, %s", status, out);
  free(out);

  /* A region inside a parallel region: a new initial thread. */
  int level = -1, in_par = -1, num = -1, inner_team = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp target map(from : level, in_par, num, inner_team)
    {
      level = omp_get_level();
      in_par = omp_in_parallel();
      num = omp_get_num_threads();
#pragma omp parallel num_threads(2)
#pragma omp single
      inner_team = omp_get_num_threads() * 10 + omp_get_level();
    }
  }
  CHECK_EQ("omp_get_level() in a target region", level, 0);
  CHECK_EQ("omp_in_parallel() in a target region", in_par, 0);
  CHECK_EQ("omp_get_num_threads() in a target region", num, 1);
  CHECK_EQ("a parallel region in a target region (threads*10 + level)", inner_team, 21);

  /* firstprivate: the region writes its own copy. */
  double fp = 2.5;
  int seen = 0;
  struct {
    long a[8];
  } blk = {{1, 2, 3, 4, 5, 6, 7, 8}};
  long sum = 0;
#pragma omp target firstprivate(fp, blk) map(from : seen, sum)
  {
    seen = (int)(fp * 2);
    fp = -1;
    for (int i = 0; i < 8; i++) sum += blk.a[i], blk.a[i] = 0;
  }
  CHECK_EQ("firstprivate double read in the region", seen, 5);
  CHECK(fp == 2.5, "the region wrote the original of a firstprivate variable: %g", fp);
  CHECK_EQ("firstprivate struct read in the region", sum, 36);
  CHECK_EQ("the original of a firstprivate struct", blk.a[3], 4);

  /* thread_limit reaches thread-limit-var. */
  int limit = 0;
#pragma omp target thread_limit(3) map(from : limit)
  limit = omp_get_thread_limit();
  CHECK_EQ("omp_get_thread_limit() under thread_limit(3)", limit, 3);

  /* target teams distribute parallel for: every iteration once, teams numbered. */
  enum { N = 1000 };
  static int hits[N], team_of[N];
  int nteams = 0;
#pragma omp target teams distribute parallel for num_teams(4) map(tofrom : hits, team_of, nteams)
  for (int i = 0; i < N; i++) {
#pragma omp atomic
    hits[i]++;
    team_of[i] = omp_get_team_num();
    if (i == 0) nteams = omp_get_num_teams();
  }
  int once = 1, ordered = 1;
  for (int i = 0; i < N; i++) {
    once &= hits[i] == 1;
    ordered &= i == 0 || team_of[i] >= team_of[i - 1];
  }
  CHECK(once, "target teams distribute parallel for ran an iteration other than once");
  CHECK_EQ("omp_get_num_teams() in target teams num_teams(4)", nteams, 4);
  CHECK(ordered && team_of[0] == 0 && team_of[N - 1] == 3, "distribute did not give each team one run of iterations");
  CHECK_EQ("omp_get_num_teams() after the target teams region", omp_get_num_teams(), 1);

  /* nowait with depend, mixed with host tasks and data constructs. */
  long chain = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int k = 0; k < 10; k++) {
#pragma omp target nowait map(tofrom : chain) depend(inout : chain) firstprivate(k)
      chain = chain * 2 + k;
#pragma omp target update to(chain) depend(inout : chain) nowait
#pragma omp task depend(inout : chain) shared(chain)
      chain += 1;
    }
#pragma omp target enter data map(to : chain) depend(in : chain) nowait
#pragma omp taskwait
  }
  long want = 0;
  for (int k = 0; k < 10; k++) want = (want * 2 + k) + 1;
  CHECK_EQ("target nowait, target update and tasks ordered by depend", chain, want);

  int x = 7;
#pragma omp target data map(tofrom : x)
  {
#pragma omp target map(tofrom : x)
    x *= 3;
#pragma omp target update from(x)
  }
#pragma omp target exit data map(from : x)
  CHECK_EQ("target data around a target region", x, 21);

  /* Device memory routines on the host device. */
  int *d = omp_target_alloc(16 * sizeof(int), host);
  CHECK(d != NULL, "omp_target_alloc on the host device returned NULL");
  int src[16], back[16];
  for (int i = 0; i < 16; i++) src[i] = i * i;
  CHECK_EQ("omp_target_memcpy host to host", omp_target_memcpy(d, src, sizeof src, 0, 0, host, host), 0);
  CHECK_EQ("omp_target_memcpy with offsets",
           omp_target_memcpy(back, d, 4 * sizeof(int), 0, 8 * sizeof(int), host, host), 0);
  CHECK_EQ("omp_target_memcpy copied element 8", back[0], 64);
  CHECK_EQ("omp_target_is_present on the host", omp_target_is_present(src, host), 1);
  CHECK(omp_target_alloc(16, host + 5) == NULL, "omp_target_alloc on a device that does not exist");
  CHECK(omp_target_memcpy(d, src, 4, 0, 0, host + 5, host) != 0, "omp_target_memcpy to a device that does not exist");
  CHECK(omp_target_associate_ptr(src, d, 4, 0, host) != 0, "omp_target_associate_ptr on the host device");
  omp_target_free(d, host);

  /* memcpy_rect: a 3x4 block at (1,2) of a 5x6 matrix to (0,0) of a 3x4 one. */
  int big[5][6], small[3][4];
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 6; j++) big[i][j] = i * 10 + j;
  size_t vol[2] = {3, 4}, soff[2] = {1, 2}, doff[2] = {0, 0}, sdim[2] = {5, 6}, ddim[2] = {3, 4};
  CHECK(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host, host) >= 3,
        "omp_target_memcpy_rect(NULL, NULL, ...) must give the dimensions it supports");
  CHECK_EQ("omp_target_memcpy_rect", omp_target_memcpy_rect(small, big, sizeof(int), 2, vol, doff, soff, ddim, sdim,
                                                           host, host), 0);
  int rect_ok = 1;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) rect_ok &= small[i][j] == (i + 1) * 10 + j + 2;
  CHECK(rect_ok, "omp_target_memcpy_rect copied the wrong elements");
  return conf_end();
}
