/* The moldable-region model's `where` from a task's depend clauses, on a
 * modelled machine of NUMA nodes (BOBBIN_TOPOLOGY, a host of one node):
 * each thread of a team bound close (one per core) allocates a block
 * through an allocator whose partition trait is `nearest`, so the block is
 * on that thread's node; then one thread creates, per block, a chain of
 * tasks with depend(inout) on the block and no affinity clause, each
 * opening a nested parallel region (dyn-var true: the model picks its
 * width). The blocks of node j get (j + 1) x STEPS tasks each, so that the
 * nodes' region counts differ. With `child`, each such task opens its
 * region inside a child task that has no clause (the child works on what
 * its creator declared). check_mold_depend.py reads the trace's `mold`
 * events: each region's `where` is the task list of its block's node,
 * told apart by those counts, and compares with the `blocks` lines printed
 * here.
 * usage: mold_depend STEPS CORES_PER_NODE NODES [child] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double work(int rounds_of_work) {
  double x = 0;
  for (int i = 0; i < rounds_of_work; i++) x += 1.0 / (1.0 + i);
  return x;
}

static double region(int per_node) {
  double part = 0;
  omp_set_dynamic(1);
#pragma omp parallel num_threads(per_node) reduction(+ : part)
  part += work(2000 + omp_get_thread_num());
  return part;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 4, per_node = argc > 2 ? atoi(argv[2]) : 2,
      nodes = argc > 3 ? atoi(argv[3]) : 2, in_child = argc > 4 && strcmp(argv[4], "child") == 0;
  long page = sysconf(_SC_PAGESIZE);
  omp_set_max_active_levels(2);
  omp_alloctrait_t nearest[] = {{omp_atk_partition, omp_atv_nearest}};
  omp_allocator_handle_t an = omp_init_allocator(omp_default_mem_space, 1, nearest);
  double *blk[64];
  int node_of[64], bad = 0, ran = 0, want = 0;
#pragma omp parallel proc_bind(close) reduction(+ : bad)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    if (n > 64 || omp_get_place_num() < 0) {
      bad++;
    } else {
      blk[t] = omp_alloc((size_t)page, an);
      blk[t][0] = 0; /* the first touch, by the thread the page is for */
      node_of[t] = omp_get_place_num() / per_node;
    }
#pragma omp barrier
#pragma omp single
    if (!bad) {
      for (int j = 0; j < nodes; j++) {
        int count = 0;
        for (int k = 0; k < n; k++) count += node_of[k] == j;
        printf("blocks %d %d\n", j, count * (j + 1) * steps);
      }
      for (int k = 0; k < n; k++) {
        int chain = (node_of[k] + 1) * steps;
        want += chain;
        for (int s = 0; s < chain; s++) {
          double *b = blk[k];
#pragma omp task depend(inout : b[0]) firstprivate(b) shared(ran)
          {
            double part = 0;
            if (in_child) {
#pragma omp task shared(part)
              part = region(per_node);
#pragma omp taskwait
            } else {
              part = region(per_node);
            }
            b[0] += part;
#pragma omp atomic
            ran++;
          }
        }
      }
    }
#pragma omp barrier
    if (!bad) omp_free(blk[t], an);
  }
  printf("mold_depend: %s\n", bad ? "NO PLACES" : ran == want ? "ok" : "LOST TASKS");
  return bad || ran != want;
}
