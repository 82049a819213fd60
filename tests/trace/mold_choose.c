/* The moldable-region model choosing the leader, on a modelled machine of
 * NUMA nodes (BOBBIN_TOPOLOGY, a host of one node): a team bound close,
 * one thread per modelled core; one thread creates a chain of STEPS tasks
 * (depend(inout) on one variable: each is made ready by the previous one's
 * end), each opening a nested parallel region with dyn-var true. A region
 * does four times the work unless the thread that opens it sits on the
 * last node (as if its data were there and far from the others). The
 * model learns which regions this task's function opens, tries each node
 * as the leader of a few, then queues the tasks at the last node's list.
 * check_mold_choose.py reads the trace's `mold leader` and `mold` events.
 * Prints `target NODE` and, per node, how many regions were opened there.
 * usage: mold_choose STEPS CORES_PER_NODE NODES */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double work(long rounds_of_work) {
  double x = 0;
  for (long i = 0; i < rounds_of_work; i++) x += 1.0 / (1.0 + (double)i);
  return x;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 60, per_node = argc > 2 ? atoi(argv[2]) : 2,
      nodes = argc > 3 ? atoi(argv[3]) : 2;
  int target = nodes - 1, opened[64] = {0}, bad = 0;
  double sum = 0;
  omp_set_max_active_levels(2);
#pragma omp parallel proc_bind(close) reduction(+ : bad)
  {
    if (omp_get_place_num() < 0 || omp_get_num_threads() != per_node * nodes) bad++;
#pragma omp single
    if (!bad) {
      printf("target %d\n", target);
      for (int s = 0; s < steps; s++) {
#pragma omp task depend(inout : sum) shared(sum, opened)
        {
          int node = omp_get_place_num() / per_node;
          long rounds = node == target ? 400000 : 1600000;
          double part = 0;
          omp_set_dynamic(1);
#pragma omp parallel num_threads(per_node) reduction(+ : part)
          part += work(rounds / omp_get_num_threads());
          sum += part;
          if (node >= 0 && node < 64) opened[node]++;
        }
      }
    }
  }
  int total = 0;
  for (int j = 0; j < nodes && j < 64; j++) {
    printf("opened %d %d\n", j, opened[j]);
    total += opened[j];
  }
  printf("mold_choose: %s\n", bad ? "NO PLACES" : total == steps ? "ok" : "LOST TASKS");
  return bad || total != steps;
}
