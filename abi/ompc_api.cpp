// The ompc_* names libomp exports for C callers of routines whose Fortran
// binding takes its integers by reference (kmp_csupport.cpp): each is its
// omp_* counterpart (omp_api.cpp). The four affinity-format ones are in
// omp_display.cpp.
#include "abi/abi_types.hpp"
#include "omp.h"

BOBBIN_EXPORT void ompc_set_num_threads(int n) { omp_set_num_threads(n); }
BOBBIN_EXPORT void ompc_set_dynamic(int on) { omp_set_dynamic(on); }
BOBBIN_EXPORT void ompc_set_nested(int on) { omp_set_nested(on); }
BOBBIN_EXPORT void ompc_set_max_active_levels(int n) { omp_set_max_active_levels(n); }
BOBBIN_EXPORT void ompc_set_schedule(omp_sched_t kind, int chunk) { omp_set_schedule(kind, chunk); }
BOBBIN_EXPORT int ompc_get_ancestor_thread_num(int level) { return omp_get_ancestor_thread_num(level); }
BOBBIN_EXPORT int ompc_get_team_size(int level) { return omp_get_team_size(level); }
