// __kmpc_* entry points for barriers, single, master/masked, critical,
// flush, copyprivate and threadprivate.
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>

#include "abi/abi_types.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

namespace {
// The ident's barrier bits (libomp's KMP_IDENT_BARRIER_*): explicit, or one
// of the implicit kinds.
ompt_sync_region_t barrier_kind(const ident_t* loc) {
  return loc && (loc->flags & 0x1E0) == 0x20 ? ompt_sync_region_barrier_explicit : rt::ompt::kImplicitBarrier;
}
}  // namespace

BOBBIN_EXPORT void __kmpc_barrier(ident_t* loc, kmp_int32) {
  BOBBIN_OMPT_ENTRY;
  BOBBIN_TRACED(traced_barrier(barrier_kind(loc), rt::ompt::return_address()));
  rt::barrier();
}
BOBBIN_EXPORT kmp_int32 __kmpc_single(ident_t*, kmp_int32) {
  BOBBIN_TRACED(traced_single_begin(BOBBIN_RA));
  return rt::single_begin();
}
BOBBIN_EXPORT void __kmpc_end_single(ident_t*, kmp_int32) {
  BOBBIN_TRACED(traced_single_end(BOBBIN_RA));
  rt::single_end();
}
BOBBIN_EXPORT kmp_int32 __kmpc_master(ident_t*, kmp_int32) {
  BOBBIN_TRACED(traced_masked_begin(0, BOBBIN_RA));
  return rt::masked_begin(0);
}
BOBBIN_EXPORT void __kmpc_end_master(ident_t*, kmp_int32) { BOBBIN_TRACED(traced_masked_end(BOBBIN_RA)); }
BOBBIN_EXPORT kmp_int32 __kmpc_masked(ident_t*, kmp_int32, kmp_int32 filter) {
  BOBBIN_TRACED(traced_masked_begin(filter, BOBBIN_RA));
  return rt::masked_begin(filter);
}
BOBBIN_EXPORT void __kmpc_end_masked(ident_t*, kmp_int32) { BOBBIN_TRACED(traced_masked_end(BOBBIN_RA)); }

BOBBIN_EXPORT void __kmpc_critical(ident_t*, kmp_int32, kmp_critical_name* crit) {
  BOBBIN_TRACED(traced_critical_begin(crit, 0, BOBBIN_RA));
  rt::lock_set_inline(crit);
}
BOBBIN_EXPORT void __kmpc_critical_with_hint(ident_t*, kmp_int32, kmp_critical_name* crit, kmp_uint32 hint) {
  BOBBIN_TRACED(traced_critical_begin(crit, hint, BOBBIN_RA));
  rt::critical_begin(crit);
}
BOBBIN_EXPORT void __kmpc_end_critical(ident_t*, kmp_int32, kmp_critical_name* crit) {
  BOBBIN_TRACED(traced_critical_end(crit, BOBBIN_RA));
  rt::lock_unset_inline(crit);
}

BOBBIN_EXPORT void __kmpc_flush(ident_t*) {
  if (rt::ompt::on()) [[unlikely]] rt::ompt::traced_flush(BOBBIN_RA);
  rt::flush();
}

BOBBIN_EXPORT void __kmpc_copyprivate(ident_t*, kmp_int32, size_t, void* data, void (*copy)(void*, void*),
                                      kmp_int32 didit) {
  rt::copyprivate(data, copy, didit != 0);
}

BOBBIN_EXPORT void* __kmpc_threadprivate_cached(ident_t*, kmp_int32, void* data, size_t size, void*** cache) {
  return rt::threadprivate_cached(data, size, cache);
}
BOBBIN_EXPORT void __kmpc_threadprivate_register(ident_t*, void* data, void* (*ctor)(void*),
                                                 void* (*cctor)(void*, void*), void (*dtor)(void*)) {
  rt::threadprivate_register(data, ctor, cctor, dtor);
}

// barrier with a master block. __kmpc_barrier_master: every thread arrives;
// thread 0 returns 1 and runs the block while the others stay in the
// barrier until it calls __kmpc_end_barrier_master (libomp's split barrier:
// here the arrival and the release are two barriers, the second one joined
// by thread 0 at the end of its block). The nowait form is a barrier, after
// which thread 0 runs the block and the others go on.
BOBBIN_EXPORT kmp_int32 __kmpc_barrier_master(ident_t*, kmp_int32) {
  rt::barrier();
  if (rt::masked_begin(0)) return 1;
  rt::barrier();
  return 0;
}
BOBBIN_EXPORT void __kmpc_end_barrier_master(ident_t*, kmp_int32) { rt::barrier(); }
BOBBIN_EXPORT kmp_int32 __kmpc_barrier_master_nowait(ident_t*, kmp_int32) {
  rt::barrier();
  return rt::masked_begin(0);
}

// scope (OpenMP 5.1): the construct's barrier and reductions are separate
// calls; the begin and end only mark it for tools, as in libomp.
BOBBIN_EXPORT void __kmpc_scope(ident_t*, kmp_int32, void*) {
  if (rt::ompt::on()) [[unlikely]] rt::ompt::work_here(ompt_work_scope, ompt_scope_begin, 1, BOBBIN_RA);
}
BOBBIN_EXPORT void __kmpc_end_scope(ident_t*, kmp_int32, void*) {
  if (rt::ompt::on()) [[unlikely]] rt::ompt::work_here(ompt_work_scope, ompt_scope_end, 1, BOBBIN_RA);
}

// The error directive at execution time: severity 1 warning, 2 fatal.
BOBBIN_EXPORT void __kmpc_error(ident_t*, int severity, const char* message) {
  if (rt::ompt::on()) [[unlikely]]
    rt::ompt::error(severity == 2, message, message ? strlen(message) : 0, BOBBIN_RA);
  rt::error_directive(message, message ? strlen(message) : 0, severity == 2, false);
}

// The lock routines in their kmpc spelling (what libomp's omp_*_lock call;
// Intel's compilers call them directly): `lock` is the program's omp_lock_t
// or omp_nest_lock_t, the same storage the omp_* routines use.
BOBBIN_EXPORT void __kmpc_init_lock(ident_t*, kmp_int32, void** lock) {
  rt::ensure_initialized();  // a tool starts here at the latest, as with libomp
  BOBBIN_TRACED(traced_lock_init(lock, false, 0, BOBBIN_RA));
  rt::lock_init(lock);
}
BOBBIN_EXPORT void __kmpc_init_lock_with_hint(ident_t*, kmp_int32, void** lock, uintptr_t hint) {
  rt::ensure_initialized();  // a tool starts here at the latest, as with libomp
  BOBBIN_TRACED(traced_lock_init(lock, false, unsigned(hint), BOBBIN_RA));
  rt::lock_init(lock);
}
BOBBIN_EXPORT void __kmpc_destroy_lock(ident_t*, kmp_int32, void** lock) {
  BOBBIN_TRACED(traced_lock_destroy(lock, false, BOBBIN_RA));
  rt::lock_destroy(lock);
}
BOBBIN_EXPORT void __kmpc_set_lock(ident_t*, kmp_int32, void** lock) {
  BOBBIN_TRACED(traced_lock_set(lock, BOBBIN_RA));
  rt::lock_set_inline(lock);
}
BOBBIN_EXPORT void __kmpc_unset_lock(ident_t*, kmp_int32, void** lock) {
  BOBBIN_TRACED(traced_lock_unset(lock, BOBBIN_RA));
  rt::lock_unset_inline(lock);
}
BOBBIN_EXPORT int __kmpc_test_lock(ident_t*, kmp_int32, void** lock) {
  BOBBIN_TRACED(traced_lock_test(lock, BOBBIN_RA));
  return rt::lock_test(lock);
}
BOBBIN_EXPORT void __kmpc_init_nest_lock(ident_t*, kmp_int32, void** lock) {
  rt::ensure_initialized();  // a tool starts here at the latest, as with libomp
  BOBBIN_TRACED(traced_lock_init(lock, true, 0, BOBBIN_RA));
  rt::nest_lock_init(lock);
}
BOBBIN_EXPORT void __kmpc_init_nest_lock_with_hint(ident_t*, kmp_int32, void** lock, uintptr_t hint) {
  rt::ensure_initialized();  // a tool starts here at the latest, as with libomp
  BOBBIN_TRACED(traced_lock_init(lock, true, unsigned(hint), BOBBIN_RA));
  rt::nest_lock_init(lock);
}
BOBBIN_EXPORT void __kmpc_destroy_nest_lock(ident_t*, kmp_int32, void** lock) {
  BOBBIN_TRACED(traced_lock_destroy(lock, true, BOBBIN_RA));
  rt::nest_lock_destroy(lock);
}
BOBBIN_EXPORT void __kmpc_set_nest_lock(ident_t*, kmp_int32, void** lock) {
  BOBBIN_TRACED(traced_nest_lock_set(lock, BOBBIN_RA));
  rt::nest_lock_set(lock);
}
BOBBIN_EXPORT void __kmpc_unset_nest_lock(ident_t*, kmp_int32, void** lock) {
  BOBBIN_TRACED(traced_nest_lock_unset(lock, BOBBIN_RA));
  rt::nest_lock_unset(lock);
}
BOBBIN_EXPORT int __kmpc_test_nest_lock(ident_t*, kmp_int32, void** lock) {
  BOBBIN_TRACED(traced_nest_lock_test(lock, BOBBIN_RA));
  return rt::nest_lock_test(lock);
}

// copyprivate as LLVM 19 lowers it: the thread that ran the single block
// passes its data, the others null; every thread gets that pointer back and
// the compiler copies (then waits at its own barrier).
namespace {
void copy_pointer(void* dst, void* src) { *static_cast<void**>(dst) = *static_cast<void**>(src); }
}  // namespace
BOBBIN_EXPORT void* __kmpc_copyprivate_light(ident_t*, kmp_int32, void* data) {
  void* shared = data;
  rt::copyprivate(&shared, &copy_pointer, data != nullptr);
  return shared;
}

// A threadprivate array of C++ objects: vector constructors called with the
// element count.
BOBBIN_EXPORT void __kmpc_threadprivate_register_vec(ident_t*, void* data, void* (*ctor)(void*, size_t),
                                                     void* (*cctor)(void*, void*, size_t),
                                                     void (*dtor)(void*, size_t), size_t vector_length) {
  rt::threadprivate_register_vec(data, ctor, cctor, dtor, vector_length);
}

// libomp's lower-level threadprivate calls, exported without its __kmp
// prefix. insert_private_data gives the initial value later copies start
// from; insert makes the calling thread's copy and returns libomp's
// private_common record of it ({next, link, global address, this thread's
// address, size}), one per thread and variable, kept for the process.
struct private_common {
  private_common* next;
  private_common* link;
  void* gbl_addr;
  void* par_addr;
  size_t cmn_size;
};

BOBBIN_EXPORT void kmp_threadprivate_insert_private_data(int, void* pc_addr, void* data_addr, size_t pc_size) {
  if (data_addr) rt::threadprivate_set_initial(pc_addr, data_addr, pc_size);
}

BOBBIN_EXPORT private_common* kmp_threadprivate_insert(int, void* pc_addr, void* data_addr, size_t pc_size) {
  if (data_addr && data_addr != pc_addr) rt::threadprivate_set_initial(pc_addr, data_addr, pc_size);
  void* copy = rt::threadprivate_lookup(pc_addr, pc_size);
  // Never destroyed: records live as long as the process, and threads may
  // still ask for them after the static destructors ran.
  static std::mutex& records_mutex = *new std::mutex;
  static auto& records = *new std::map<std::pair<void*, void*>, private_common*>;
  std::lock_guard<std::mutex> g(records_mutex);
  private_common*& r = records[{pc_addr, copy}];
  if (!r) r = new private_common{nullptr, nullptr, pc_addr, copy, pc_size};
  return r;
}

// threadprivate without a cache slot (Intel's compilers).
BOBBIN_EXPORT void* __kmpc_threadprivate(ident_t*, kmp_int32, void* data, size_t size) {
  return rt::threadprivate_lookup(data, size);
}
