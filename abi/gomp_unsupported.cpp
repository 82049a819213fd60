// Exports the GOMP_* entry points Bobbin does not implement (the list is
// gomp_unsupported.inc) as one-line aborts, and the gcc-only omp_* names of
// libgomp that have no Bobbin function (reached only through their libgomp
// version node, see libgomp_versions.inc). These definitions never read
// their arguments, so one signature serves all. The device constructs and
// memory routines are in gomp_target.cpp.
#include "abi/abi_types.hpp"
#include "runtime/api.hpp"

using namespace bobbin;

#define BOBBIN_UNSUPPORTED(name, what) \
  BOBBIN_EXPORT void name() { rt::unsupported(what); }
#include "abi/gomp_unsupported.inc"
#undef BOBBIN_UNSUPPORTED

// A program with offloaded code registers its device images at start-up and
// exit. Bobbin has no offload device, so there is nothing to register an
// image with: like libgomp without a plugin for the image's device, it is
// ignored (a target region runs on the host, gomp_target.cpp).
BOBBIN_EXPORT void GOMP_offload_register_ver(unsigned, const void*, int, const void*) {}
BOBBIN_EXPORT void GOMP_offload_unregister_ver(unsigned, const void*, int, const void*) {}
BOBBIN_EXPORT void GOMP_offload_register(const void*, int, const void*) {}
BOBBIN_EXPORT void GOMP_offload_unregister(const void*, int, const void*) {}
