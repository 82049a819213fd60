/* The affinity clause on a modelled machine of NUMA nodes (BOBBIN_TOPOLOGY,
 * a host of one node): each thread of the team (bound close, one per core)
 * allocates a buffer through an allocator whose partition trait is
 * `nearest`, and one thread creates tasks with affinity to each buffer in
 * turn, a phase per buffer. Then a buffer of a `blocked` and one of an
 * `interleaved` allocator, a phase per page. check_affinity.py reads from
 * the trace which node and task list each task's affinity clause chose,
 * and compares with the `expect` lines printed here.
 * usage: affinity_model TASKS CORES_PER_NODE NODES */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int phases;

/* One phase: TASKS tasks with affinity to p, created by one thread, run
   before the next phase starts (the single's barrier). */
static void phase(char *p, int tasks, int node) {
#pragma omp single
  {
    printf("expect %d %d\n", phases++, node);
    for (int i = 0; i < tasks; i++) {
#pragma omp task affinity(p[0]) firstprivate(p)
      p[1] = (char)(p[1] + 1);
    }
  }
}

int main(int argc, char **argv) {
  int tasks = argc > 1 ? atoi(argv[1]) : 8, per_node = argc > 2 ? atoi(argv[2]) : 2,
      nodes = argc > 3 ? atoi(argv[3]) : 2;
  long page = sysconf(_SC_PAGESIZE);
  omp_alloctrait_t nearest[] = {{omp_atk_partition, omp_atv_nearest}};
  omp_alloctrait_t blocked[] = {{omp_atk_partition, omp_atv_blocked}};
  omp_alloctrait_t interleaved[] = {{omp_atk_partition, omp_atv_interleaved}};
  omp_allocator_handle_t an = omp_init_allocator(omp_default_mem_space, 1, nearest);
  omp_allocator_handle_t ab = omp_init_allocator(omp_default_mem_space, 1, blocked);
  omp_allocator_handle_t ai = omp_init_allocator(omp_default_mem_space, 1, interleaved);
  char *buf[64];
  int node_of[64], bad = 0;
#pragma omp parallel proc_bind(close) reduction(+ : bad)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    if (n > 64 || omp_get_place_num() < 0) {
      bad++;
    } else {
      buf[t] = omp_alloc((size_t)page, an);
      buf[t][0] = (char)t; /* the first touch, by the thread the pages are for */
      node_of[t] = omp_get_place_num() / per_node;
    }
#pragma omp barrier
    if (!bad) {
      for (int k = 0; k < n; k++)
        phase(buf[k], tasks, node_of[k]);
      /* 4 pages per node: blocked puts about the first 4 on node 0 (the
         block header shifts the split), the last ones on the last node;
         interleaved page k on node k mod nodes. */
      char *b = NULL, *i = NULL;
#pragma omp single copyprivate(b, i)
      {
        b = omp_alloc((size_t)(4 * nodes) * (size_t)page, ab);
        i = omp_alloc((size_t)(4 * nodes) * (size_t)page, ai);
      }
      phase(b, tasks, 0);
      phase(b + (size_t)(4 * nodes - 1) * (size_t)page, tasks, nodes - 1);
      for (int k = 0; k < 4 * nodes; k++)
        phase(i + (size_t)k * (size_t)page, tasks, k % nodes);
#pragma omp barrier
#pragma omp single
      {
        omp_free(b, ab);
        omp_free(i, ai);
      }
      omp_free(buf[t], an);
    }
  }
  printf("affinity_model: %s\n", bad ? "NO PLACES" : "ok");
  return bad != 0;
}
