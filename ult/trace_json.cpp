// The trace exporter: writes every track as Chrome/Perfetto trace-event
// JSON ({"traceEvents": [...]}: "M" events naming the process and each
// kernel thread's track, "X" events for spans, "i" events for instants,
// times in microseconds from the start of tracing).
//
// It runs once, at exit (an atexit handler: also when a fiber calls exit(),
// on that fiber), while other workers may still record: it reads each
// chunk up to the count published with
// release (trace.cpp, T2), and the two words a coalesced event updates
// later as relaxed atomics. It holds the track lock throughout, which also
// keeps the calling fiber from being preempted (preempt_linux.cpp never
// preempts a thread that holds a runtime spin lock).
//
// How a track becomes events:
//   - Switch records cut the track into fiber slices: each slice runs from
//     one switch to the next (the last one to the export), named by the
//     fiber describer (the layer that owns the fibers), "idle" for the
//     worker's idle loop; a fiber that left because it parked adds a "park"
//     instant at the cut.
//   - A span that names a fiber (work the layers above time) is cut to the
//     slices in which that fiber ran: the fiber may have parked or yielded
//     in between, and a viewer needs the spans of one track nested. Each piece
//     carries "part" and "parts" when there are several.
//   - Everything else is written as recorded.
#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "ult/log.hpp"
#include "ult/trace.hpp"
#include "ult/trace_store.hpp"

namespace bobbin::ult::trace {

// Buffered output to the trace's file descriptor.
struct JsonOut {
  int fd;
  uint64_t t0;
  std::vector<char> buf;
  bool failed = false;
  int error = 0;
  bool first = true;  // no event written yet (no comma before the next)

  JsonOut(int f, uint64_t t) : fd(f), t0(t) { buf.reserve(kCap); }
  static constexpr std::size_t kCap = 1 << 20;  // a guess: few write calls, little memory

  void flush() {
    const char* p = buf.data();
    std::size_t left = buf.size();
    while (left && !failed) {
      ssize_t w = ::write(fd, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        failed = true;
        error = w < 0 ? errno : ENOSPC;
        break;
      }
      p += w;
      left -= std::size_t(w);
    }
    buf.clear();
  }
  void put(const char* s, std::size_t n) {
    if (buf.size() + n > kCap) flush();
    buf.insert(buf.end(), s, s + n);
  }
  void put(const char* s) { put(s, strlen(s)); }
  void put(char c) { put(&c, 1); }
  void u64(uint64_t v) {
    char t[24];
    put(t, std::size_t(snprintf(t, sizeof t, "%" PRIu64, v)));
  }
  void i64(int64_t v) {
    char t[24];
    put(t, std::size_t(snprintf(t, sizeof t, "%" PRId64, v)));
  }
  // Microseconds since the start of tracing, to the nanosecond.
  void us(uint64_t ns) {
    uint64_t d = ns > t0 ? ns - t0 : 0;
    char t[32];
    put(t, std::size_t(snprintf(t, sizeof t, "%" PRIu64 ".%03u", d / 1000, unsigned(d % 1000))));
  }
  void dur(uint64_t a, uint64_t b) {
    uint64_t d = b > a ? b - a : 0;
    char t[32];
    put(t, std::size_t(snprintf(t, sizeof t, "%" PRIu64 ".%03u", d / 1000, unsigned(d % 1000))));
  }
  void string(const char* s) {
    put('"');
    for (const unsigned char* p = reinterpret_cast<const unsigned char*>(s); *p; ++p) {
      if (*p == '"' || *p == '\\') {
        put('\\');
        put(char(*p));
      } else if (*p < 0x20) {
        char t[8];
        put(t, std::size_t(snprintf(t, sizeof t, "\\u%04x", *p)));
      } else {
        put(char(*p));
      }
    }
    put('"');
  }
};

void Json::key(const char* k) {
  if (!first_) out_->put(',');
  first_ = false;
  out_->string(k);
  out_->put(':');
}
void Json::num(const char* k, uint64_t v) { key(k), out_->u64(v); }
void Json::signed_num(const char* k, int64_t v) { key(k), out_->i64(v); }
void Json::str(const char* k, const char* v) { key(k), out_->string(v ? v : ""); }
void Json::boolean(const char* k, bool v) { key(k), out_->put(v ? "true" : "false"); }
void Json::time_us(const char* k, uint64_t ns) { key(k), out_->us(ns); }
void Json::nums(const char* k, const uint32_t* v, int n) {
  key(k);
  out_->put('[');
  for (int i = 0; i < n; ++i) {
    if (i) out_->put(',');
    out_->u64(v[i]);
  }
  out_->put(']');
}
void Json::strs(const char* k, const uint32_t* v, int n, const char* (*names)(uint32_t)) {
  key(k);
  out_->put('[');
  for (int i = 0; i < n; ++i) {
    if (i) out_->put(',');
    out_->string(names(v[i]));
  }
  out_->put(']');
}

namespace {

const char* leave_name(uint8_t why) {
  switch (Leave(why)) {
    case Leave::Run: return "run";
    case Leave::Yield: return "yield";
    case Leave::Park: return "park";
    case Leave::Finish: return "finish";
    case Leave::Preempt: return "preempt";
    case Leave::Relabel: return "relabel";
  }
  return "?";
}

// One event as read back: the record (its later-updated words read as
// relaxed atomics) and its list.
struct Event {
  Record r;
  std::vector<uint32_t> list;
};

Event read_event(Record* p) {
  Event e;
  e.r.ts = p->ts;
  e.r.kind = p->kind;
  e.r.more = p->more;
  e.r.flags = p->flags;
  e.r.fiber = p->fiber;
  e.r.a[0] = p->a[0];
  e.r.a[1] = p->a[1];
  e.r.a[2] = p->a[2];
  // Relaxed: a coalesced event's count and last time change after
  // publication (trace.cpp, instant_list).
  e.r.a[3] = std::atomic_ref<uint32_t>(p->a[3]).load(memory_order_relaxed);
  e.r.end = std::atomic_ref<uint64_t>(p->end).load(memory_order_relaxed);
  const auto* vals = reinterpret_cast<const uint32_t*>(p + 1);
  for (int i = 0; i < p->more * kListPerRecord && vals[i] != kListEnd; ++i) e.list.push_back(vals[i]);
  return e;
}

class TrackWriter {
 public:
  TrackWriter(JsonOut& out, pid_t pid, long tid, uint64_t t_end) : out_(out), pid_(pid), tid_(tid), t_end_(t_end) {}

  void event(const Event& e) {
    if (e.r.kind >= g_store.nkinds) return;
    const Kind& k = g_store.kinds[e.r.kind];
    switch (k.shape) {
      case Shape::Switch: switch_to(e); break;
      case Shape::Span: span(e, k); break;
      case Shape::Instant: instant(e, k); break;
    }
  }

  void finish() {
    if (open_) close_slice(t_end_, nullptr);
  }

 private:
  struct Slice {
    uint64_t b, e;
  };

  void head(const char* name, const char* cat, const char* ph, uint64_t ts) {
    out_.put(out_.first ? "" : ",\n");
    out_.first = false;
    out_.put("{\"name\":");
    out_.string(name);
    out_.put(",\"cat\":");
    out_.string(cat);
    out_.put(",\"ph\":\"");
    out_.put(ph);
    out_.put("\",\"pid\":");
    out_.u64(uint64_t(pid_));
    out_.put(",\"tid\":");
    out_.u64(uint64_t(tid_));
    out_.put(",\"ts\":");
    out_.us(ts);
  }

  void args(const Event& e, void (*fn)(const Record&, const uint32_t*, int, Json&), const char* leave, int part,
            int parts) {
    out_.put(",\"args\":{");
    Json j(&out_);
    if (e.r.fiber) j.num("fiber", e.r.fiber);
    if (fn) fn(e.r, e.list.data(), int(e.list.size()), j);
    if (leave) j.str("left", leave);
    if (parts > 1) {
      j.num("part", uint64_t(part));
      j.num("parts", uint64_t(parts));
    }
    out_.put("}}");
  }

  void title(const Event& e, const Kind& k, void (*fn)(const Record&, char*, std::size_t), char* buf, std::size_t n) {
    if (fn) fn(e.r, buf, n);
    else snprintf(buf, n, "%s", k.name);
  }

  void close_slice(uint64_t at, const Event* next) {
    const Event& s = open_slice_;
    bool idle = s.r.flags & kSwitchIdle;
    const FiberDescriber& d = g_store.describer;
    char name[96];
    if (idle) snprintf(name, sizeof name, "idle");
    else if (d.title) d.title(s.r, name, sizeof name);
    else snprintf(name, sizeof name, "fiber %u", s.r.fiber);
    head(name, idle ? "idle" : "fiber", "X", open_begin_);
    out_.put(",\"dur\":");
    out_.dur(open_begin_, at);
    uint8_t why = next ? uint8_t(next->r.flags & ~kSwitchIdle) : 0xff;
    args(s, idle ? nullptr : d.args, next ? leave_name(why) : "running at exit", 0, 1);
    slices_[s.r.fiber].push_back({open_begin_, at});
    if (next && Leave(why) == Leave::Park && !idle) {
      head("park", "fiber", "i", at);
      out_.put(",\"s\":\"t\",\"args\":{\"fiber\":");
      out_.u64(s.r.fiber);
      out_.put("}}");
    }
    open_ = false;
  }

  void switch_to(const Event& e) {
    if (open_) close_slice(e.r.ts, &e);
    open_ = true;
    open_slice_ = e;
    open_begin_ = e.r.ts;
  }

  void span(const Event& e, const Kind& k) {
    char name[96];
    title(e, k, k.title, name, sizeof name);
    std::vector<Slice> pieces;
    if (e.r.fiber) {
      auto it = slices_.find(e.r.fiber);
      if (it != slices_.end()) {
        const std::vector<Slice>& v = it->second;
        auto first = std::lower_bound(v.begin(), v.end(), e.r.ts, [](const Slice& s, uint64_t t) { return s.e <= t; });
        for (auto p = first; p != v.end() && p->b < e.r.end; ++p)
          pieces.push_back({std::max(p->b, e.r.ts), std::min(p->e, e.r.end)});
      }
      if (open_ && open_slice_.r.fiber == e.r.fiber && open_begin_ < e.r.end)
        pieces.push_back({std::max(open_begin_, e.r.ts), e.r.end});
    }
    if (pieces.empty()) pieces.push_back({e.r.ts, e.r.end});
    int n = int(pieces.size());
    for (int i = 0; i < n; ++i) {
      head(name, k.category, "X", pieces[std::size_t(i)].b);
      out_.put(",\"dur\":");
      out_.dur(pieces[std::size_t(i)].b, pieces[std::size_t(i)].e);
      args(e, k.args, nullptr, i + 1, n);
    }
  }

  void instant(const Event& e, const Kind& k) {
    char name[96];
    title(e, k, k.title, name, sizeof name);
    head(name, k.category, "i", e.r.ts);
    out_.put(",\"s\":\"t\"");
    args(e, k.args, nullptr, 0, 1);
  }

 private:
  JsonOut& out_;
  pid_t pid_;
  long tid_;
  uint64_t t_end_;
  bool open_ = false;
  Event open_slice_;
  uint64_t open_begin_ = 0;
  std::unordered_map<uint32_t, std::vector<Slice>> slices_;
};

void metadata(JsonOut& out, const char* what, pid_t pid, long tid, const char* key, const char* s, long v) {
  out.put(out.first ? "" : ",\n");
  out.first = false;
  out.put("{\"name\":");
  out.string(what);
  out.put(",\"ph\":\"M\",\"pid\":");
  out.u64(uint64_t(pid));
  if (tid >= 0) {
    out.put(",\"tid\":");
    out.u64(uint64_t(tid));
  }
  out.put(",\"args\":{");
  out.string(key);
  out.put(':');
  if (s) out.string(s);
  else out.i64(v);
  out.put("}}");
}

}  // namespace

void write_now() {
  if (g_store.written.exchange(true, memory_order_relaxed)) return;
  if (g_store.fd < 0 || getpid() != g_store.pid) return;
  uint64_t t_end = now();
  pid_t pid = g_store.pid;
  JsonOut out(g_store.fd, g_store.t0);
  std::vector<std::pair<const Track*, uint64_t>> dropped;
  {
    SpinGuard g(g_store.lock);  // T3; also: no preemption of this thread meanwhile
    int n = g_store.count.load(memory_order_acquire);  // pairs with publish's release
    out.put("{\"traceEvents\":[\n");
    char pname[160];
    snprintf(pname, sizeof pname, "%s (Bobbin)", program_invocation_short_name);
    metadata(out, "process_name", pid, -1, "name", pname, 0);
    std::vector<long> tids;
    for (int i = 0; i < n; ++i) {
      const Track* t = g_store.tracks[i];
      long tid = t->tid;
      // A kernel thread id may have been reused by a later thread (after
      // omp_pause_resource): keep tracks apart.
      while (std::find(tids.begin(), tids.end(), tid) != tids.end()) tid += 1 << 22;
      tids.push_back(tid);
      metadata(out, "thread_name", pid, tid, "name", t->name, 0);
      metadata(out, "thread_sort_index", pid, tid, "sort_index", nullptr, t->sort);
    }
    for (int i = 0; i < n; ++i) {
      Track* t = g_store.tracks[i];
      TrackWriter w(out, pid, tids[std::size_t(i)], t_end);
      for (Chunk* c = t->head; c; c = c->next.load(memory_order_acquire)) {  // pairs with reserve's release
        uint32_t used = c->used.load(memory_order_acquire);                 // T2
        for (uint32_t k = 0; k < used; k += 1u + c->rec[k].more) w.event(read_event(&c->rec[k]));
      }
      w.finish();
      if (uint64_t d = t->dropped.load(memory_order_relaxed)) dropped.emplace_back(t, d);
    }
    out.put("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\"");
    for (int i = 0; i < g_store.nmeta; ++i) {
      out.put(',');
      out.string(g_store.meta[i].key);
      out.put(':');
      out.string(g_store.meta[i].value);
    }
    out.put("}}\n");
    out.flush();
  }
  for (auto& [t, d] : dropped)
    warn("%s: %s recorded more than %" PRIu64 " events; its %" PRIu64 " later ones are not in %s", g_store.setting,
         t->name, kMaxChunks * kChunkRecords, d, g_store.path);
  if (out.failed) warn("%s: writing %s failed (%s)", g_store.setting, g_store.path, strerror(out.error));
  if (close(g_store.fd) != 0 && !out.failed) warn("%s: writing %s failed (%s)", g_store.setting, g_store.path, strerror(errno));
  g_store.fd = -1;
}

}  // namespace bobbin::ult::trace
