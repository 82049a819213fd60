// Exports the GOMP_* entry points Bobbin does not implement (the list is
// gomp_unsupported.inc) as one-line aborts, and the gcc-only omp_* names of
// libgomp that have no Bobbin function (reached only through their libgomp
// version node, see libgomp_versions.inc). These definitions never read
// their arguments, so one signature serves all.
#include "abi/abi_types.hpp"
#include "runtime/api.hpp"

using namespace bobbin;

#define BOBBIN_UNSUPPORTED(name, what) \
  BOBBIN_EXPORT void name() { rt::unsupported(what); }
#include "abi/gomp_unsupported.inc"
#undef BOBBIN_UNSUPPORTED

// Device memory routines: in LLVM they live in libomptarget, so Bobbin keeps
// them off node VERSION (hidden here) and exports them only as
// omp_target_*@OMP_4.5, for gcc-built callers.
#define BOBBIN_GCC_ONLY(name) \
  extern "C" void gcc_only_##name() { rt::unsupported(#name " (device memory routines)"); }
BOBBIN_GCC_ONLY(omp_target_alloc)
BOBBIN_GCC_ONLY(omp_target_associate_ptr)
BOBBIN_GCC_ONLY(omp_target_disassociate_ptr)
BOBBIN_GCC_ONLY(omp_target_free)
BOBBIN_GCC_ONLY(omp_target_is_present)
BOBBIN_GCC_ONLY(omp_target_memcpy)
BOBBIN_GCC_ONLY(omp_target_memcpy_rect)
#undef BOBBIN_GCC_ONLY

// A program with offloaded code registers its device images at start-up and
// exit. Bobbin has no offload device, so there is nothing to register an
// image with: like libgomp without a plugin for the image's device, it is
// ignored (a target region itself aborts, above).
BOBBIN_EXPORT void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
BOBBIN_EXPORT void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}
BOBBIN_EXPORT void GOMP_offload_register(const void*, int, const void*) {}
BOBBIN_EXPORT void GOMP_offload_unregister(const void*, int, const void*) {}
