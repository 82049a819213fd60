// Device, tool and interop queries (omp.h) of a host-only runtime: each calls
// runtime/device.cpp through api.hpp.
#include "abi/abi_types.hpp"
#include "abi/ompt_entry.hpp"
#include "omp.h"
#include "runtime/api.hpp"

using namespace bobbin;

BOBBIN_EXPORT int omp_get_num_devices(void) { return rt::num_devices(); }
BOBBIN_EXPORT int omp_get_initial_device(void) { return rt::initial_device(); }
// omp.h makes this an inline function in host code; the symbol serves callers
// compiled without it (and other languages).
BOBBIN_EXPORT int bobbin_is_initial_device(void) __asm__("omp_is_initial_device");
int bobbin_is_initial_device(void) { return rt::device_num() == rt::initial_device(); }
BOBBIN_EXPORT int omp_get_device_num(void) { return rt::device_num(); }
BOBBIN_EXPORT int omp_get_default_device(void) { return rt::default_device(); }
BOBBIN_EXPORT void omp_set_default_device(int device) { rt::set_default_device(device); }
BOBBIN_EXPORT int omp_control_tool(int command, int modifier, void* arg) {
  BOBBIN_OMPT_ENTRY;
  if (rt::ompt::on()) return rt::ompt::control_tool(uint64_t(command), uint64_t(modifier), arg, rt::ompt::return_address());
  return rt::control_tool(command, modifier, arg);
}

BOBBIN_EXPORT int omp_get_num_interop_properties(const omp_interop_t interop) {
  return rt::interop_num_properties(interop);
}
BOBBIN_EXPORT omp_intptr_t omp_get_interop_int(const omp_interop_t interop, omp_interop_property_t id, int* rc) {
  return rt::interop_int(interop, id, rc);
}
BOBBIN_EXPORT void* omp_get_interop_ptr(const omp_interop_t interop, omp_interop_property_t id, int* rc) {
  return rt::interop_ptr(interop, id, rc);
}
BOBBIN_EXPORT const char* omp_get_interop_str(const omp_interop_t interop, omp_interop_property_t id, int* rc) {
  return rt::interop_str(interop, id, rc);
}
BOBBIN_EXPORT const char* omp_get_interop_name(const omp_interop_t interop, omp_interop_property_t id) {
  return rt::interop_name(interop, id);
}
BOBBIN_EXPORT const char* omp_get_interop_type_desc(const omp_interop_t interop, omp_interop_property_t id) {
  return rt::interop_type_desc(interop, id);
}
BOBBIN_EXPORT const char* omp_get_interop_rc_desc(const omp_interop_t interop, omp_interop_rc_t rc) {
  return rt::interop_rc_desc(interop, rc);
}

// libomptarget asks the host runtime for target-offload-var at start-up, in
// libomp's numbering (kmp_target_offload_kind: 0 disabled, 1 default, 2 mandatory).
BOBBIN_EXPORT int __kmpc_get_target_offload(void) {
  switch (rt::target_offload()) {
    case rt::TargetOffload::Disabled: return 0;
    case rt::TargetOffload::Mandatory: return 2;
    default: return 1;
  }
}
