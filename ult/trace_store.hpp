// The trace recorder's buffers, shared by the recorder (trace.cpp, which
// argues the design) and the exporter (trace_json.cpp). Not for other files.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "ult/atomic.hpp"
#include "ult/spinlock.hpp"
#include "ult/trace.hpp"

namespace bobbin::ult::trace {

// 16384 records of 40 bytes: 640 KiB, a new mapping every 16k events
// (about a millisecond of the busiest recording seen, fiber switches in
// EPCC's parallel); a guess at "rare enough to cost nothing, small enough
// not to matter for a short program".
constexpr uint32_t kChunkRecords = 16384;
// At most 64 chunks per track: 1M events, 40 MiB, about 100 MiB of JSON per
// thread; later events of that thread are dropped and counted (a guess at
// what a viewer still opens).
constexpr uint64_t kMaxChunks = 64;
constexpr int kMaxTracks = 8192;       // workers, spares, the monitor, program threads
constexpr int kMaxKinds = 64;
constexpr int kMaxMeta = 16;
constexpr int kMaxList = 250;          // list values kept per event (25 continuation records)
constexpr uint32_t kNoEvent = ~uint32_t(0);
constexpr uint32_t kListEnd = ~uint32_t(0);  // pads a list's last continuation record
constexpr uint8_t kSwitchIdle = 0x80;        // Switch flags: to the worker's idle loop; low bits: Leave

struct Chunk {
  Atomic<Chunk*> next{nullptr};  // written once by the owner (release), read by the exporter (acquire)
  Atomic<uint32_t> used{0};      // records written; owner stores (release), exporter loads (acquire)
  Record rec[kChunkRecords];
};

struct Track {
  char name[48] = {};  // written before publication, or under Store::lock (attach_thread)
  int sort = 0;        // likewise
  long tid = 0;        // the kernel's thread id; written before publication
  Chunk* head = nullptr;  // written before publication
  // The owner's (T1):
  Chunk* cur = nullptr;
  uint32_t used = 0;         // records in cur
  uint32_t last = kNoEvent;  // index in cur of the previous event's first record
  uint64_t chunks = 0;
  Atomic<uint64_t> dropped{0};  // owner writes, exporter reads (relaxed: a count)
};

struct Meta {
  char key[32];
  char value[96];
};

struct Store {
  SpinLock lock;  // publication of tracks, renaming, the exporter's reading (T3)
  Track* tracks[kMaxTracks] = {};
  Atomic<int> count{0};
  // Written only during set-up (single-threaded), read by anyone after.
  Kind kinds[kMaxKinds] = {};
  int nkinds = 0;
  FiberDescriber describer{};
  Meta meta[kMaxMeta] = {};
  int nmeta = 0;
  uint16_t k_switch = 0;
  int fd = -1;
  pid_t pid = 0;
  uint64_t t0 = 0;
  char setting[32] = {};
  char path[512] = {};
  Atomic<bool> written{false};  // the exporter ran (or must not: a fork child)
};

// Never destroyed: workers may record while the program's static destructors run.
extern Store g_store;

}  // namespace bobbin::ult::trace
