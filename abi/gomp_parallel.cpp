// GOMP_* entry points for parallel regions (plain, combined with a loop or
// sections, with task reductions, and the two-call form of gcc 4.8 and
// older), host teams and cancellation. In the GOMP ABI the body is a function
// with one data pointer (RegionBody::Kind::DataPointer), which the
// encountering thread runs inside the call (GOMP_parallel) or, in the older
// form, itself between GOMP_parallel_start and GOMP_parallel_end.
#include <climits>

#include "abi/gomp_types.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi::gomp;

namespace {

rt::ForkRequest request(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  rt::ForkRequest req;
  req.body = rt::RegionBody{rt::RegionBody::Kind::DataPointer, reinterpret_cast<void*>(fn), 0, nullptr, data};
  // gcc folds the if clause in: if(false) arrives as num_threads 1.
  req.num_threads = num_threads > unsigned(INT_MAX) ? INT_MAX : int(num_threads);
  unsigned bind = flags & kProcBindMask;
  req.proc_bind = bind ? int(bind) : -1;
  return req;
}

rt::WorkshareStart workshare(rt::LoopKind kind, int64_t chunk, const rt::LoopBounds& b) {
  rt::WorkshareStart w;
  w.kind = kind;
  w.chunk = chunk;
  w.bounds = b;
  return w;
}

// Inlined into each entry point: the tool's frame and return address are the entry's.
__attribute__((always_inline)) inline void parallel_workshare(void (*fn)(void*), void* data, unsigned num_threads,
                                                              unsigned flags, rt::LoopKind kind, int64_t chunk,
                                                              const rt::LoopBounds& b) {
  BOBBIN_OMPT_ENTRY;
  rt::WorkshareStart w = workshare(kind, chunk, b);
  rt::RegionSetup setup;
  setup.workshare = &w;
  rt::fork_with(request(fn, data, num_threads, flags), setup);
}

// GOMP_CANCEL_* bits as the runtime's kinds: 1 parallel, 2 loop, 3 sections, 4 taskgroup.
int cancel_kind(int which) {
  switch (which) {
    case kCancelParallel: return 1;
    case kCancelLoop: return 2;
    case kCancelSections: return 3;
    case kCancelTaskgroup: return 4;
    default: rt::unsupported("this GOMP_cancel construct kind");
  }
}

}  // namespace

BOBBIN_EXPORT void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  BOBBIN_OMPT_ENTRY;
  rt::fork(request(fn, data, num_threads, flags));
}

// gcc 4.8 and older: the encountering thread calls fn(data) itself between
// these two calls, as thread 0 of the team GOMP_parallel_start opened.
// num_threads as in GOMP_parallel (0: the default; if(false) arrives as 1).
BOBBIN_EXPORT void GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads) {
  BOBBIN_OMPT_ENTRY;
  rt::fork_open(request(fn, data, num_threads, 0));
}
BOBBIN_EXPORT void GOMP_parallel_end(void) {
  BOBBIN_OMPT_ENTRY;
  rt::fork_close();
}

// reduction(task, ...) on parallel: the first word of `data` points to the
// reduction descriptor. Returns the team size, the number of copies the
// compiler then combines.
BOBBIN_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void*), void* data, unsigned num_threads,
                                                unsigned flags) {
  BOBBIN_OMPT_ENTRY;
  Reductions red(*static_cast<uintptr_t**>(data));
  rt::RegionSetup setup;
  setup.reductions = red.blocks();
  setup.nreductions = red.size();
  rt::fork_with(request(fn, data, num_threads, flags), setup);
  red.write_back(setup.reductions_handle);
  return unsigned(setup.team_size);
}

// Combined parallel loops: the threads join the loop before the body, whose
// first call is GOMP_loop_*_next.
#define BOBBIN_GOMP_PARALLEL_LOOP(NAME, KIND)                                                                        \
  BOBBIN_EXPORT void GOMP_parallel_loop_##NAME(void (*fn)(void*), void* data, unsigned num_threads, long start,      \
                                               long end, long incr, long chunk, unsigned flags) {                   \
    parallel_workshare(fn, data, num_threads, flags, KIND, chunk, open_bounds(start, end, incr));                    \
  }
#define BOBBIN_GOMP_PARALLEL_LOOP_RUNTIME(NAME)                                                                      \
  BOBBIN_EXPORT void GOMP_parallel_loop_##NAME(void (*fn)(void*), void* data, unsigned num_threads, long start,      \
                                               long end, long incr, unsigned flags) {                               \
    parallel_workshare(fn, data, num_threads, flags, rt::LoopKind::Runtime, 0, open_bounds(start, end, incr));       \
  }
BOBBIN_GOMP_PARALLEL_LOOP(static, chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static)
BOBBIN_GOMP_PARALLEL_LOOP(dynamic, rt::LoopKind::Dynamic)
BOBBIN_GOMP_PARALLEL_LOOP(guided, rt::LoopKind::Guided)
BOBBIN_GOMP_PARALLEL_LOOP(nonmonotonic_dynamic, rt::LoopKind::Dynamic)
BOBBIN_GOMP_PARALLEL_LOOP(nonmonotonic_guided, rt::LoopKind::Guided)
BOBBIN_GOMP_PARALLEL_LOOP_RUNTIME(runtime)
BOBBIN_GOMP_PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime)
BOBBIN_GOMP_PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime)

// parallel sections: a dynamic loop over section numbers, joined before the
// body, whose first call is GOMP_sections_next.
BOBBIN_EXPORT void GOMP_parallel_sections(void (*fn)(void*), void* data, unsigned num_threads, unsigned count,
                                          unsigned flags) {
  parallel_workshare(fn, data, num_threads, flags, rt::LoopKind::Dynamic, 1,
                     rt::LoopBounds{1, int64_t(count), 1, true, 4});
}

// gcc 4.8 and older, combined forms: as GOMP_parallel_start, but every
// thread joins the loop (or the sections) first, the caller before these
// return; it then runs fn(data) itself and calls GOMP_parallel_end.
namespace {
__attribute__((always_inline)) inline void open_workshare(void (*fn)(void*), void* data, unsigned num_threads,
                                                          rt::LoopKind kind, int64_t chunk, const rt::LoopBounds& b) {
  BOBBIN_OMPT_ENTRY;
  rt::fork_open_with(request(fn, data, num_threads, 0), workshare(kind, chunk, b));
}
}  // namespace

#define BOBBIN_GOMP_PARALLEL_LOOP_START(NAME, KIND)                                                                  \
  BOBBIN_EXPORT void GOMP_parallel_loop_##NAME##_start(void (*fn)(void*), void* data, unsigned num_threads,          \
                                                       long start, long end, long incr, long chunk) {               \
    open_workshare(fn, data, num_threads, KIND, chunk, open_bounds(start, end, incr));                               \
  }
BOBBIN_GOMP_PARALLEL_LOOP_START(static, chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static)
BOBBIN_GOMP_PARALLEL_LOOP_START(dynamic, rt::LoopKind::Dynamic)
BOBBIN_GOMP_PARALLEL_LOOP_START(guided, rt::LoopKind::Guided)

BOBBIN_EXPORT void GOMP_parallel_loop_runtime_start(void (*fn)(void*), void* data, unsigned num_threads, long start,
                                                    long end, long incr) {
  open_workshare(fn, data, num_threads, rt::LoopKind::Runtime, 0, open_bounds(start, end, incr));
}

BOBBIN_EXPORT void GOMP_parallel_sections_start(void (*fn)(void*), void* data, unsigned num_threads, unsigned count) {
  open_workshare(fn, data, num_threads, rt::LoopKind::Dynamic, 1, rt::LoopBounds{1, int64_t(count), 1, true, 4});
}

// Host teams (gcc 9+): a league of initial threads, each running fn(data).
BOBBIN_EXPORT void GOMP_teams_reg(void (*fn)(void*), void* data, unsigned num_teams, unsigned thread_limit,
                                  unsigned /*flags*/) {
  rt::TeamsRequest req;
  req.body = rt::RegionBody{rt::RegionBody::Kind::DataPointer, reinterpret_cast<void*>(fn), 0, nullptr, data};
  req.num_teams_lower = req.num_teams_upper = num_teams > unsigned(INT_MAX) ? INT_MAX : int(num_teams);
  req.thread_limit = thread_limit > unsigned(INT_MAX) ? INT_MAX : int(thread_limit);
  rt::fork_teams(req);
}

// Cancellation. `do_cancel` is the cancel construct's if clause: when false
// the construct is only a cancellation point.
BOBBIN_EXPORT bool GOMP_cancel(int which, bool do_cancel) {
  return do_cancel ? rt::cancel(cancel_kind(which)) : rt::cancellation_point(cancel_kind(which));
}
BOBBIN_EXPORT bool GOMP_cancellation_point(int which) { return rt::cancellation_point(cancel_kind(which)); }
