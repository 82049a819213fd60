// Exceptions thrown and caught inside a parallel region, a worksharing
// loop and a critical section, on every thread at once: each thread's
// unwinding stays on that thread and the runtime carries on (constructs may
// not be left by an exception, so each is caught within its construct).
#include <stdexcept>

#include "check.h"

static int __attribute__((noinline)) may_throw(int i) {
  if (i % 3 == 0)
    throw std::runtime_error(std::to_string(i));
  return i;
}

int main() {
  int caught = 0, returned = 0, team = 0;
#pragma omp parallel num_threads(6) reduction(+ : caught, returned)
  {
#pragma omp single
    team = omp_get_num_threads();
    for (int i = 0; i < 300; i++) {
      try {
        returned += may_throw(i + omp_get_thread_num()) >= 0;
      } catch (const std::runtime_error &e) {
        caught += std::stoi(e.what()) == i + omp_get_thread_num();
      }
    }
#pragma omp for schedule(dynamic, 4)
    for (int i = 0; i < 999; i++) {
      try {
        may_throw(i);
        returned++;
      } catch (const std::exception &) {
        caught++;
      }
    }
#pragma omp critical
    {
      try {
        throw 42;
      } catch (int x) {
        caught += x == 42;
      }
    }
  }
  CHECK_EQ("team size", team, 6);
  CHECK_EQ("exceptions caught", caught, 6 * 100 + 333 + 6);
  CHECK_EQ("calls that returned", returned, 6 * 200 + 666);
  return conf_end();
}
