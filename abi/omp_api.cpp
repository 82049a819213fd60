// The omp_* user API (omp.h): each routine translates its arguments and
// calls runtime/.
#include <climits>

#include "abi/abi_types.hpp"
#include "abi/ompt_entry.hpp"
#include "omp.h"
#include "runtime/api.hpp"

using namespace bobbin;

BOBBIN_EXPORT void omp_set_num_threads(int n) { rt::set_num_threads(n); }
BOBBIN_EXPORT int omp_get_num_threads(void) { return rt::num_threads(); }
BOBBIN_EXPORT int omp_get_max_threads(void) { return rt::max_threads(); }
BOBBIN_EXPORT int omp_get_thread_num(void) { return rt::thread_num(); }
BOBBIN_EXPORT int omp_get_num_procs(void) { return rt::num_procs(); }
BOBBIN_EXPORT int omp_in_parallel(void) { return rt::in_parallel(); }
BOBBIN_EXPORT void omp_set_dynamic(int on) { rt::set_dynamic(on != 0); }
BOBBIN_EXPORT int omp_get_dynamic(void) { return rt::get_dynamic(); }
// omp_set_nested is deprecated: it maps onto max-active-levels-var (spec 3.2.10).
BOBBIN_EXPORT void omp_set_nested(int on) { rt::set_max_active_levels(on ? INT_MAX : 1); }
BOBBIN_EXPORT int omp_get_nested(void) { return rt::get_max_active_levels() > 1; }
BOBBIN_EXPORT int omp_get_level(void) { return rt::level(); }
BOBBIN_EXPORT int omp_get_active_level(void) { return rt::active_level(); }
BOBBIN_EXPORT int omp_get_ancestor_thread_num(int level) { return rt::ancestor_thread_num(level); }
BOBBIN_EXPORT int omp_get_team_size(int level) { return rt::team_size(level); }
BOBBIN_EXPORT int omp_get_thread_limit(void) { return rt::thread_limit(); }
BOBBIN_EXPORT void omp_set_max_active_levels(int n) { rt::set_max_active_levels(n); }
BOBBIN_EXPORT int omp_get_max_active_levels(void) { return rt::get_max_active_levels(); }
BOBBIN_EXPORT int omp_get_supported_active_levels(void) { return rt::supported_active_levels(); }
BOBBIN_EXPORT double omp_get_wtime(void) { return rt::wtime(); }
BOBBIN_EXPORT double omp_get_wtick(void) { return rt::wtick(); }

BOBBIN_EXPORT void omp_set_schedule(omp_sched_t kind, int chunk) {
  rt::Schedule s;
  s.monotonic = (unsigned(kind) & unsigned(omp_sched_monotonic)) != 0;
  s.kind = int(unsigned(kind) & ~unsigned(omp_sched_monotonic));
  // Not a schedule the spec defines, nor libomp's trapezoidal: ignored, as libomp does.
  if ((s.kind < 1 || s.kind > 4) && s.kind != rt::kSchedTrapezoidal) return;
  // A chunk below 1 means "the default" (spec 3.2.11): reported as libomp
  // does, 0 for static (one block per thread) and 1 for the others.
  s.chunk = chunk >= 1 ? chunk : s.kind == int(omp_sched_static) ? 0 : 1;
  rt::set_schedule(s);
}
BOBBIN_EXPORT void omp_get_schedule(omp_sched_t* kind, int* chunk) {
  rt::Schedule s = rt::get_schedule();
  *kind = omp_sched_t(unsigned(s.kind) | (s.monotonic ? unsigned(omp_sched_monotonic) : 0u));
  *chunk = s.chunk;
}

BOBBIN_EXPORT void omp_init_lock(omp_lock_t* l) {
  rt::ensure_initialized();  // a tool starts here at the latest, as with libomp
  BOBBIN_TRACED(traced_lock_init(l, false, 0, BOBBIN_RA));
  rt::lock_init(l);
}
BOBBIN_EXPORT void omp_init_lock_with_hint(omp_lock_t* l, omp_lock_hint_t hint) {
  rt::ensure_initialized();  // a tool starts here at the latest, as with libomp
  BOBBIN_TRACED(traced_lock_init(l, false, unsigned(hint), BOBBIN_RA));
  rt::lock_init(l);
}
BOBBIN_EXPORT void omp_destroy_lock(omp_lock_t* l) {
  BOBBIN_TRACED(traced_lock_destroy(l, false, BOBBIN_RA));
  rt::lock_destroy(l);
}
BOBBIN_EXPORT void omp_set_lock(omp_lock_t* l) {
  BOBBIN_TRACED(traced_lock_set(l, BOBBIN_RA));
  rt::lock_set_inline(l);
}
BOBBIN_EXPORT void omp_unset_lock(omp_lock_t* l) {
  BOBBIN_TRACED(traced_lock_unset(l, BOBBIN_RA));
  rt::lock_unset_inline(l);
}
BOBBIN_EXPORT int omp_test_lock(omp_lock_t* l) {
  BOBBIN_TRACED(traced_lock_test(l, BOBBIN_RA));
  return rt::lock_test(l);
}
BOBBIN_EXPORT void omp_init_nest_lock(omp_nest_lock_t* l) {
  rt::ensure_initialized();  // a tool starts here at the latest, as with libomp
  BOBBIN_TRACED(traced_lock_init(l, true, 0, BOBBIN_RA));
  rt::nest_lock_init(l);
}
BOBBIN_EXPORT void omp_init_nest_lock_with_hint(omp_nest_lock_t* l, omp_lock_hint_t hint) {
  rt::ensure_initialized();  // a tool starts here at the latest, as with libomp
  BOBBIN_TRACED(traced_lock_init(l, true, unsigned(hint), BOBBIN_RA));
  rt::nest_lock_init(l);
}
BOBBIN_EXPORT void omp_destroy_nest_lock(omp_nest_lock_t* l) {
  BOBBIN_TRACED(traced_lock_destroy(l, true, BOBBIN_RA));
  rt::nest_lock_destroy(l);
}
BOBBIN_EXPORT void omp_set_nest_lock(omp_nest_lock_t* l) {
  BOBBIN_TRACED(traced_nest_lock_set(l, BOBBIN_RA));
  rt::nest_lock_set(l);
}
BOBBIN_EXPORT void omp_unset_nest_lock(omp_nest_lock_t* l) {
  BOBBIN_TRACED(traced_nest_lock_unset(l, BOBBIN_RA));
  rt::nest_lock_unset(l);
}
BOBBIN_EXPORT int omp_test_nest_lock(omp_nest_lock_t* l) {
  BOBBIN_TRACED(traced_nest_lock_test(l, BOBBIN_RA));
  return rt::nest_lock_test(l);
}

BOBBIN_EXPORT int omp_in_final(void) { return rt::in_final(); }
BOBBIN_EXPORT int omp_get_max_task_priority(void) { return rt::max_task_priority(); }
BOBBIN_EXPORT void omp_fulfill_event(omp_event_handle_t event) { rt::fulfill_event(reinterpret_cast<void*>(event)); }

BOBBIN_EXPORT int omp_get_num_places(void) { return rt::num_places(); }
BOBBIN_EXPORT int omp_get_place_num_procs(int place) { return rt::place_num_procs(place); }
BOBBIN_EXPORT void omp_get_place_proc_ids(int place, int* ids) { rt::place_proc_ids(place, ids); }
BOBBIN_EXPORT int omp_get_place_num(void) { return rt::place_num(); }
BOBBIN_EXPORT int omp_get_partition_num_places(void) { return rt::partition_num_places(); }
BOBBIN_EXPORT void omp_get_partition_place_nums(int* places) { rt::partition_place_nums(places); }
BOBBIN_EXPORT omp_proc_bind_t omp_get_proc_bind(void) { return omp_proc_bind_t(rt::proc_bind()); }

BOBBIN_EXPORT int omp_get_num_teams(void) { return rt::num_teams(); }
BOBBIN_EXPORT int omp_get_team_num(void) { return rt::team_num(); }
BOBBIN_EXPORT void omp_set_num_teams(int n) { rt::set_num_teams(n); }
BOBBIN_EXPORT int omp_get_max_teams(void) { return rt::get_max_teams(); }
BOBBIN_EXPORT void omp_set_teams_thread_limit(int n) { rt::set_teams_thread_limit(n); }
BOBBIN_EXPORT int omp_get_teams_thread_limit(void) { return rt::get_teams_thread_limit(); }

BOBBIN_EXPORT int omp_get_cancellation(void) { return rt::cancellation_enabled(); }

// Only the host exists: it is device omp_get_initial_device() == omp_get_num_devices() == 0.
BOBBIN_EXPORT int omp_pause_resource(omp_pause_resource_t kind, int device) {
  return device == 0 ? rt::pause_resources(int(kind)) : -1;
}
BOBBIN_EXPORT int omp_pause_resource_all(omp_pause_resource_t kind) { return rt::pause_resources(int(kind)); }

// Lets a program (and the test suite) tell which runtime it runs on.
BOBBIN_EXPORT const char* bobbin_version(void) { return rt::version_string(); }
