// LIBOMP14-DEFECT: OMP_ALLOCATOR accepts omp_default_mem_alloc as the only predefined allocator; any other name warns "not available" and leaves omp_default_mem_alloc
/* env_allocator.c's checks, run with OMP_ALLOCATOR naming predefined
 * allocators other than omp_default_mem_alloc (spec 21.5.1 allows each). */
#include "env_allocator.c"
