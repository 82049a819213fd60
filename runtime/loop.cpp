// Worksharing loops: static schedules (computed, no shared state), dynamic
// dispatch (a ring of shared loop buffers), ordered and doacross.
//
// Every loop is first normalised to iterations [0, trip): iteration j is
// lower + j * incr. Chunks are ranges of j; bounds handed back to compiled
// code are mapped back with wrapping 64-bit arithmetic, which the entry point
// truncates to the loop variable's width.
//
// Dispatch ring protocol (invariant R: a buffer serves one loop instance at a
// time, and every thread of the team passes through it exactly once):
//   1. A thread's k-th dynamic loop uses buf[k % size]; it waits until
//      buf.instance == k (only if it ran `size` loops ahead of the slowest).
//   2. The first thread to CAS state 0->1 sets the loop up, then stores
//      state = 2 (release); the others wait for 2 (acquire).
//   3. Chunks are claimed from buf.next (fetch_add or CAS).
//   4. A thread that finds no more work leaves: left++ (acq_rel); the last
//      one resets state to 0 and left to 0, then instance += size (release),
//      handing the buffer to loop k + size. A thread that left the loop
//      through cancellation never asked for more work: it leaves when it
//      arrives at the construct's closing barrier (leave_cancelled_loop),
//      before that barrier clears the cancellation, so no thread stays in a
//      buffer past the loop's end.
#include <algorithm>
#include <cstring>

#include "runtime/api.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "ult/log.hpp"

namespace bobbin::rt {

namespace {
// 0 until the first ring is made; then the ring size, for good. Written by
// set_dispatch_buffers (which asks for 0) and dispatch_ring_size (0 -> the
// size); a relaxed CAS suffices, as the value is all that is shared.
Atomic<uint32_t> g_ring_size{0};
}  // namespace

uint32_t dispatch_ring_size() {
  uint32_t size = g_ring_size.load(memory_order_relaxed);
  if (size) return size;
  uint32_t want = uint32_t(settings().disp_num_buffers);
  uint32_t expect = 0;
  return g_ring_size.compare_exchange_strong(expect, want, memory_order_relaxed, memory_order_relaxed) ? want
                                                                                                        : expect;
}

bool set_dispatch_buffers(int n) {
  if (g_ring_size.load(memory_order_relaxed) != 0) return false;
  mutable_settings().disp_num_buffers = n;
  return true;
}

void DispatchRing::reset() {
  if (!buf) {
    size = dispatch_ring_size();
    buf.reset(new LoopBuffer[size]);
  }
  for (uint32_t i = 0; i < size; ++i) {
    buf[i].instance.store(i, memory_order_relaxed);
    buf[i].state.store(0, memory_order_relaxed);
    buf[i].left.store(0, memory_order_relaxed);
  }
}

uint64_t loop_trip_count(const LoopBounds& b) {
  bool empty;
  if (b.dir > 0 || (b.dir == 0 && b.incr > 0)) {
    empty = b.is_unsigned ? uint64_t(b.upper) < uint64_t(b.lower) : b.upper < b.lower;
    if (empty) return 0;
    return (uint64_t(b.upper) - uint64_t(b.lower)) / uint64_t(b.incr) + 1;
  }
  empty = b.is_unsigned ? uint64_t(b.lower) < uint64_t(b.upper) : b.lower < b.upper;
  if (empty) return 0;
  return (uint64_t(b.lower) - uint64_t(b.upper)) / (0 - uint64_t(b.incr)) + 1;
}

namespace {

uint64_t trip_count(const LoopBounds& b) { return loop_trip_count(b); }

int64_t iter_value(int64_t lower, int64_t incr, uint64_t j) {
  return int64_t(uint64_t(lower) + j * uint64_t(incr));
}

// Contiguous, balanced split of [0, trip) over n threads: the first
// trip % n threads get one iteration more.
void balanced_part(uint64_t trip, int n, int tid, uint64_t* begin, uint64_t* end) {
  uint64_t base = trip / uint64_t(n), extra = trip % uint64_t(n);
  uint64_t t = uint64_t(tid);
  *begin = t * base + std::min(t, extra);
  *end = *begin + base + (t < extra ? 1 : 0);
}

// simd modifier: equal contiguous spans of [0, trip), each a multiple of
// `align` (the simd width); the last threads may get none (begin == trip).
void aligned_part(uint64_t trip, int n, int tid, uint64_t align, uint64_t* begin, uint64_t* end) {
  uint64_t span = (trip + uint64_t(n) - 1) / uint64_t(n);
  span = (span + align - 1) / align * align;
  *begin = std::min(uint64_t(tid) * span, trip);
  *end = std::min(*begin + span, trip);
}

// An empty part: lower is one step past the last iteration, upper the last,
// so `for (i = lower; i <= upper; i += incr)` runs no iteration.
StaticPart empty_part(const LoopBounds& b, uint64_t trip) {
  int64_t last = iter_value(b.lower, b.incr, trip ? trip - 1 : 0);
  return StaticPart{iter_value(last, b.incr, 1), last, b.incr, false};
}

}  // namespace

// The part of thread `tid` of `n` (or team `tid` of `n` teams for distribute).
static StaticPart partition(LoopKind kind, int64_t chunk, const LoopBounds& b, int n, int tid) {
  uint64_t trip = trip_count(b);
  if (trip == 0) return empty_part(b, 0);
  uint64_t begin, end;
  int64_t stride = int64_t(trip * uint64_t(b.incr));
  if (kind == LoopKind::StaticChunked && chunk > 0) {
    uint64_t c = uint64_t(chunk);
    begin = uint64_t(tid) * c;
    if (begin >= trip) return empty_part(b, trip);
    end = std::min(begin + c, trip);
    bool last = uint64_t(tid) == ((trip - 1) / c) % uint64_t(n);
    return StaticPart{iter_value(b.lower, b.incr, begin), iter_value(b.lower, b.incr, begin + c - 1),
                      int64_t(uint64_t(n) * c * uint64_t(b.incr)), last};
  }
  if (kind == LoopKind::StaticBalancedChunked && chunk > 0) {
    aligned_part(trip, n, tid, uint64_t(chunk), &begin, &end);
    if (begin >= trip) return empty_part(b, trip);
  } else {
    balanced_part(trip, n, tid, &begin, &end);
    if (begin == end) return empty_part(b, trip);
  }
  return StaticPart{iter_value(b.lower, b.incr, begin), iter_value(b.lower, b.incr, end - 1), stride, end == trip};
}

StaticPart static_part(LoopKind kind, int64_t chunk, const LoopBounds& b) {
  Thread* t = current_thread_fast();
  if (kind == LoopKind::Distribute || kind == LoopKind::DistributeChunked) {
    return partition(kind == LoopKind::Distribute ? LoopKind::Static : LoopKind::StaticChunked, chunk, b,
                     num_teams(), team_num());
  }
  return partition(kind, chunk, b, t->team->nthreads, t->tid);
}

StaticPart dist_static_part(LoopKind kind, int64_t chunk, const LoopBounds& b, int64_t* team_upper) {
  Thread* t = current_thread_fast();
  StaticPart team = partition(LoopKind::Static, 0, b, num_teams(), team_num());
  *team_upper = team.upper;
  uint64_t span = trip_count(LoopBounds{team.lower, team.upper, b.incr, b.is_unsigned, b.width});
  if (span == 0) return team;  // this team has nothing: an empty part
  StaticPart mine = partition(kind, chunk, LoopBounds{team.lower, team.upper, b.incr, b.is_unsigned, b.width},
                              t->team->nthreads, t->tid);
  mine.last = mine.last && team.last;
  return mine;
}

// dist_schedule(static, chunk) as partition() deals it to the teams, with the
// first chunk's upper bound clamped to the loop's last iteration (a compiler
// that steps through the team's chunks itself clamps the later ones).
StaticPart team_static_part(int64_t chunk, const LoopBounds& b) {
  uint64_t c = chunk > 0 ? uint64_t(chunk) : 1;
  int n = num_teams(), team = team_num();
  StaticPart p = partition(LoopKind::StaticChunked, int64_t(c), b, n, team);
  uint64_t trip = trip_count(b), begin = uint64_t(team) * c;
  if (begin < trip) p.upper = iter_value(b.lower, b.incr, std::min(begin + c, trip) - 1);
  p.stride = int64_t(uint64_t(n) * c * uint64_t(b.incr));
  return p;
}

// ---- dynamic dispatch ---------------------------------------------------------

// schedule(simd:runtime), as libomp reads it: the compiler passes the simd
// width as the chunk; a static run-sched-var without a chunk (or auto) gives
// balanced spans rounded up to the width, any other kind chunks of its chunk
// times the width (guided ones multiples of that).
static Sched resolve_simd_runtime(int64_t* chunk, uint64_t* align, const Icvs& icv) {
  int64_t width = *chunk > 0 ? *chunk : 1;
  int64_t c = icv.sched.chunk > 0 ? icv.sched.chunk : 1;
  switch (icv.sched.kind) {
    case 1:
      if (icv.sched.chunk <= 0) break;
      *chunk = c * width;
      return Sched::StaticChunked;
    case 2: *chunk = c * width; return Sched::Dynamic;
    case 3: *chunk = *align = uint64_t(c * width); return Sched::Guided;
    case kSchedTrapezoidal: *chunk = c * width; return Sched::Trapezoidal;
    default: break;
  }
  *align = uint64_t(width);
  return Sched::Static;
}

static Sched resolve(LoopKind kind, int64_t* chunk, uint64_t* align, const Icvs& icv) {
  *align = 1;
  switch (kind) {
    case LoopKind::GuidedSimd:
      *align = *chunk > 0 ? uint64_t(*chunk) : 1;
      return Sched::Guided;
    case LoopKind::Trapezoidal:
      return Sched::Trapezoidal;
    case LoopKind::RuntimeSimd:
      return resolve_simd_runtime(chunk, align, icv);
    case LoopKind::Static:
    case LoopKind::Auto:
    case LoopKind::Distribute:
      return Sched::Static;
    case LoopKind::DistributeChunked:
    case LoopKind::StaticChunked:
    case LoopKind::StaticBalancedChunked:
      return *chunk > 0 ? Sched::StaticChunked : Sched::Static;
    case LoopKind::Dynamic:
      return Sched::Dynamic;
    case LoopKind::Guided:
      return Sched::Guided;
    case LoopKind::Runtime:
      *chunk = icv.sched.chunk;
      switch (icv.sched.kind) {
        case 1: return *chunk > 0 ? Sched::StaticChunked : Sched::Static;
        case 2: return Sched::Dynamic;
        case 3: return Sched::Guided;
        case kSchedTrapezoidal: return Sched::Trapezoidal;
        default: return Sched::Static;  // auto
      }
  }
  return Sched::Static;
}

static LoopBuffer* enter_ring(Thread* t) {
  uint32_t k = t->ws_seq++;
  DispatchRing& ring = t->team->loops;
  LoopBuffer* buf = &ring.buf[t->ws_slot];
  if (++t->ws_slot == ring.size) t->ws_slot = 0;
  // Step 1. acquire: pairs with the release that handed the buffer to k.
  buf->ready_ww.wait([&] { return buf->instance.load(memory_order_acquire) == k; });
  return buf;
}

// Step 2: returns true for the thread that must set the buffer up.
static bool claim_setup(LoopBuffer* buf) {
  uint32_t expect = 0;
  return buf->state.compare_exchange_strong(expect, 1, memory_order_acquire, memory_order_relaxed);
}

static void publish_setup(LoopBuffer* buf) {
  buf->state.store(2, memory_order_release);  // pairs with the acquire in await_setup
  buf->ready_ww.notify_all();
}

// The thread that claimed the setup is running it (a few stores, no wait),
// so a short spin is first: yielding at once to a team-mate queued on this
// worker could hand the worker to one that then waits in user code for
// this very thread (a member polling a flag the primary thread sets after
// the loop: 60 us per round instead of 0.6). kSetupSpinNs is a guess, a few
// times the setup's cost.
static void await_setup(LoopBuffer* buf) {
  constexpr uint64_t kSetupSpinNs = 2'000;
  auto ready = [&] { return buf->state.load(memory_order_acquire) == 2; };
  if (!WaitWord::relax_for(kSetupSpinNs, ready)) buf->ready_ww.wait(ready);
}

// Step 4.
static void leave_ring(LoopBuffer* buf) {
  if (buf->left.fetch_add(1, memory_order_acq_rel) == buf->nthreads - 1) {
    delete[] buf->dep_flags;
    buf->dep_flags = nullptr;
    delete[] buf->dep_dims;
    buf->dep_dims = nullptr;
    buf->left.store(0, memory_order_relaxed);
    buf->state.store(0, memory_order_relaxed);
    buf->instance.fetch_add(dispatch_ring_size(), memory_order_release);
    buf->ready_ww.notify_all();
  }
}

// `cancel for` and cancellation points jump from the loop body to the
// construct's end; the closing barrier (plain or cancellable, whichever the
// compiler emits) calls this first. The loop bit is still set then: only the
// barrier's completion clears it, and this thread has not arrived yet.
void leave_cancelled_loop(Thread* t) {
  LoopBuffer* buf = t->cursor.buf;
  if (!buf || !loop_cancelled(t->team)) return;
  t->cursor.buf = nullptr;
  leave_ring(buf);
}

// Trapezoid self-scheduling (libomp's `trapezoidal`, OMP_SCHEDULE's
// extension): chunks shrink linearly from half an even share, F =
// ceil(trip / 2n), to the chunk size L, over C = ceil(2 trip / (F + L))
// chunks, so fewer claims than guided's and a smaller last wave than
// dynamic's. The decrement is rounded down, so chunks 0..C-1 cover the
// loop and none is shorter than L.
static void trapezoid(LoopBuffer* buf) {
  uint64_t n = uint64_t(buf->nthreads), trip = buf->trip, last = buf->chunk;
  uint64_t first = std::max(last, (trip + 2 * n - 1) / (2 * n));
  if (first >= trip) {
    buf->tss_first = std::max<uint64_t>(first, 1);
    buf->tss_delta = 0;
    return;
  }
  uint64_t chunks = (2 * trip + first + last - 1) / (first + last);
  buf->tss_first = first;
  buf->tss_delta = chunks > 1 ? (first - last) / (chunks - 1) : 0;
}

// Joins the dynamic loop over iterations lower + j * incr, j in [0, trip).
static void begin_dispatch(LoopKind kind, bool ordered, int64_t chunk, int64_t lower, int64_t incr, uint64_t trip) {
  Thread* t = current_thread_fast();
  uint64_t align;
  Sched sched = resolve(kind, &chunk, &align, t->icv);
  LoopBuffer* buf = enter_ring(t);
  if (claim_setup(buf)) {
    buf->sched = sched;
    buf->align = align;
    buf->ordered = ordered;
    buf->trip = trip;
    buf->chunk = chunk > 0 ? uint64_t(chunk) : 1;
    buf->nthreads = t->team->nthreads;
    if (sched == Sched::Trapezoidal) trapezoid(buf);
    buf->next.store(0, memory_order_relaxed);
    buf->ordered_next.store(0, memory_order_relaxed);
    publish_setup(buf);
  } else {
    await_setup(buf);
  }
  LoopCursor& c = t->cursor;
  c.buf = buf;
  c.lower = lower;
  c.incr = incr;
  c.static_next = uint64_t(t->tid);
  c.cur = c.end = 0;
  c.bumped = false;
}

void dispatch_init(LoopKind kind, bool ordered, int64_t chunk, const LoopBounds& b) {
  begin_dispatch(kind, ordered, chunk, b.lower, b.incr, trip_count(b));
}

// The team's part is computed in the normalised space, so a team with no
// iterations joins an empty loop however close the bounds are to the
// type's limits. Every thread of the team computes the same part.
bool dist_dispatch_init(LoopKind kind, bool ordered, int64_t chunk, const LoopBounds& b) {
  uint64_t trip = trip_count(b), begin, end;
  balanced_part(trip, num_teams(), team_num(), &begin, &end);
  begin_dispatch(kind, ordered, chunk, iter_value(b.lower, b.incr, begin), b.incr, end - begin);
  return begin < end && end == trip;
}

bool dispatch_next(int64_t* lower, int64_t* upper, int64_t* stride, bool* last) {
  Thread* t = current_thread_fast();
  LoopCursor& c = t->cursor;
  LoopBuffer* buf = c.buf;
  if (!buf) return false;
  uint64_t trip = buf->trip, begin = trip, end = trip;
  // A cancelled loop keeps handing out chunks, as libomp and libgomp do: a
  // thread that gets one reaches the body's cancellation point and leaves
  // through the construct's cancel exit, like the thread that cancelled.
  // Ending the loop here sent the threads that asked for more work down the
  // normal exit instead, and the two exits meet different synchronisation
  // when the loop has a reduction clause (clang: the reduction entry on the one,
  // the closing barrier on the other), which hung.
  int n = buf->nthreads;
  switch (buf->sched) {
    case Sched::Static:
      if (c.static_next == uint64_t(t->tid)) {
        if (buf->align > 1) aligned_part(trip, n, t->tid, buf->align, &begin, &end);
        else balanced_part(trip, n, t->tid, &begin, &end);
      }
      c.static_next += uint64_t(n);
      break;
    case Sched::StaticChunked:
      begin = std::min(c.static_next * buf->chunk, trip);
      end = std::min(begin + buf->chunk, trip);
      c.static_next += uint64_t(n);
      break;
    case Sched::Dynamic:
      // relaxed: the claim needs atomicity only; the iterations' data is
      // ordered by the loop's end barrier, not by this counter.
      begin = std::min(buf->next.fetch_add(buf->chunk, memory_order_relaxed), trip);
      end = std::min(begin + buf->chunk, trip);
      break;
    case Sched::Trapezoidal: {
      // relaxed, as Dynamic. `next` counts chunks here, not iterations.
      unsigned __int128 k = buf->next.fetch_add(1, memory_order_relaxed);
      unsigned __int128 f = buf->tss_first, d = buf->tss_delta;
      if (d * k >= f) break;  // a chunk of no iterations: past the last one
      // Every chunk before k is longer than this one, so `start` grows with k.
      unsigned __int128 start = k * f - d * (k * (k - (k > 0)) / 2);
      if (start >= trip) break;
      begin = uint64_t(start);
      end = uint64_t(std::min<unsigned __int128>(start + (f - d * k), trip));
      break;
    }
    case Sched::Guided: {
      uint64_t cur = buf->next.load(memory_order_relaxed);
      for (;;) {
        if (cur >= trip) { begin = end = trip; break; }
        // Half of an even share of what is left, never below the chunk
        // (the classic guided rule; libomp uses the same factor).
        uint64_t size = std::max(buf->chunk, (trip - cur + 2 * uint64_t(n) - 1) / (2 * uint64_t(n)));
        size = (size + buf->align - 1) / buf->align * buf->align;
        uint64_t e = std::min(cur + size, trip);
        if (buf->next.compare_exchange_weak(cur, e, memory_order_relaxed)) {
          begin = cur;
          end = e;
          break;
        }
      }
      break;
    }
  }
  if (begin >= end) {
    c.buf = nullptr;
    leave_ring(buf);
    return false;
  }
  c.cur = begin;
  c.end = end;
  c.bumped = false;
  *lower = iter_value(c.lower, c.incr, begin);
  *upper = iter_value(c.lower, c.incr, end - 1);
  *stride = c.incr;
  *last = end == trip;
  return true;
}

// ---- ordered ------------------------------------------------------------------

static LoopBuffer* ordered_buffer(Thread* t) {
  LoopBuffer* buf = t->cursor.buf;
  if (!buf) unsupported("an ordered region outside a loop with the ordered clause");
  return buf;
}

void ordered_begin() {
  Thread* t = current_thread_fast();
  if (t->team->nthreads == 1) return;
  LoopBuffer* buf = ordered_buffer(t);
  uint64_t me = t->cursor.cur;
  // acquire: pairs with the release in ordered_end of iteration me-1.
  buf->ordered_ww.wait([&] { return buf->ordered_next.load(memory_order_acquire) == me; });
}

static void pass_ordered(LoopBuffer* buf, uint64_t iter) {
  buf->ordered_next.store(iter + 1, memory_order_release);
  buf->ordered_ww.notify_all();
}

void ordered_end() {
  Thread* t = current_thread_fast();
  if (t->team->nthreads == 1) return;
  pass_ordered(ordered_buffer(t), t->cursor.cur);
  t->cursor.bumped = true;
}

void dispatch_iteration_done() {
  Thread* t = current_thread_fast();
  LoopCursor& c = t->cursor;
  LoopBuffer* buf = c.buf;
  if (!buf || t->team->nthreads == 1) return;
  if (buf->ordered && !c.bumped) {
    // An iteration that skipped its ordered region still takes its turn.
    uint64_t me = c.cur;
    buf->ordered_ww.wait([&] { return buf->ordered_next.load(memory_order_acquire) == me; });
    pass_ordered(buf, me);
  }
  c.bumped = false;
  ++c.cur;
}

// ---- doacross -------------------------------------------------------------------

void doacross_init(int ndims, const DoacrossDim* dims) {
  Thread* t = current_thread_fast();
  if (ndims < 1) fatal("a doacross loop with %d ordered dimensions", ndims);
  LoopBuffer* buf = enter_ring(t);
  if (claim_setup(buf)) {
    uint64_t total = 1;
    buf->dep_dims = new LoopBuffer::DepDim[std::size_t(ndims)];
    for (int d = 0; d < ndims; ++d) {
      LoopBuffer::DepDim& dd = buf->dep_dims[d];
      dd.lo = dims[d].lower;
      dd.st = dims[d].stride ? dims[d].stride : 1;
      LoopBounds lb{dims[d].lower, dims[d].upper, dd.st, false, 8};
      dd.extent = trip_count(lb);
      total *= dd.extent ? dd.extent : 1;
    }
    buf->dep_ndims = ndims;
    buf->nthreads = t->team->nthreads;
    // One bit per iteration of the space, as libomp keeps (a word each took
    // 32 times its memory: 64 MB for a 4096 x 4096 wavefront).
    buf->dep_flags = new Atomic<uint32_t>[(total + 31) / 32]();
    publish_setup(buf);
  } else {
    await_setup(buf);
  }
  t->cursor.dep_buf = buf;
}

static bool flat_index(const LoopBuffer* buf, const int64_t* vec, uint64_t* out) {
  uint64_t idx = 0;
  for (int d = 0; d < buf->dep_ndims; ++d) {
    const LoopBuffer::DepDim& dd = buf->dep_dims[d];
    int64_t off = vec[d] - dd.lo;
    if (off % dd.st != 0) return false;
    int64_t k = off / dd.st;
    if (k < 0 || uint64_t(k) >= dd.extent) return false;  // outside the space: no dependence
    idx = idx * dd.extent + uint64_t(k);
  }
  *out = idx;
  return true;
}

void doacross_wait(const int64_t* vec) {
  Thread* t = current_thread_fast();
  LoopBuffer* buf = t->cursor.dep_buf;
  if (!buf) return;
  uint64_t idx;
  if (!flat_index(buf, vec, &idx)) return;
  Atomic<uint32_t>* word = &buf->dep_flags[idx / 32];
  uint32_t bit = uint32_t(1) << (idx % 32);
  // acquire: pairs with the release in doacross_post.
  buf->dep_ww.wait([&] { return (word->load(memory_order_acquire) & bit) != 0; });
  // A tool hears of a sink inside the iteration space once it is met (as from libomp).
  if (ompt::on()) [[unlikely]] ompt::doacross_dependence(false, vec);
}

void doacross_post(const int64_t* vec) {
  Thread* t = current_thread_fast();
  LoopBuffer* buf = t->cursor.dep_buf;
  if (!buf) return;
  uint64_t idx;
  if (!flat_index(buf, vec, &idx)) return;
  buf->dep_flags[idx / 32].fetch_or(uint32_t(1) << (idx % 32), memory_order_release);
  buf->dep_ww.notify_all();
}

void doacross_fini() {
  Thread* t = current_thread_fast();
  LoopBuffer* buf = t->cursor.dep_buf;
  if (!buf) return;
  t->cursor.dep_buf = nullptr;
  leave_ring(buf);
}

}  // namespace bobbin::rt
