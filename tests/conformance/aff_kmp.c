/* KMP_AFFINITY, as far as it maps onto OpenMP places (DESIGN.md: Bobbin
   honours it that far): granularity picks the places (fine/thread: one per
   hardware thread, core: one per core; CONF_EXPECT_PLACES), proclist=[...]
   with explicit gives the places in that order, and the type the binding
   (CONF_EXPECT_POLICY): compact fills places in order, thread i on place i
   while there are places enough; scatter puts a team no larger than the
   place list on distinct places, thread 0 on the initial thread's place;
   none binds nothing. Every bound thread's sched_getaffinity lies inside its
   place. (What omp_get_proc_bind() reports: aff_kmp_proc_bind.c.) */
#include "affinity.h"

int main(void) {
  const char *policy = getenv("CONF_EXPECT_POLICY");
  aff_list_read();
  aff_list_expect();
  int P = aff_places.n;
  aff_me initial;
  aff_record(&initial);
  CHECK(initial.mask_ok, "initial thread on place %d, sched_getaffinity {%s}", initial.place, initial.mask);
  int none = policy && !strcmp(policy, "none");
  if (!none)
    CHECK(initial.place == 0, "KMP_AFFINITY=%s: initial thread on place %d, want 0", getenv("KMP_AFFINITY"),
          initial.place);
  for (int T = 1; T <= P + 1 && T < AFF_MAX_TEAM; T++) {
    int n = 0;
#pragma omp parallel num_threads(T)
    {
      aff_record(&aff_outer[omp_get_thread_num()]);
      if (omp_get_thread_num() == 0)
        n = omp_get_num_threads();
    }
    CHECK_EQ("team size", n, T);
    for (int i = 0; i < n && i < AFF_MAX_TEAM; i++) {
      const aff_me *t = &aff_outer[i];
      CHECK(t->mask_ok, "team of %d: thread %d on place %d, sched_getaffinity {%s}", T, i, t->place, t->mask);
      if (none)
        continue;
      CHECK(t->place >= 0 && t->place < P, "KMP_AFFINITY=%s: team of %d: thread %d on place %d",
            getenv("KMP_AFFINITY"), T, i, t->place);
      if (T > P || !policy)
        continue;
      if (!strcmp(policy, "close"))
        CHECK(t->place == i, "KMP_AFFINITY=%s: team of %d: thread %d on place %d, want %d", getenv("KMP_AFFINITY"),
              T, i, t->place, i);
      for (int j = 0; j < i && !strcmp(policy, "spread"); j++)
        CHECK(aff_outer[j].place != t->place, "KMP_AFFINITY=%s: team of %d: threads %d and %d share place %d",
              getenv("KMP_AFFINITY"), T, j, i, t->place);
      if (i == 0)
        CHECK(t->place == initial.place, "team of %d: thread 0 on place %d, the initial thread on %d", T, t->place,
              initial.place);
    }
  }
  return conf_end();
}
