// __kmpc_* entry points for host teams and distribute loops. (clang 14 splits
// a composite distribute parallel loop itself and emits none of the dist_* and
// team_* loop entry points for host code; other compilers call them.)
#include <cstdarg>
#include <type_traits>

#include "abi/abi_types.hpp"
#include "abi/captured_args.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

using kmpc_micro = void (*)(kmp_int32* gtid, kmp_int32* tid, ...);

BOBBIN_EXPORT void __kmpc_fork_teams(ident_t*, kmp_int32 argc, kmpc_micro microtask, ...) {
  BOBBIN_OMPT_ENTRY;
  va_list ap;
  va_start(ap, microtask);
  abi::CapturedArgs argv(argc, ap);
  va_end(ap);
  rt::TeamsRequest req;
  req.body = {rt::RegionBody::Kind::VarargsMicrotask, reinterpret_cast<void*>(microtask), argc, argv.data(), nullptr};
  rt::fork_teams(req);
}

BOBBIN_EXPORT void __kmpc_push_num_teams(ident_t*, kmp_int32, kmp_int32 num_teams, kmp_int32 num_threads) {
  rt::push_num_teams(num_teams, num_teams, num_threads);
}
BOBBIN_EXPORT void __kmpc_push_num_teams_51(ident_t*, kmp_int32, kmp_int32 lower, kmp_int32 upper,
                                            kmp_int32 num_threads) {
  rt::push_num_teams(lower, upper, num_threads);
}

namespace {
template <class T, class ST>
void dist_static_init(kmp_int32 sched, kmp_int32* plast, T* plower, T* pupper, T* pupper_dist, ST* pstride, ST incr,
                      ST chunk) {
  DecodedSchedule d = decode_schedule(sched);
  if (!d.known) rt::unsupported("this distribute parallel loop schedule kind");
  rt::LoopBounds b{int64_t(*plower), int64_t(*pupper), int64_t(incr), std::is_unsigned_v<T>, int(sizeof(T))};
  int64_t team_upper;
  rt::StaticPart p = rt::dist_static_part(d.kind, int64_t(chunk), b, &team_upper);
  *plower = T(p.lower);
  *pupper = T(p.upper);
  *pupper_dist = T(team_upper);
  *pstride = ST(p.stride);
  if (plast) *plast = p.last;
}

template <class T, class ST>
void dist_dispatch_init(kmp_int32 sched, kmp_int32* plast, T lb, T ub, ST st, ST chunk) {
  DecodedSchedule d = decode_schedule(sched);
  if (!d.known) rt::unsupported("this distribute parallel loop schedule kind");
  rt::LoopBounds b{int64_t(lb), int64_t(ub), int64_t(st), std::is_unsigned_v<T>, int(sizeof(T))};
  bool team_last = rt::dist_dispatch_init(d.kind, d.ordered, int64_t(chunk), b);
  if (plast) *plast = team_last;
}

template <class T, class ST>
void team_static_init(kmp_int32* plast, T* plower, T* pupper, ST* pstride, ST incr, ST chunk) {
  rt::LoopBounds b{int64_t(*plower), int64_t(*pupper), int64_t(incr), std::is_unsigned_v<T>, int(sizeof(T))};
  rt::StaticPart p = rt::team_static_part(int64_t(chunk), b);
  *plower = T(p.lower);
  *pupper = T(p.upper);
  *pstride = ST(p.stride);
  if (plast) *plast = p.last;
}
}  // namespace

#define BOBBIN_DIST_INIT(SUFFIX, T, ST)                                                                          \
  BOBBIN_EXPORT void __kmpc_dist_for_static_init_##SUFFIX(ident_t*, kmp_int32, kmp_int32 sched, kmp_int32* plast, \
                                                          T* plower, T* pupper, T* pupper_dist, ST* pstride,      \
                                                          ST incr, ST chunk) {                                    \
    dist_static_init<T, ST>(sched, plast, plower, pupper, pupper_dist, pstride, incr, chunk);                     \
  }                                                                                                              \
  BOBBIN_EXPORT void __kmpc_dist_dispatch_init_##SUFFIX(ident_t*, kmp_int32, kmp_int32 sched, kmp_int32* plast,   \
                                                        T lb, T ub, ST st, ST chunk) {                            \
    dist_dispatch_init<T, ST>(sched, plast, lb, ub, st, chunk);                                                  \
  }                                                                                                              \
  BOBBIN_EXPORT void __kmpc_team_static_init_##SUFFIX(ident_t*, kmp_int32, kmp_int32* plast, T* plower,          \
                                                      T* pupper, ST* pstride, ST incr, ST chunk) {               \
    team_static_init<T, ST>(plast, plower, pupper, pstride, incr, chunk);                                        \
  }
BOBBIN_DIST_INIT(4, kmp_int32, kmp_int32)
BOBBIN_DIST_INIT(4u, kmp_uint32, kmp_int32)
BOBBIN_DIST_INIT(8, kmp_int64, kmp_int64)
BOBBIN_DIST_INIT(8u, kmp_uint64, kmp_int64)
