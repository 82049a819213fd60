// Worksharing constructs driven the way gcc's entry points drive them, on top
// of the loop dispatcher (loop.cpp) and the single/copyprivate protocol
// (sync.cpp):
//   - loops and sections whose chunks the caller claims one at a time, with
//     an ordered turn that passes per chunk (below);
//   - a scratch block the team shares for one construct;
//   - one thread's data handed to the others at the end of a single;
//   - parallel regions whose threads join a construct before the body;
//   - the unnamed critical section, the atomic fallback lock, and the error
//     directive.
//
// Ordered turns per chunk. The kmpc protocol passes the ordered turn once per
// iteration (the compiler calls dispatch_iteration_done after each). gcc's
// code calls nothing per iteration: it only asks for the next chunk. So here
// the turn belongs to a chunk: ordered_begin() (loop.cpp) waits until the
// turn reaches the chunk's first iteration (the cursor's `cur`, which nothing
// advances inside the chunk), ordered regions inside the chunk need nothing
// more, and dispatch_next_ordered hands the turn on to the iteration after
// the chunk before it claims another one. A thread whose chunk ran no ordered
// region still waits for its turn there, so turns are never skipped.
// Invariant O: ordered_next only grows, and only the thread whose chunk
// starts at ordered_next moves it (to that chunk's end).
//
// Team-shared data (scratch blocks, task-reduction storage) is created by the
// first thread that reaches the construct and handed to the others with the
// single/copyprivate protocol (team_once): two barriers, paid only by the
// constructs that ask for such data (scan reductions, reduction(task, ...)).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <vector>

#include "runtime/api.hpp"
#include "runtime/block_reduction.hpp"
#include "runtime/loop_state.hpp"
#include "runtime/team.hpp"
#include "ult/log.hpp"

namespace bobbin::rt {

namespace {

// A scratch block: zero-filled, shared by the team until every thread left
// the construct (the last one frees it).
struct alignas(16) Scratch {
  Atomic<int> refs;
  // the block follows
  char* data() { return reinterpret_cast<char*>(this + 1); }
};

// Which scratch block each OpenMP thread of this worker holds, by (thread,
// team): a thread that holds one and opens a nested region may hold another
// in the inner team. Only this worker's fibers touch it (fibers never move).
struct ScratchUse {
  const Thread* thread;
  const Team* team;
  Scratch* block;
};
// initial-exec: one %fs-relative access instead of a __tls_get_addr call per use.
thread_local std::vector<ScratchUse> t_scratch __attribute__((tls_model("initial-exec")));

void* join_scratch(Thread* th, std::size_t size) {
  struct Make {
    std::size_t size;
    int nthreads;
  } make{size, th->team->nthreads};
  auto* s = static_cast<Scratch*>(team_once(
      [](void* ctx) -> void* {
        auto* m = static_cast<Make*>(ctx);
        void* mem = calloc(1, sizeof(Scratch) + m->size);
        if (!mem) fatal("out of memory allocating a %zu-byte worksharing scratch block", m->size);
        auto* blk = new (mem) Scratch;
        blk->refs.store(m->nthreads, memory_order_relaxed);  // published by team_once's barriers
        return blk;
      },
      &make));
  t_scratch.push_back(ScratchUse{th, th->team, s});
  return s->data();
}

void leave_scratch(Thread* th) {
  for (auto it = t_scratch.rbegin(); it != t_scratch.rend(); ++it) {
    if (it->thread != th || it->team != th->team) continue;
    Scratch* s = it->block;
    t_scratch.erase(std::next(it).base());
    // acq_rel: the last thread frees after every other thread's last use.
    if (s->refs.fetch_sub(1, memory_order_acq_rel) == 1) free(s);
    return;
  }
}

void copy_pointer(void* dst, void* src) { *static_cast<void**>(dst) = *static_cast<void**>(src); }

// The unnamed critical section and the atomic fallback: lock words as
// critical_begin takes them (sync.cpp), each on its own line.
struct alignas(kCacheLine) LockWord {
  Atomic<uint32_t> word{0};
};
LockWord g_unnamed_critical;
LockWord g_atomic_fallback;

}  // namespace

void* team_once(void* (*make)(void* ctx), void* ctx) {
  void* result = nullptr;
  bool first = single_begin();
  if (first) result = make(ctx);
  copyprivate(&result, &copy_pointer, first);
  return result;
}

bool workshare_begin(WorkshareStart& w, int64_t* lower, int64_t* upper, int64_t* stride, bool* last) {
  Thread* th = current_thread_fast();
  if (w.reductions && w.nreductions > 0) workshare_reductions_begin(w.reductions, w.nreductions);
  if (w.scratch_size > 0) w.scratch = join_scratch(th, w.scratch_size);
  if (!w.loop) return true;
  // gcc's loops and sections (clang's report themselves in abi/): to a tool,
  // the construct begins here and ends at workshare_end.
  if (ompt::on()) [[unlikely]] {
    th->ompt.workshare = w.sections ? ompt_work_sections : ompt_work_loop;
    ompt::work(ompt_work_t(th->ompt.workshare), ompt_scope_begin, th, loop_trip_count(w.bounds), ompt::return_address());
  }
  if (w.doacross_ndims > 0) doacross_init(w.doacross_ndims, w.doacross);
  dispatch_init(w.kind, w.ordered, w.chunk, w.bounds);
  if (!w.claim) return false;
  return dispatch_next(lower, upper, stride, last);
}

bool dispatch_next_ordered(int64_t* lower, int64_t* upper, int64_t* stride, bool* last) {
  Thread* th = current_thread_fast();
  LoopCursor& c = th->cursor;
  LoopBuffer* buf = c.buf;
  if (buf && buf->ordered && th->team->nthreads > 1 && c.end > c.cur) {
    uint64_t first = c.cur;
    // Invariant O. acquire: pairs with the release below of the previous
    // chunk's owner. A cancelled loop hands out nothing more, and the owner
    // of an earlier chunk may have left it without passing the turn.
    buf->ordered_ww.wait([&] {
      return buf->ordered_next.load(memory_order_acquire) == first || loop_cancelled(th->team);
    });
    buf->ordered_next.store(c.end, memory_order_release);
    buf->ordered_ww.notify_all();
    c.cur = c.end;  // passed: a second call must not wait again
  }
  return dispatch_next(lower, upper, stride, last);
}

bool workshare_end(WorkshareWait wait) {
  Thread* th = current_thread_fast();
  if (th->cursor.buf && loop_cancelled(th->team)) {
    // A thread that saw the cancel jumps here without asking for another
    // chunk, so it never left the loop's buffer (loop.cpp, step 4), which
    // would then never serve another loop. A cancelled loop hands out
    // nothing: this call only leaves.
    int64_t lo, hi, st;
    bool last;
    dispatch_next(&lo, &hi, &st, &last);
  }
  leave_scratch(th);
  doacross_fini();  // nothing unless the loop was a doacross loop
  if (th->ompt.workshare && ompt::on()) [[unlikely]] {
    ompt::work(ompt_work_t(th->ompt.workshare), ompt_scope_end, th, 0, ompt::return_address());
    th->ompt.workshare = 0;
    switch (wait) {
      case WorkshareWait::None: return false;
      case WorkshareWait::Barrier: ompt::traced_barrier(ompt::kImplicitBarrier, ompt::return_address()); return false;
      case WorkshareWait::CancellableBarrier:
        return ompt::traced_cancel_barrier(ompt::kImplicitBarrier, ompt::return_address());
    }
  }
  switch (wait) {
    case WorkshareWait::None: return false;
    case WorkshareWait::Barrier: barrier(); return false;
    case WorkshareWait::CancellableBarrier: return cancel_barrier();
  }
  return false;
}

void doacross_wait_each(int64_t first, int64_t (*next)(void* ctx), void* ctx) {
  LoopBuffer* buf = current_thread_fast()->cursor.dep_buf;
  if (!buf) return;  // not in a doacross loop: nothing to wait for
  int64_t small[8];
  std::vector<int64_t> large;
  int64_t* vec = small;
  if (buf->dep_ndims > 8) {
    large.resize(std::size_t(buf->dep_ndims));
    vec = large.data();
  }
  vec[0] = first;
  for (int d = 1; d < buf->dep_ndims; ++d) vec[d] = next(ctx);
  doacross_wait(vec);
}

// ---- combined parallel worksharing -----------------------------------------

namespace {

struct Prologue {
  RegionBody body;
  RegionSetup* setup;
};

void join_workshare(const RegionSetup& s) {
  if (!s.workshare) return;
  WorkshareStart w = *s.workshare;
  w.claim = false;
  int64_t lo, hi, st;
  bool last;
  workshare_begin(w, &lo, &hi, &st, &last);
}

// Every thread of the new team runs this instead of the body.
void region_with_setup(void* p) {
  auto* pro = static_cast<Prologue*>(p);
  RegionSetup& s = *pro->setup;
  Thread* th = current_thread_fast();
  if (th->tid == 0) s.team_size = th->team->nthreads;  // tid 0 is the thread that called fork_with
  if (s.nreductions > 0) {
    taskgroup_begin();
    struct Make {
      ReductionBlock* blocks;
      int n, nthreads;
    } make{s.reductions, s.nreductions, th->team->nthreads};
    auto* rec = static_cast<BlockRecord*>(team_once(
        [](void* ctx) -> void* {
          auto* m = static_cast<Make*>(ctx);
          return reductions_create(m->blocks, m->n, m->nthreads, 1);  // released by reductions_unregister
        },
        &make));
    if (th->tid == 0) s.reductions_handle = rec;
    reductions_bind(rec);
  }
  join_workshare(s);
  reinterpret_cast<void (*)(void*)>(pro->body.fn)(pro->body.data);
  if (s.nreductions > 0) taskgroup_end_bound();
}

}  // namespace

void fork_with(const ForkRequest& req, RegionSetup& setup) {
  if (req.body.kind != RegionBody::Kind::DataPointer) fatal("internal error: fork_with takes a data-pointer body");
  Prologue pro{req.body, &setup};
  ForkRequest r = req;
  r.body = RegionBody{RegionBody::Kind::DataPointer, reinterpret_cast<void*>(&region_with_setup), 0, nullptr, &pro};
  fork(r);
  // team_once made the record in the team; tid 0 (this thread) kept it.
  if (setup.reductions_handle) {
    reductions_report(static_cast<BlockRecord*>(setup.reductions_handle), setup.reductions, setup.nreductions);
  }
}

// The members' prologue outlives fork_open_with: they may start after it
// returned; close_region frees it.
struct OpenPrologue {
  WorkshareStart workshare;
  RegionSetup setup;
  Prologue pro;
};

void fork_open_with(const ForkRequest& req, const WorkshareStart& w) {
  if (req.body.kind != RegionBody::Kind::DataPointer) fatal("internal error: fork_open_with takes a data-pointer body");
  auto* o = new OpenPrologue;
  o->workshare = w;
  o->setup.workshare = &o->workshare;
  o->pro = Prologue{req.body, &o->setup};
  ForkRequest r = req;
  r.body = RegionBody{RegionBody::Kind::DataPointer, reinterpret_cast<void*>(&region_with_setup), 0, nullptr, &o->pro};
  fork_open(r);
  Team* team = current_thread_fast()->team;  // the new one: the caller is its thread 0
  team->open_state = o;
  team->open_state_free = [](void* p) { delete static_cast<OpenPrologue*>(p); };
  join_workshare(o->setup);  // the caller is thread 0: it joins before running its part
}

// ---- single with copyprivate -------------------------------------------------
// The thread that runs the block publishes its data and meets the others at a
// barrier; they read the data after it. The compiler's barrier that follows
// the construct keeps the data alive (and copy_src unchanged) until every
// thread copied it.

void* single_copy_begin() {
  Thread* th = current_thread_fast();
  if (single_begin()) return nullptr;
  barrier();  // pairs with single_copy_end's barrier: copy_src is published
  return th->team->copy_src;
}

void single_copy_end(void* data) {
  Thread* th = current_thread_fast();
  if (th->team->nthreads == 1) return;
  th->team->copy_src = data;  // published by the barrier's release
  barrier();
}

// ---- global locks, allocate clause, error directive ---------------------------------

std::atomic<uint32_t>& unnamed_critical_word = g_unnamed_critical.word;
int64_t section_next(int64_t n) {
  Thread* th = current_thread_fast();
  if (!th->cursor.buf) {  // this thread's first ask in the construct
    if (n <= 0) return n;
    dispatch_init(LoopKind::Dynamic, false, 1, LoopBounds{0, n - 1, 1, false, 8});
  }
  int64_t lo, hi, st;
  bool last;
  return dispatch_next(&lo, &hi, &st, &last) ? lo : n;
}

void atomic_fallback_begin() { critical_begin(&g_atomic_fallback.word); }
void atomic_fallback_end() { critical_end(&g_atomic_fallback.word); }

void* mem_alloc_clause(std::size_t size, std::size_t align, AllocatorHandle a) {
  void* p = mem_alloc(size, align, a);
  if (!p && size) fatal("out of memory allocating %zu bytes for an allocate clause", size);
  return p;
}

void error_directive(const char* msg, std::size_t len, bool fatal_error, bool libgomp_spelling) {
  const char* what = fatal_error ? "fatal error: error directive encountered" : "error directive encountered";
  if (libgomp_spelling) {
    fflush(stdout);
    if (msg) fprintf(stderr, "libgomp: %s: %.*s\n\n", what, int(len), msg);
    else fprintf(stderr, "libgomp: %s\n\n", what);
  } else {
    // libomp's shape, "OMP: Warning #N: " or "OMP: Error #N: " (tools and
    // LLVM's tests match the prefix and the message); N is Bobbin's own
    // number for a user's error directive, after the settings' kinds.
    char prefix[32];
    snprintf(prefix, sizeof prefix, "OMP: %s #%d: ", fatal_error ? "Error" : "Warning", kErrorDirectiveMessage);
    if (msg) warn_as(prefix, "%s: %.*s", what, int(len), msg);
    else warn_as(prefix, "%s", what);
  }
  if (!fatal_error) return;
  // Spec 10.1: the program stops. _Exit rather than exit: atexit handlers and
  // static destructors must not run while other threads are in the region.
  fflush(nullptr);
  _Exit(EXIT_FAILURE);
}

}  // namespace bobbin::rt
