// The trace recorder's storage: one buffer per kernel thread, written only
// by that thread, read at exit by the exporter (trace_json.cpp).
//
// The problem. The events worth seeing (a fiber switch, and whatever the
// layers above record: work taken from a queue, work run) happen millions
// of times a second on every worker, and recording them must not change
// what is recorded: no lock, no allocation per event, no shared cache line
// written by two threads. And the trace is
// wanted exactly when a program ends badly, including exit() called by a
// fiber while other workers still run.
//
// Rejected designs. (1) A global ring with an atomic index: every event
// would write one contended line. (2) Per-worker rings that overwrite the
// oldest events: the exporter runs while workers may still record (exit()
// inside a region), and could read a record being overwritten; a trace of
// the whole run is also what the summary (tools/bobbin-trace) needs.
// (3) A lock per buffer, taken by the exporter too: cheap when uncontended,
// but an event recorded from the preemption signal handler could then wait
// for a lock its own thread holds.
//
// The chosen design. A track per kernel thread (workers, spares, the
// monitor, program threads that record anything): a list of chunks of
// kChunkRecords records each, mapped with mmap (async-signal-safe: the
// preemption handler records a switch). The owner fills the current chunk
// and publishes how many records it holds with a release store; the
// exporter reads that count with acquire and reads only the records below
// it, so it never sees a half-written one. A full chunk gets a successor,
// linked with a release store of `next`. A track that reaches kMaxChunks
// drops its later events and counts them (the exporter warns). Nothing is
// ever freed: the process is about to exit when the buffers are read.
//
// Invariants. (T1) Only the owning thread writes a track's records, `cur`,
// `used` and `last`. (T2) A record is complete before the release store of
// the count that covers it. (T3) Tracks are appended to g_tracks under
// g_tracks_lock and never removed; the exporter reads the array under the
// same lock, so a track is seen whole.
#include "ult/trace.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>

#include "ult/fiber.hpp"
#include "ult/log.hpp"
#include "ult/spinlock.hpp"
#include "ult/thread_info.hpp"
#include "ult/trace_store.hpp"
#include "ult/worker.hpp"

namespace bobbin::ult::trace {

#if BOBBIN_WITH_TRACE
Atomic<bool> g_on{false};
#endif

Store g_store;

namespace {

thread_local Track* t_track __attribute__((tls_model("initial-exec"))) = nullptr;
Atomic<uint32_t> g_next_fiber{1};

// ult's own kinds (registered by start()).
uint16_t k_switch, k_sleep, k_wake_worker, k_wake_fiber, k_move, k_preempt;

Chunk* map_chunk() {
  void* p = mmap(nullptr, sizeof(Chunk), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  return new (p) Chunk;
}

Track* new_track() {
  void* p = mmap(nullptr, sizeof(Track), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto* t = new (p) Track;
  t->head = t->cur = map_chunk();
  t->chunks = t->head ? 1 : 0;
  t->tid = native_thread_id();
  snprintf(t->name, sizeof t->name, "thread %ld", t->tid);
  t->sort = 1 << 20;
  return t;
}

void publish(Track* t) {
  SpinGuard g(g_store.lock);
  int n = g_store.count.load(memory_order_relaxed);
  if (n < kMaxTracks) {
    g_store.tracks[n] = t;
    g_store.count.store(n + 1, memory_order_release);  // pairs with the exporter's acquire (T3)
  }
}

Track* track() {
  Track* t = t_track;
  if (__builtin_expect(t != nullptr, 1)) return t;
  t = new_track();
  if (!t) return nullptr;
  publish(t);
  t_track = t;
  return t;
}

// Room for n records in the current chunk (a new chunk if needed), or null
// when the track is full or memory ran out (the event is dropped, counted).
Record* reserve(Track* t, int n) {
  if (!t || !t->cur) return nullptr;
  if (t->used + uint32_t(n) > kChunkRecords) {
    Chunk* c = t->chunks < kMaxChunks ? map_chunk() : nullptr;
    if (!c) {
      t->dropped.store(t->dropped.load(memory_order_relaxed) + 1, memory_order_relaxed);
      return nullptr;
    }
    t->cur->next.store(c, memory_order_release);  // pairs with the exporter's acquire
    t->cur = c;
    t->used = 0;
    ++t->chunks;
    t->last = kNoEvent;
  }
  return &t->cur->rec[t->used];
}

void commit(Track* t, int n) {
  t->last = t->used;
  t->used += uint32_t(n);
  t->cur->used.store(t->used, memory_order_release);  // T2: pairs with the exporter's acquire
}

Record* begin(Track* t, uint16_t kind, uint64_t ts, int more) {
  Record* r = reserve(t, 1 + more);
  if (!r) return nullptr;
  r->ts = ts;
  r->end = 0;
  r->kind = kind;
  r->more = uint8_t(more);
  r->flags = 0;
  r->fiber = running_fiber();
  return r;
}

void pack_list(Record* r, const uint32_t* list, int n) {
  auto* out = reinterpret_cast<uint32_t*>(r + 1);
  memcpy(out, list, sizeof(uint32_t) * std::size_t(n));
  int room = r->more * kListPerRecord;
  for (int i = n; i < room; ++i) out[i] = kListEnd;
}

#if BOBBIN_WITH_TRACE
void after_fork_in_child() {
  // The child has one thread and the parent's file: it writes no trace
  // (the parent does), and records nothing more.
  g_on.store(false, memory_order_relaxed);
  g_store.written.store(true, memory_order_relaxed);
}

void write_at_exit() { write_now(); }
#endif

}  // namespace

// ---- set-up --------------------------------------------------------------------

uint16_t add_kind(const Kind& k) {
  int n = g_store.nkinds;
  if (n >= kMaxKinds) fatal("internal error: more than %d trace event kinds", kMaxKinds);
  g_store.kinds[n] = k;
  g_store.nkinds = n + 1;
  return uint16_t(n);
}

void describe_fibers(const FiberDescriber& d) { g_store.describer = d; }

void add_meta(const char* key, const char* value) {
  if (g_store.nmeta >= kMaxMeta) return;
  snprintf(g_store.meta[g_store.nmeta].key, sizeof g_store.meta[0].key, "%s", key);
  snprintf(g_store.meta[g_store.nmeta].value, sizeof g_store.meta[0].value, "%s", value);
  ++g_store.nmeta;
}

bool start(const char* path, const char* setting) {
#if BOBBIN_WITH_TRACE
  if (g_on.load(memory_order_relaxed)) return true;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    warn("%s='%s': cannot open it for writing (%s); no trace is written", setting, path, strerror(errno));
    return false;
  }
  g_store.fd = fd;
  g_store.pid = getpid();
  snprintf(g_store.setting, sizeof g_store.setting, "%s", setting);
  snprintf(g_store.path, sizeof g_store.path, "%s", path);
  g_store.t0 = now();
  k_switch = add_kind({"fiber", "fiber", Shape::Switch, nullptr, nullptr});
  k_sleep = add_kind({"asleep", "worker", Shape::Span, nullptr, nullptr});
  k_wake_worker = add_kind({"wake worker", "worker", Shape::Instant, nullptr,
                            [](const Record& r, const uint32_t*, int, Json& o) { o.num("worker", r.a[0]); }});
  k_wake_fiber = add_kind({"wake fiber", "fiber", Shape::Instant, nullptr, [](const Record& r, const uint32_t*, int, Json& o) {
                             o.num("woken", r.a[0]);
                             o.num("worker", r.a[1]);
                           }});
  k_move = add_kind({"rescue: move", "monitor", Shape::Instant, nullptr, [](const Record& r, const uint32_t*, int, Json& o) {
                       o.num("from_worker", r.a[0]);
                       o.num("to_spare", r.a[1]);
                     }});
  k_preempt = add_kind({"rescue: preempt", "monitor", Shape::Instant, nullptr,
                        [](const Record& r, const uint32_t*, int, Json& o) { o.num("worker", r.a[0]); }});
  g_store.k_switch = k_switch;
  pthread_atfork(nullptr, nullptr, &after_fork_in_child);
  atexit(&write_at_exit);
  g_on.store(true, memory_order_relaxed);
  return true;
#else
  (void)path;
  warn("%s is set, but this build of Bobbin has no tracing (meson option trace=false); no trace is written", setting);
  return false;
#endif
}

// ---- recording --------------------------------------------------------------------

void attach_thread(const char* name, int sort) {
  Track* t = t_track;
  if (!t) {
    t = new_track();
    if (!t) return;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->sort = sort;
    publish(t);
    t_track = t;
    return;
  }
  SpinGuard g(g_store.lock);  // T3: the exporter reads names under it
  snprintf(t->name, sizeof t->name, "%s", name);
  t->sort = sort;
}

uint64_t now() { return now_ns(); }

uint32_t running_fiber() {
  Fiber* f = Worker::current_fiber();
  return f ? f->trace_id() : 0;
}

uint32_t new_fiber_id() { return g_next_fiber.fetch_add(1, memory_order_relaxed); }

void instant(uint16_t kind, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint64_t extra, uint8_t flags) {
  Track* t = track();
  Record* r = begin(t, kind, now(), 0);
  if (!r) return;
  r->end = extra;
  r->flags = flags;
  r->a[0] = a0, r->a[1] = a1, r->a[2] = a2, r->a[3] = a3;
  commit(t, 1);
}

void span(uint16_t kind, uint64_t start, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint8_t flags) {
  Track* t = track();
  uint64_t end = now();
  Record* r = begin(t, kind, start, 0);
  if (!r) return;
  r->end = end;
  r->flags = flags;
  r->a[0] = a0, r->a[1] = a1, r->a[2] = a2, r->a[3] = a3;
  commit(t, 1);
}

void instant_list(uint16_t kind, uint32_t a0, uint32_t a1, uint32_t a2, const uint32_t* list, int n, bool coalesce,
                  uint8_t flags) {
  Track* t = track();
  if (!t || !t->cur) return;
  if (n > kMaxList) n = kMaxList;
  int more = (n + kListPerRecord - 1) / kListPerRecord;
  uint64_t ts = now();
  if (coalesce && t->last != kNoEvent && t->last + 1 + uint32_t(more) == t->used) {
    Record* p = &t->cur->rec[t->last];
    bool same = p->kind == kind && p->more == more && p->flags == flags && p->a[0] == a0 && p->a[1] == a1 &&
                p->a[2] == a2 && p->fiber == running_fiber() &&
                memcmp(p + 1, list, sizeof(uint32_t) * std::size_t(n)) == 0 &&
                (n == more * kListPerRecord || reinterpret_cast<const uint32_t*>(p + 1)[n] == kListEnd);
    if (same) {
      // Published already: the exporter may read these two words while they
      // change, so both are written as relaxed atomics, and read so.
      std::atomic_ref<uint32_t>(p->a[3]).store(p->a[3] + 1, memory_order_relaxed);
      std::atomic_ref<uint64_t>(p->end).store(ts, memory_order_relaxed);
      return;
    }
  }
  Record* r = begin(t, kind, ts, more);
  if (!r) return;
  r->end = ts;
  r->flags = flags;
  r->a[0] = a0, r->a[1] = a1, r->a[2] = a2, r->a[3] = 1;
  pack_list(r, list, n);
  commit(t, 1 + more);
}

void switched(const Fiber* to, bool idle, Leave why) {
  Track* t = track();
  Record* r = begin(t, k_switch, now(), 0);
  if (!r) return;
  r->fiber = to->trace_id();
  r->flags = uint8_t(uint8_t(why) | (idle ? kSwitchIdle : 0));
  r->a[0] = r->a[1] = r->a[2] = r->a[3] = 0;
  if (!idle && g_store.describer.label) g_store.describer.label(to, r->a);
  commit(t, 1);
}

void relabel() {
  if (Fiber* f = Worker::current_fiber()) switched(f, false, Leave::Relabel);
}

void slept(uint64_t start) { span(k_sleep, start); }
void woke_worker(int worker) { instant(k_wake_worker, uint32_t(worker)); }
void woke_fiber(const Fiber* f, int home_worker) { instant(k_wake_fiber, f->trace_id(), uint32_t(home_worker)); }
void rescued_move(int from, int to) { instant(k_move, uint32_t(from), uint32_t(to)); }
void rescued_preempt(int w) { instant(k_preempt, uint32_t(w)); }

}  // namespace bobbin::ult::trace
