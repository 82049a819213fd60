// Devices, tools and interop on a host-only runtime (OpenMP 5.2 sections
// 18.7, 19.1 and 18.12).
//
// Bobbin drives no offload device: omp_get_num_devices is 0, and the host's
// device number is that same 0 (spec 18.7.7: the initial device's number
// equals omp_get_num_devices()). default-device-var is kept and reported as
// the program set it; with no devices, target constructs that would use it
// run on the host (libomptarget's decision, not the runtime's).
//
// Tools (OMPT) are ompt.cpp's: omp_control_tool reaches this file's answer,
// omp_control_tool_notool, only when no tool is attached.
//
// Interop objects are created by libomptarget (the interop construct lowers
// to its __tgt_interop_* calls), never by Bobbin. An object other than
// omp_interop_none is therefore handed to the next library that defines the
// same query (libomptarget, or libomp under LD_PRELOAD, which forwards it the
// same way); omp_interop_none is answered here as the spec says: every
// property query gives an "empty" return code.
#include <dlfcn.h>

#include <cstdint>

#include "omp.h"
#include "runtime/api.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "ult/log.hpp"

namespace bobbin::rt {

int num_devices() { return 0; }
int initial_device() { return num_devices(); }
int device_num() { return initial_device(); }
void set_default_device(int device) { writable_icvs(current_thread_fast()).default_device = device; }
int default_device() { return current_thread_fast()->icv.default_device; }

int control_tool(int, int, void*) { return omp_control_tool_notool; }

TargetOffload target_offload() {
  switch (settings().target_offload) {
    case 1: return TargetOffload::Mandatory;
    case 2: return TargetOffload::Disabled;
    default: return TargetOffload::Default;
  }
}

namespace {

// Property ids run from omp_ipr_first (-9) to -1 (spec 18.12, table 18.3);
// Bobbin defines no implementation-specific ones (ids >= 0).
struct Property {
  const char* name;
  const char* type;
};
const Property kProperties[] = {
    {"targetsync", "void *"},          // omp_ipr_targetsync = -9
    {"device_context", "void *"},      // -8
    {"device", "void *"},              // -7
    {"platform", "void *"},            // -6
    {"device_num", "intptr_t"},        // -5
    {"vendor_name", "const char *"},   // -4
    {"vendor", "intptr_t"},            // -3
    {"fr_name", "const char *"},       // -2
    {"fr_id", "intptr_t"},             // -1 (an omp_interop_fr_t)
};

const Property* property(int id) {
  if (id < omp_ipr_first || id >= 0) return nullptr;
  return &kProperties[id - omp_ipr_first];
}

template <class Fn>
Fn next_definition(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) fatal("%s: the interop object was not made by libomptarget (Bobbin makes none)", name);
  return reinterpret_cast<Fn>(f);
}

// The return code of a property query on omp_interop_none.
int none_rc(int id) { return property(id) ? omp_irc_empty : omp_irc_out_of_range; }

}  // namespace

int interop_num_properties(const void* interop) {
  if (interop != omp_interop_none) {
    using Fn = int (*)(const void*);
    return next_definition<Fn>("omp_get_num_interop_properties")(interop);
  }
  return 0;
}

intptr_t interop_int(const void* interop, int id, int* rc) {
  if (interop != omp_interop_none) {
    using Fn = intptr_t (*)(const void*, int, int*);
    return next_definition<Fn>("omp_get_interop_int")(interop, id, rc);
  }
  if (rc) *rc = none_rc(id);
  return 0;
}

void* interop_ptr(const void* interop, int id, int* rc) {
  if (interop != omp_interop_none) {
    using Fn = void* (*)(const void*, int, int*);
    return next_definition<Fn>("omp_get_interop_ptr")(interop, id, rc);
  }
  if (rc) *rc = none_rc(id);
  return nullptr;
}

const char* interop_str(const void* interop, int id, int* rc) {
  if (interop != omp_interop_none) {
    using Fn = const char* (*)(const void*, int, int*);
    return next_definition<Fn>("omp_get_interop_str")(interop, id, rc);
  }
  if (rc) *rc = none_rc(id);
  return nullptr;
}

const char* interop_name(const void* interop, int id) {
  if (interop != omp_interop_none) {
    using Fn = const char* (*)(const void*, int);
    return next_definition<Fn>("omp_get_interop_name")(interop, id);
  }
  const Property* p = property(id);
  return p ? p->name : nullptr;
}

const char* interop_type_desc(const void* interop, int id) {
  if (interop != omp_interop_none) {
    using Fn = const char* (*)(const void*, int);
    return next_definition<Fn>("omp_get_interop_type_desc")(interop, id);
  }
  const Property* p = property(id);
  return p ? p->type : nullptr;
}

const char* interop_rc_desc(const void* interop, int rc) {
  if (interop != omp_interop_none) {
    using Fn = const char* (*)(const void*, int);
    return next_definition<Fn>("omp_get_interop_rc_desc")(interop, rc);
  }
  switch (rc) {
    case omp_irc_no_value: return "parameters valid, no meaningful value available";
    case omp_irc_success: return "successful, value is usable";
    case omp_irc_empty: return "the interop object is omp_interop_none";
    case omp_irc_out_of_range: return "property id is out of range";
    case omp_irc_type_int: return "property type is int; use omp_get_interop_int";
    case omp_irc_type_ptr: return "property type is pointer; use omp_get_interop_ptr";
    case omp_irc_type_str: return "property type is string; use omp_get_interop_str";
    case omp_irc_other: return "other error";
    default: return nullptr;
  }
}

}  // namespace bobbin::rt
