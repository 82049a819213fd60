/* serial_contexts.h: the places where one thread runs every task (outside
 * any parallel region, in parallel if(0), in a team of one, in an inactive
 * nested region, max-active-levels 1), for programs that check tasks there
 * (task_serialized, task_serialized_detach). Leaves max-active-levels at 1. */
#ifndef CONF_SERIAL_CONTEXTS_H
#define CONF_SERIAL_CONTEXTS_H

#include <omp.h>

static void conf_in_serial_contexts(void (*scenario)(const char *where)) {
  scenario("sequential part");
  int flag = 0;
#pragma omp parallel if(flag)
  scenario("parallel if(0)");
#pragma omp parallel num_threads(1)
  scenario("team of one");
  omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(3)
    scenario("inactive nested region");
  }
}

#endif
