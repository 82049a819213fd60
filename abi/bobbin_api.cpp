// Bobbin's own entry points (include/bobbin.h).
#include "abi/abi_types.hpp"
#include "include/bobbin.h"
#include "runtime/api.hpp"

using namespace bobbin;

BOBBIN_EXPORT void bobbin_set_nested_mode(bobbin_nested_mode_t mode, int next_only) {
  rt::set_nested_mode(int(mode), next_only != 0);
}
BOBBIN_EXPORT bobbin_nested_mode_t bobbin_get_nested_mode(void) { return bobbin_nested_mode_t(rt::nested_mode()); }
BOBBIN_EXPORT void ompx_set_gang_sched(void) { rt::set_nested_mode(1, false); }
BOBBIN_EXPORT void ompx_reset_gang_sched(void) { rt::set_nested_mode(0, false); }
BOBBIN_EXPORT void bobbin_print_scheduler_state(void) { rt::print_scheduler_state(); }
