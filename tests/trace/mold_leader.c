/* The moldable-region model's leader place on a modelled machine of NUMA
 * nodes (BOBBIN_TOPOLOGY): an outer team bound spread, one thread per node,
 * where each thread opens ROUNDS nested regions of one parallel construct
 * (the same microtask, no affinity clause: one kind) with dyn-var true, so
 * the model picks their width. check_mold_leader.py reads the trace's
 * `mold` events: each node's regions are timed under that node as leader,
 * in a table of their own (each node explores the width asked itself), and
 * compares with the `leader` lines printed here.
 * usage: mold_leader ROUNDS CORES_PER_NODE NODES */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int rounds_of_work) {
  double x = 0;
  for (int i = 0; i < rounds_of_work; i++) x += 1.0 / (1.0 + i);
  return x;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10, per_node = argc > 2 ? atoi(argv[2]) : 2,
      nodes = argc > 3 ? atoi(argv[3]) : 2;
  omp_set_max_active_levels(2);
  double sum = 0;
  int bad = 0;
#pragma omp parallel num_threads(nodes) proc_bind(spread) reduction(+ : sum) reduction(| : bad)
  {
    /* dyn-var true for the nested regions only: the outer team keeps its
       width (one thread per node) */
    omp_set_dynamic(1);
    int place = omp_get_place_num();
    if (place < 0) bad = 1;
#pragma omp critical
    printf("leader %d %d\n", omp_get_thread_num(), place / per_node);
    for (int r = 0; r < rounds; r++) {
      double part = 0;
#pragma omp parallel num_threads(per_node) proc_bind(close) reduction(+ : part)
      part += work(20000 + omp_get_thread_num());
      sum += part;
    }
  }
  if (bad || !(sum > 0)) {
    printf("FAIL: an outer thread was not bound (place %d) or no work was done\n", bad ? -1 : 0);
    return 1;
  }
  return 0;
}
