/* OMP_PLACES: the place list the API reports (omp_get_num_places,
   omp_get_place_num_procs, omp_get_place_proc_ids) is the one the variable
   asks for (CONF_EXPECT_PLACES, checked by affinity.h), the initial thread is
   bound to its first place, and teams of P and P+1 threads are placed by the
   rule of the bind-var in force (OMP_PLACES alone turns binding on with an
   implementation-defined policy, which omp_get_proc_bind() reports). */
#include "affinity.h"

int main(void) {
  aff_list_read();
  aff_list_expect();
  aff_check_initial();
  int P = aff_places.n;
  if (P >= 1 && P < AFF_MAX_TEAM) {
    aff_run(P, -1, 0);
    aff_run(P + 1, -1, 0);
  }
  aff_run(2, omp_proc_bind_close, 0);
  if (conf_has_failed()) {
    char buf[2048];
    aff_list_str(&aff_places, buf, sizeof buf);
    printf("OMP_PLACES='%s': %d places %s, omp_get_proc_bind() %d\n", getenv("OMP_PLACES"), P, buf,
           (int)omp_get_proc_bind());
  }
  return conf_end();
}
