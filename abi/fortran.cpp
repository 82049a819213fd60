// The Fortran binding of the omp_* routines (`omp_get_thread_num_`, ...), as
// gfortran calls them: every argument by reference, logicals as 4-byte
// integers, a `_8_` variant for arguments of integer(8) (-fdefault-integer-8),
// character arguments with hidden lengths after the others. The kinds are
// libgomp's on x86_64 Linux (omp_lib.h): omp_lock_kind 4 and
// omp_nest_lock_kind 8, so a lock variable holds Bobbin's lock itself (one and
// two 32-bit words); allocator handles and events are 8 bytes.
//
// Each name is exported at node VERSION (libomp's Fortran entry points have
// the same names and arguments) and at libgomp's node through
// libgomp_versions.inc, so a gfortran binary binds to these under
// LD_PRELOAD and through the libgomp.so.1 compatibility name. The four
// affinity-format routines are omp_display.cpp's Fortran versions.
#include <climits>
#include <cstdint>
#include <vector>

#include "abi/abi_types.hpp"
#include "omp.h"
#include "runtime/api.hpp"

using namespace bobbin;

namespace {
int narrow(int64_t v) { return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : int(v); }
}  // namespace

#define F_GET_INT(name) \
  BOBBIN_EXPORT int32_t name##_(void) { return name(); }
#define F_SET_INT(name)                                                     \
  BOBBIN_EXPORT void name##_(const int32_t* v) { name(*v); }                \
  BOBBIN_EXPORT void name##_8_(const int64_t* v) { name(narrow(*v)); }
#define F_INT_OF_INT(name)                                                    \
  BOBBIN_EXPORT int32_t name##_(const int32_t* v) { return name(*v); }        \
  BOBBIN_EXPORT int32_t name##_8_(const int64_t* v) { return name(narrow(*v)); }

F_SET_INT(omp_set_num_threads)
F_GET_INT(omp_get_num_threads)
F_GET_INT(omp_get_max_threads)
F_GET_INT(omp_get_thread_num)
F_GET_INT(omp_get_num_procs)
F_GET_INT(omp_in_parallel)
F_SET_INT(omp_set_dynamic)
F_GET_INT(omp_get_dynamic)
F_SET_INT(omp_set_nested)
F_GET_INT(omp_get_nested)
F_GET_INT(omp_get_thread_limit)
F_SET_INT(omp_set_max_active_levels)
F_GET_INT(omp_get_max_active_levels)
F_GET_INT(omp_get_supported_active_levels)
F_GET_INT(omp_get_level)
F_INT_OF_INT(omp_get_ancestor_thread_num)
F_INT_OF_INT(omp_get_team_size)
F_GET_INT(omp_get_active_level)
F_GET_INT(omp_in_final)
F_GET_INT(omp_get_cancellation)
F_GET_INT(omp_get_num_places)
F_INT_OF_INT(omp_get_place_num_procs)
F_GET_INT(omp_get_place_num)
F_GET_INT(omp_get_partition_num_places)
F_SET_INT(omp_set_default_device)
F_GET_INT(omp_get_default_device)
F_GET_INT(omp_get_num_devices)
F_GET_INT(omp_get_num_teams)
F_GET_INT(omp_get_team_num)
F_GET_INT(omp_get_initial_device)
F_GET_INT(omp_get_device_num)
F_GET_INT(omp_get_max_task_priority)
F_SET_INT(omp_set_num_teams)
F_GET_INT(omp_get_max_teams)
F_SET_INT(omp_set_teams_thread_limit)
F_GET_INT(omp_get_teams_thread_limit)

BOBBIN_EXPORT int32_t omp_get_proc_bind_(void) { return int32_t(omp_get_proc_bind()); }
BOBBIN_EXPORT int32_t omp_is_initial_device_(void) { return rt::device_num() == rt::initial_device(); }
BOBBIN_EXPORT double omp_get_wtime_(void) { return omp_get_wtime(); }
BOBBIN_EXPORT double omp_get_wtick_(void) { return omp_get_wtick(); }

BOBBIN_EXPORT void omp_set_schedule_(const int32_t* kind, const int32_t* chunk) {
  omp_set_schedule(omp_sched_t(*kind), *chunk);
}
BOBBIN_EXPORT void omp_set_schedule_8_(const int32_t* kind, const int64_t* chunk) {
  omp_set_schedule(omp_sched_t(*kind), narrow(*chunk));
}
BOBBIN_EXPORT void omp_get_schedule_(int32_t* kind, int32_t* chunk) {
  omp_sched_t k;
  int c;
  omp_get_schedule(&k, &c);
  *kind = int32_t(k);
  *chunk = c;
}
BOBBIN_EXPORT void omp_get_schedule_8_(int32_t* kind, int64_t* chunk) {
  omp_sched_t k;
  int c;
  omp_get_schedule(&k, &c);
  *kind = int32_t(k);
  *chunk = c;
}

BOBBIN_EXPORT void omp_get_place_proc_ids_(const int32_t* place, int32_t* ids) { omp_get_place_proc_ids(*place, ids); }
BOBBIN_EXPORT void omp_get_place_proc_ids_8_(const int64_t* place, int64_t* ids) {
  int p = narrow(*place);
  std::vector<int> tmp(static_cast<std::size_t>(omp_get_place_num_procs(p)));
  omp_get_place_proc_ids(p, tmp.data());
  for (std::size_t i = 0; i < tmp.size(); ++i) ids[i] = tmp[i];
}
BOBBIN_EXPORT void omp_get_partition_place_nums_(int32_t* nums) { omp_get_partition_place_nums(nums); }
BOBBIN_EXPORT void omp_get_partition_place_nums_8_(int64_t* nums) {
  std::vector<int> tmp(static_cast<std::size_t>(omp_get_partition_num_places()));
  omp_get_partition_place_nums(tmp.data());
  for (std::size_t i = 0; i < tmp.size(); ++i) nums[i] = tmp[i];
}

// Locks: the Fortran variable is the lock (see the top).
BOBBIN_EXPORT void omp_init_lock_(omp_lock_t* l) { omp_init_lock(l); }
BOBBIN_EXPORT void omp_destroy_lock_(omp_lock_t* l) { omp_destroy_lock(l); }
BOBBIN_EXPORT void omp_set_lock_(omp_lock_t* l) { omp_set_lock(l); }
BOBBIN_EXPORT void omp_unset_lock_(omp_lock_t* l) { omp_unset_lock(l); }
BOBBIN_EXPORT int32_t omp_test_lock_(omp_lock_t* l) { return omp_test_lock(l); }
BOBBIN_EXPORT void omp_init_nest_lock_(omp_nest_lock_t* l) { omp_init_nest_lock(l); }
BOBBIN_EXPORT void omp_destroy_nest_lock_(omp_nest_lock_t* l) { omp_destroy_nest_lock(l); }
BOBBIN_EXPORT void omp_set_nest_lock_(omp_nest_lock_t* l) { omp_set_nest_lock(l); }
BOBBIN_EXPORT void omp_unset_nest_lock_(omp_nest_lock_t* l) { omp_unset_nest_lock(l); }
BOBBIN_EXPORT int32_t omp_test_nest_lock_(omp_nest_lock_t* l) { return omp_test_nest_lock(l); }

BOBBIN_EXPORT int32_t omp_pause_resource_(const int32_t* kind, const int32_t* device) {
  return omp_pause_resource(omp_pause_resource_t(*kind), *device);
}
BOBBIN_EXPORT int32_t omp_pause_resource_all_(const int32_t* kind) {
  return omp_pause_resource_all(omp_pause_resource_t(*kind));
}
BOBBIN_EXPORT void omp_display_env_(const int32_t* verbose) { omp_display_env(*verbose); }
BOBBIN_EXPORT void omp_display_env_8_(const int64_t* verbose) { omp_display_env(*verbose != 0); }

// Allocators: handles are integer(8); a trait is {integer(4) key;
// integer(8) value}, laid out as omp_alloctrait_t.
BOBBIN_EXPORT int64_t omp_init_allocator_(const int64_t* memspace, const int32_t* ntraits,
                                          const omp_alloctrait_t* traits) {
  return int64_t(omp_init_allocator(omp_memspace_handle_t(*memspace), *ntraits, const_cast<omp_alloctrait_t*>(traits)));
}
BOBBIN_EXPORT int64_t omp_init_allocator_8_(const int64_t* memspace, const int64_t* ntraits,
                                            const omp_alloctrait_t* traits) {
  return int64_t(omp_init_allocator(omp_memspace_handle_t(*memspace), narrow(*ntraits), const_cast<omp_alloctrait_t*>(traits)));
}
BOBBIN_EXPORT void omp_destroy_allocator_(const int64_t* a) { omp_destroy_allocator(omp_allocator_handle_t(*a)); }
BOBBIN_EXPORT void omp_set_default_allocator_(const int64_t* a) {
  omp_set_default_allocator(omp_allocator_handle_t(*a));
}
BOBBIN_EXPORT int64_t omp_get_default_allocator_(void) { return int64_t(omp_get_default_allocator()); }

BOBBIN_EXPORT void omp_fulfill_event_(const int64_t* event) { omp_fulfill_event(omp_event_handle_t(*event)); }

// The affinity-format routines: omp_display.cpp's Fortran versions, which
// libomp exports under the plain names.
extern "C" {
void bobbin_ftn_set_affinity_format(const char* format, size_t len) __asm__("omp_set_affinity_format");
size_t bobbin_ftn_get_affinity_format(char* buffer, size_t size) __asm__("omp_get_affinity_format");
void bobbin_ftn_display_affinity(const char* format, size_t len) __asm__("omp_display_affinity");
size_t bobbin_ftn_capture_affinity(char* buffer, const char* format, size_t size, size_t len)
    __asm__("omp_capture_affinity");
}
BOBBIN_EXPORT void omp_set_affinity_format_(const char* format, size_t len) {
  bobbin_ftn_set_affinity_format(format, len);
}
BOBBIN_EXPORT int32_t omp_get_affinity_format_(char* buffer, size_t size) {
  return int32_t(bobbin_ftn_get_affinity_format(buffer, size));
}
BOBBIN_EXPORT void omp_display_affinity_(const char* format, size_t len) { bobbin_ftn_display_affinity(format, len); }
BOBBIN_EXPORT int32_t omp_capture_affinity_(char* buffer, const char* format, size_t size, size_t len) {
  return int32_t(bobbin_ftn_capture_affinity(buffer, format, size, len));
}

// Names libomp 19 exports beyond libgomp 12's binding (at VERSION only).
BOBBIN_EXPORT int32_t omp_in_explicit_task_(void) { return rt::in_explicit_task(); }
BOBBIN_EXPORT void omp_init_lock_with_hint_(omp_lock_t* l, const int32_t*) { omp_init_lock(l); }
BOBBIN_EXPORT void omp_init_nest_lock_with_hint_(omp_nest_lock_t* l, const int32_t*) { omp_init_nest_lock(l); }
// libomp declares these with arguments by value, as the C routines; so do we.
BOBBIN_EXPORT int32_t omp_control_tool_(int command, int modifier, void* arg) {
  return omp_control_tool(command, modifier, arg);
}
BOBBIN_EXPORT int32_t omp_get_num_interop_properties_(const omp_interop_t interop) {
  return omp_get_num_interop_properties(interop);
}
BOBBIN_EXPORT omp_intptr_t omp_get_interop_int_(const omp_interop_t interop, omp_interop_property_t id, int* rc) {
  return omp_get_interop_int(interop, id, rc);
}
BOBBIN_EXPORT void* omp_get_interop_ptr_(const omp_interop_t interop, omp_interop_property_t id, int* rc) {
  return omp_get_interop_ptr(interop, id, rc);
}
BOBBIN_EXPORT const char* omp_get_interop_str_(const omp_interop_t interop, omp_interop_property_t id, int* rc) {
  return omp_get_interop_str(interop, id, rc);
}
BOBBIN_EXPORT const char* omp_get_interop_name_(const omp_interop_t interop, omp_interop_property_t id) {
  return omp_get_interop_name(interop, id);
}
BOBBIN_EXPORT const char* omp_get_interop_type_desc_(const omp_interop_t interop, omp_interop_property_t id) {
  return omp_get_interop_type_desc(interop, id);
}
BOBBIN_EXPORT const char* omp_get_interop_rc_desc_(const omp_interop_t interop, omp_interop_rc_t rc) {
  return omp_get_interop_rc_desc(interop, rc);
}
