// The trace recorder: what each kernel thread did, kept in memory while the
// program runs and written at exit as Chrome/Perfetto trace-event JSON
// (trace_json.cpp). Generic: it knows kernel threads (tracks), fibers,
// spans and instants; the layers above register the kinds of event they
// record and how each one's arguments read (trace.cpp says how it is
// stored, trace_json.cpp how it is written; BOBBIN_TRACE in
// runtime/settings.cpp turns it on).
//
// Cost when off: every recording site is `if (trace::on()) ...`, one load
// of a flag that is set once at start-up and a branch that is never taken.
// A build configured with -Dtrace=false compiles the sites out.
#pragma once

#include <cstddef>
#include <cstdint>

#include "config.hpp"
#include "ult/atomic.hpp"

namespace bobbin::ult {
class Fiber;
}

namespace bobbin::ult::trace {

#if BOBBIN_WITH_TRACE
// Written by start() (before the pool's threads exist) and by the child of
// a fork() (single-threaded then); relaxed: nothing is published through it.
extern Atomic<bool> g_on;
inline bool on() { return __builtin_expect(g_on.load(memory_order_relaxed), 0); }
#else
constexpr bool on() { return false; }
#endif

// One event, or part of one: 40 bytes. An event is one record, followed by
// `more` continuation records that carry a list of 32-bit values (ten per
// record) when it has one.
struct Record {
  uint64_t ts;     // CLOCK_MONOTONIC ns: an instant's time, a span's start
  uint64_t end;    // a span's end; an instant's or a switch's extra bits (kind-defined)
  uint16_t kind;   // an index returned by add_kind
  uint8_t more;    // continuation records that follow
  uint8_t flags;   // kind-defined
  uint32_t fiber;  // trace id of the fiber that was running (0: none)
  uint32_t a[4];   // kind-defined
};
static_assert(sizeof(Record) == 40, "records are packed into chunks by size");
constexpr int kListPerRecord = 10;  // 32-bit list values in one continuation record

// How the exporter reads a kind.
enum class Shape : uint8_t {
  Instant,  // an "i" event at ts
  Span,     // an "X" event from ts to end; cut at the fiber's switches if the record names one
  Switch,   // ult's own: the thread runs another fiber from ts (trace.cpp)
};

// Writes an event's name and the members of its "args" object.
class Json;
struct Kind {
  const char* name;      // the event's name, unless title() gives one
  const char* category;  // its "cat"
  Shape shape;
  // Optional: writes the name into buf (at most n bytes, NUL included).
  void (*title)(const Record& r, char* buf, std::size_t n);
  // Optional: writes args members with the Json calls below; `list` is the
  // continuation's values (nlist of them).
  void (*args)(const Record& r, const uint32_t* list, int nlist, Json& out);
};

// The args writer handed to Kind::args (trace_json.cpp): each call adds one
// member to the event's "args" object.
struct JsonOut;
class Json {
 public:
  explicit Json(JsonOut* out) : out_(out) {}
  void num(const char* key, uint64_t v);
  void signed_num(const char* key, int64_t v);
  void str(const char* key, const char* v);
  void boolean(const char* key, bool v);
  // A time as the trace writes them: microseconds since tracing started.
  void time_us(const char* key, uint64_t ns);
  // A list of numbers, or of the strings names(value) gives.
  void nums(const char* key, const uint32_t* v, int n);
  void strs(const char* key, const uint32_t* v, int n, const char* (*names)(uint32_t));

 private:
  void key(const char* k);
  JsonOut* out_;
  bool first_ = true;
};

// ---- set-up (before start(), or during it: single-threaded) ------------------
// Registers a kind; returns its id. At most 64 kinds.
uint16_t add_kind(const Kind& k);
// How fibers are described (the layer that owns them): label(f, out) fills
// the four values a switch record keeps (called when a worker switches to
// f, on that worker's thread, for fibers other than a worker's idle loop);
// title and args format them. Null: fibers are numbered only.
struct FiberDescriber {
  void (*label)(const Fiber* f, uint32_t out[4]);
  void (*title)(const Record& r, char* buf, std::size_t n);
  void (*args)(const Record& r, const uint32_t* list, int nlist, Json& out);
};
void describe_fibers(const FiberDescriber& d);
// A line of the trace's "otherData" (copied).
void add_meta(const char* key, const char* value);
// Opens `path` for writing (truncating it) and turns tracing on; the file
// is written at exit (an atexit handler). False, with a warning naming
// `setting`, if it cannot be opened. Call before the pool's threads start.
bool start(const char* path, const char* setting);
// Writes the trace now (at exit; also callable by tests). Idempotent.
void write_now();

// ---- recording (any thread; only while on()) ------------------------------------
// Names the calling kernel thread's track (the first record would otherwise
// name it "thread <tid>"); sort is its place among the tracks.
void attach_thread(const char* name, int sort);
uint64_t now();
// The trace id of the calling thread's running fiber (0: none).
uint32_t running_fiber();
uint32_t new_fiber_id();
void instant(uint16_t kind, uint32_t a0 = 0, uint32_t a1 = 0, uint32_t a2 = 0, uint32_t a3 = 0, uint64_t extra = 0,
             uint8_t flags = 0);
// A span from `start` to now(), of the running fiber.
void span(uint16_t kind, uint64_t start, uint32_t a0 = 0, uint32_t a1 = 0, uint32_t a2 = 0, uint32_t a3 = 0,
          uint8_t flags = 0);
// An instant with a list of values. `coalesce`: if the calling thread's
// previous event was one of the same kind with the same a0..a2, flags and
// list, it is counted again instead (its a3 is the count, its `end` the
// last time); a3 starts at 1.
void instant_list(uint16_t kind, uint32_t a0, uint32_t a1, uint32_t a2, const uint32_t* list, int n, bool coalesce,
                  uint8_t flags = 0);

// ult's own events (worker.cpp, monitor.cpp).
// Why a fiber slice ended: the idle loop found a fiber to run (Run), the
// fiber yielded, parked, finished or was preempted, or its description
// changed (Relabel: the same fiber goes on).
enum class Leave : uint8_t { Run, Yield, Park, Finish, Preempt, Relabel };
// The calling worker switches from its running fiber (which leaves for `why`)
// to `to`; idle: `to` is the worker's idle loop.
void switched(const Fiber* to, bool idle, Leave why);
// The running fiber's description changed (the layer above says so).
void relabel();
// The idle loop slept on its futex from `start` until now.
void slept(uint64_t start);
// This thread woke worker `worker`'s kernel thread / made fiber f runnable.
void woke_worker(int worker);
void woke_fiber(const Fiber* f, int home_worker);
// The monitor moved a not-started fiber from worker `from` to spare `to`,
// or asked worker `w` to preempt its running fiber.
void rescued_move(int from, int to);
void rescued_preempt(int w);

}  // namespace bobbin::ult::trace
