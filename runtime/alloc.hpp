// Memory allocators (alloc.cpp): the parts settings.cpp and display.cpp need
// besides the api.hpp entry points.
#pragma once

#include <string>

#include "runtime/settings.hpp"

namespace bobbin::rt {

// OMP_ALLOCATOR (spec 21.5.1): `omp_<kind>_mem_alloc`, or
// `omp_<kind>_mem_space[:trait=value[,trait=value]...]` with trait names and
// values spelled without their omp_atk_ / omp_atv_ prefixes
// (`omp_high_bw_mem_space:pinned=true,alignment=64,fallback=abort_fb`).
// Sizes (alignment, pool_size) are bytes, with an optional K, M or G suffix;
// fb_data names a predefined allocator. False (and a reason) if invalid.
bool parse_allocator_setting(const std::string& text, AllocatorSetting* out, std::string* why);

// A modelled machine of several NUMA nodes (BOBBIN_TOPOLOGY) on a host of
// one, where the kernel puts every page on node 0: the pages a partition
// trait places are recorded with the modelled node they were placed for
// (nearest: the calling thread's worker's; blocked; interleaved), until
// they are freed. The modelled node holding addr, or -1 if no such
// allocator placed it. The affinity clause reads it (task.cpp).
int modelled_node_of(const void* addr);
// task.cpp: the modelled NUMA nodes when there are several on a host of one
// (0 otherwise), and the one the calling thread's worker is under.
int modelled_memory_nodes();
int modelled_memory_node_here();

}  // namespace bobbin::rt
