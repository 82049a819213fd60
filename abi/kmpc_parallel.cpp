// __kmpc_* entry points for parallel regions and thread identity.
#include <cstdarg>

#include "abi/abi_types.hpp"
#include "abi/captured_args.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

using kmpc_micro = void (*)(kmp_int32* gtid, kmp_int32* tid, ...);

// libomp's default invoker of a region's outlined function: runs it for the
// calling thread (gtid is the caller's). 1 when it ran; 0 outside a region.
BOBBIN_EXPORT int __kmpc_invoke_task_func(int) { return rt::invoke_current_body() ? 1 : 0; }

BOBBIN_EXPORT void __kmpc_fork_call(ident_t*, kmp_int32 argc, kmpc_micro microtask, ...) {
  BOBBIN_OMPT_ENTRY;
  va_list ap;
  va_start(ap, microtask);
  abi::CapturedArgs argv(argc, ap);
  va_end(ap);
  rt::ForkRequest req;
  req.body = {rt::RegionBody::Kind::VarargsMicrotask, reinterpret_cast<void*>(microtask), argc, argv.data(), nullptr};
  rt::fork(req);
}

BOBBIN_EXPORT void __kmpc_push_num_threads(ident_t*, kmp_int32, kmp_int32 n) { rt::push_num_threads(n); }
BOBBIN_EXPORT void __kmpc_push_proc_bind(ident_t*, kmp_int32, kmp_int32 bind) { rt::push_proc_bind(bind); }
// The program calls the body itself between these two: for a tool, the new
// implicit task's exit frame is the caller's, and the encountering task stays
// in the runtime (its enter frame) until the end.
BOBBIN_EXPORT void __kmpc_serialized_parallel(ident_t*, kmp_int32) {
  BOBBIN_OMPT_ENTRY;
  rt::begin_serialized();
  if (rt::ompt::on()) [[unlikely]] {
    rt::ompt::set_exit_frame(*static_cast<void**>(__builtin_frame_address(0)));
    bobbin_ompt_entry_.task = nullptr;
  }
}
BOBBIN_EXPORT void __kmpc_end_serialized_parallel(ident_t*, kmp_int32) {
  BOBBIN_OMPT_ENTRY;
  rt::end_serialized();
  if (rt::ompt::on()) [[unlikely]] rt::ompt::clear_enter_frame();
}

BOBBIN_EXPORT kmp_int32 __kmpc_global_thread_num(ident_t*) { return rt::global_thread_id(); }
BOBBIN_EXPORT kmp_int32 __kmpc_global_num_threads(ident_t*) { return rt::num_threads(); }
BOBBIN_EXPORT kmp_int32 __kmpc_bound_thread_num(ident_t*) { return rt::thread_num(); }
BOBBIN_EXPORT kmp_int32 __kmpc_bound_num_threads(ident_t*) { return rt::num_threads(); }
BOBBIN_EXPORT kmp_int32 __kmpc_in_parallel(ident_t*) { return rt::in_parallel(); }
BOBBIN_EXPORT kmp_int32 __kmpc_ok_to_fork(ident_t*) { return 1; }
BOBBIN_EXPORT void __kmpc_begin(ident_t*, kmp_int32) { rt::ensure_initialized(); }
BOBBIN_EXPORT void __kmpc_end(ident_t*) {}

// clang 19's parallel with an if clause in one call: `args` is the one
// captured argument (a pointer to the captured variables), or none.
BOBBIN_EXPORT void __kmpc_fork_call_if(ident_t*, kmp_int32, kmpc_micro microtask, kmp_int32 cond, void* args) {
  BOBBIN_OMPT_ENTRY;
  void* argv[1] = {args};
  rt::ForkRequest req;
  req.body = {rt::RegionBody::Kind::VarargsMicrotask, reinterpret_cast<void*>(microtask), args ? 1 : 0, argv,
              nullptr};
  req.if_clause = cond != 0;
  rt::fork(req);
}

// num_threads(strict: n), num_threads(list), OpenMP 6.0 as LLVM 19 lowers
// them: the first value is pushed as num_threads is; what is left out says so
// once (runtime warn_partial).
BOBBIN_EXPORT void __kmpc_push_num_threads_strict(ident_t*, kmp_int32, kmp_int32 n, int, const char*) {
  rt::warn_partial(rt::Partial::NumThreadsStrict);
  rt::push_num_threads(n);
}
BOBBIN_EXPORT void __kmpc_push_num_threads_list(ident_t*, kmp_int32, kmp_uint32 len, kmp_int32* list) {
  if (len > 1) rt::warn_partial(rt::Partial::NumThreadsList);
  if (len > 0) rt::push_num_threads(list[0]);
}
BOBBIN_EXPORT void __kmpc_push_num_threads_list_strict(ident_t*, kmp_int32, kmp_uint32 len, kmp_int32* list, int,
                                                       const char*) {
  rt::warn_partial(rt::Partial::NumThreadsStrict);
  if (len > 1) rt::warn_partial(rt::Partial::NumThreadsList);
  if (len > 0) rt::push_num_threads(list[0]);
}
// Forgets a pushed num_threads the next fork did not take.
BOBBIN_EXPORT void __kmpc_pop_num_threads(ident_t*, kmp_int32) { rt::push_num_threads(0); }
BOBBIN_EXPORT void __kmpc_set_thread_limit(ident_t*, kmp_int32, kmp_int32) {
  rt::warn_partial(rt::Partial::ThreadLimit);
}

// omp_pause_resource's kmpc form (kmp_pause_status_t): 1 soft, 2 hard, 3 hard
// with the tool stopped; 0 "resume": Bobbin resumes by itself at the next
// construct, so there is never anything to resume (libomp's 1).
BOBBIN_EXPORT int __kmpc_pause_resource(int level) {
  if (level == 1 || level == 2) return rt::pause_resources(level) == 0 ? 0 : 1;
  if (level == 3) return rt::pause_resources(2) == 0 ? 0 : 1;
  return 1;
}
