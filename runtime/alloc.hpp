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

}  // namespace bobbin::rt
