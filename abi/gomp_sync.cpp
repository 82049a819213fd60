// GOMP_* entry points for barriers, single (with and without copyprivate),
// critical, the atomic fallback lock, scope, the error directive and the
// allocator calls gcc emits for the allocate clause.
#include <cstring>

#include "abi/gomp_types.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi::gomp;

BOBBIN_EXPORT void GOMP_barrier(void) {
  BOBBIN_OMPT_ENTRY;
  BOBBIN_TRACED(traced_barrier(ompt_sync_region_barrier_explicit, rt::ompt::return_address()));
  rt::barrier();
}
BOBBIN_EXPORT bool GOMP_barrier_cancel(void) { return rt::cancel_barrier(); }

BOBBIN_EXPORT bool GOMP_single_start(void) {
  // gcc calls nothing at the block's end: the single is a point for a tool.
  BOBBIN_TRACED(traced_single_start(BOBBIN_RA));
  return rt::single_begin();
}
// single copyprivate(...): null for the thread that runs the block; the
// others get its data once it called GOMP_single_copy_end (gcc then copies
// and calls GOMP_barrier).
BOBBIN_EXPORT void* GOMP_single_copy_start(void) { return rt::single_copy_begin(); }
BOBBIN_EXPORT void GOMP_single_copy_end(void* data) { rt::single_copy_end(data); }

BOBBIN_EXPORT void GOMP_critical_start(void) {
  BOBBIN_TRACED(traced_critical_begin(&rt::unnamed_critical_word, 0, BOBBIN_RA));
  rt::lock_set_inline(&rt::unnamed_critical_word);
}
BOBBIN_EXPORT void GOMP_critical_end(void) {
  BOBBIN_TRACED(traced_critical_end(&rt::unnamed_critical_word, BOBBIN_RA));
  rt::lock_unset_inline(&rt::unnamed_critical_word);
}
// critical(name): gcc passes a zero-initialised pointer-sized variable per
// name (.gomp_critical_user_<name>); the runtime's lock word fits in it.
BOBBIN_EXPORT void GOMP_critical_name_start(void** name) {
  BOBBIN_TRACED(traced_critical_begin(name, 0, BOBBIN_RA));
  rt::lock_set_inline(name);
}
BOBBIN_EXPORT void GOMP_critical_name_end(void** name) {
  BOBBIN_TRACED(traced_critical_end(name, BOBBIN_RA));
  rt::lock_unset_inline(name);
}
BOBBIN_EXPORT void GOMP_atomic_start(void) { rt::atomic_fallback_begin(); }
BOBBIN_EXPORT void GOMP_atomic_end(void) { rt::atomic_fallback_end(); }

// scope with task reductions (gcc emits nothing for a scope without them): a
// worksharing construct without iterations; gcc follows it with a barrier and
// GOMP_workshare_task_reduction_unregister.
BOBBIN_EXPORT void GOMP_scope_start(uintptr_t* reductions) {
  Reductions red(reductions);
  rt::WorkshareStart w;
  w.loop = false;
  w.reductions = red.blocks();
  w.nreductions = red.size();
  int64_t lo, hi, st;
  bool last;
  rt::workshare_begin(w, &lo, &hi, &st, &last);
  red.write_back(nullptr);
}

// The error directive at execution (OpenMP 5.1). msglen is the message's
// length, or kMsgNulTerminated for a C string.
BOBBIN_EXPORT void GOMP_warning(const char* msg, size_t msglen) {
  if (rt::ompt::on()) [[unlikely]]
    rt::ompt::error(false, msg, msg && msglen == kMsgNulTerminated ? strlen(msg) : msglen, BOBBIN_RA);
  rt::error_directive(msg, msg && msglen == kMsgNulTerminated ? strlen(msg) : msglen, false, true);
}
BOBBIN_EXPORT void GOMP_error(const char* msg, size_t msglen) {
  if (rt::ompt::on()) [[unlikely]]
    rt::ompt::error(true, msg, msg && msglen == kMsgNulTerminated ? strlen(msg) : msglen, BOBBIN_RA);
  rt::error_directive(msg, msg && msglen == kMsgNulTerminated ? strlen(msg) : msglen, true, true);
}

// The allocate clause on private variables (gcc 12 emits these for
// allocate(allocator: list) on a construct).
BOBBIN_EXPORT void* GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator) {
  return rt::mem_alloc_clause(size, alignment, allocator);
}
BOBBIN_EXPORT void GOMP_free(void* ptr, uintptr_t /*allocator*/) { rt::mem_free(ptr); }
