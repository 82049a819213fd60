// __kmpc_* entry points for parallel regions and thread identity.
#include <cstdarg>

#include "abi/abi_types.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

using kmpc_micro = void (*)(kmp_int32* gtid, kmp_int32* tid, ...);

BOBBIN_EXPORT void __kmpc_fork_call(ident_t*, kmp_int32 argc, kmpc_micro microtask, ...) {
  void* argv[64];
  if (argc > 64) rt::unsupported("a parallel region capturing more than 64 variables");
  va_list ap;
  va_start(ap, microtask);
  for (int i = 0; i < argc; ++i) argv[i] = va_arg(ap, void*);
  va_end(ap);
  rt::ForkRequest req;
  req.body = {rt::RegionBody::Kind::VarargsMicrotask, reinterpret_cast<void*>(microtask), argc, argv, nullptr};
  rt::fork(req);
}

BOBBIN_EXPORT void __kmpc_push_num_threads(ident_t*, kmp_int32, kmp_int32 n) { rt::push_num_threads(n); }
BOBBIN_EXPORT void __kmpc_push_proc_bind(ident_t*, kmp_int32, kmp_int32 bind) { rt::push_proc_bind(bind); }
BOBBIN_EXPORT void __kmpc_serialized_parallel(ident_t*, kmp_int32) { rt::begin_serialized(); }
BOBBIN_EXPORT void __kmpc_end_serialized_parallel(ident_t*, kmp_int32) { rt::end_serialized(); }

BOBBIN_EXPORT kmp_int32 __kmpc_global_thread_num(ident_t*) { return rt::global_thread_id(); }
BOBBIN_EXPORT kmp_int32 __kmpc_global_num_threads(ident_t*) { return rt::num_threads(); }
BOBBIN_EXPORT kmp_int32 __kmpc_bound_thread_num(ident_t*) { return rt::thread_num(); }
BOBBIN_EXPORT kmp_int32 __kmpc_bound_num_threads(ident_t*) { return rt::num_threads(); }
BOBBIN_EXPORT kmp_int32 __kmpc_in_parallel(ident_t*) { return rt::in_parallel(); }
BOBBIN_EXPORT kmp_int32 __kmpc_ok_to_fork(ident_t*) { return 1; }
BOBBIN_EXPORT void __kmpc_begin(ident_t*, kmp_int32) { rt::ensure_initialized(); }
BOBBIN_EXPORT void __kmpc_end(ident_t*) {}
