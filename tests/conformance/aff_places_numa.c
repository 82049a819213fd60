// LIBOMP14-DEFECT: OMP_PLACES=numa_domains on a machine with one NUMA node gives one place per core, with "Warning #192: KMP_AFFINITY: granularity setting: NUMA domain does not exist in topology", instead of one place holding every core of the node (on a machine with several nodes it may pass).
/* OMP_PLACES=numa_domains: one place per NUMA domain, each holding the
   processors whose closest memory is that node (sysfs), even when the
   machine has a single domain. aff_places.c with a row of its own. */
#include "aff_places.c"
