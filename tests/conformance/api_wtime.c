/* omp_get_wtime never goes backwards within a thread and tracks real
   time; omp_get_wtick is positive and below a second. */
#include <time.h>

#include "check.h"

int main(void) {
  double tick = omp_get_wtick();
  CHECK(tick > 0 && tick < 1, "omp_get_wtick() = %g", tick);
  int backwards = 0;
#pragma omp parallel num_threads(4) reduction(+ : backwards)
  {
    double prev = omp_get_wtime();
    for (int i = 0; i < 100000; i++) {
      double now = omp_get_wtime();
      if (now < prev)
        backwards++;
      prev = now;
    }
  }
  CHECK_EQ("omp_get_wtime() going backwards", backwards, 0);
  double t0 = omp_get_wtime();
  struct timespec ts = {0, 30 * 1000 * 1000};
  nanosleep(&ts, NULL);
  double dt = omp_get_wtime() - t0;
  CHECK(dt >= 0.029 && dt < 10, "30 ms sleep measured as %g s", dt);
  return conf_end();
}
