// Shared and per-thread state of worksharing loops (see loop.cpp).
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/wait.hpp"

namespace bobbin::rt {

// Internal schedule after run-time/auto resolution.
enum class Sched : uint8_t { Static, StaticChunked, Dynamic, Guided, Trapezoidal };

// One dynamic loop's shared state, in normalised iteration space [0, trip).
struct alignas(kCacheLine) LoopBuffer {
  // Which loop instance this buffer serves: a thread's k-th dynamic loop uses
  // buffer k % size once instance == k. Advanced by the last thread to leave.
  // Both counts wrap at 2^32; the buffer's index is counted apart
  // (Thread::ws_slot), since k % size after a wrap is not the next buffer
  // unless size divides 2^32, while instance == k still holds modulo 2^32.
  Atomic<uint32_t> instance{0};
  // 0: not set up for `instance`; 1: being set up; 2: ready.
  Atomic<uint32_t> state{0};
  // Set up by the first thread to arrive (state 1), read-only once state == 2:
  Sched sched = Sched::Static;
  bool ordered = false;
  uint64_t trip = 0;
  uint64_t chunk = 1;
  // Trapezoidal: chunk k is first - k * delta iterations long (never below
  // `chunk`, which the setup ensures for every chunk that starts in range).
  uint64_t tss_first = 1, tss_delta = 0;
  // schedule(simd:...): Static spans and Guided chunks are multiples of it.
  uint64_t align = 1;
  int nthreads = 1;
  alignas(kCacheLine) Atomic<uint64_t> next{0};   // next unclaimed iteration
  alignas(kCacheLine) Atomic<uint64_t> ordered_next{0};  // next iteration allowed into `ordered`
  WaitWord ordered_ww;
  Atomic<int> left{0};                            // threads that have left the loop
  // Doacross: one flag bit per iteration (null when not a doacross loop),
  // and each ordered dimension's lower bound, step and extent (any number of
  // dimensions: gcc passes every one of ordered(n), 61 in libgomp's tests).
  struct DepDim {
    int64_t lo, st;
    uint64_t extent;
  };
  Atomic<uint32_t>* dep_flags = nullptr;
  DepDim* dep_dims = nullptr;
  int dep_ndims = 0;
  WaitWord dep_ww;
  WaitWord ready_ww;  // waits for `instance` and `state`
};

struct DispatchRing {
  // KMP_DISP_NUM_BUFFERS loops may be in flight at once (nowait loops let
  // threads run ahead; 7 by default, as libomp). A thread further ahead
  // waits for the slowest to leave.
  std::unique_ptr<LoopBuffer[]> buf;
  uint32_t size = 0;  // dispatch_ring_size() once made
  // Makes the buffers (the first time) and readies them for a thread's first
  // loops: at every fork, and once for the teams that never fork (the
  // initial thread's, an adopted thread's) when they are made. Without this
  // an orphaned dynamic loop outside any parallel region waited forever for
  // buffer 1.
  void reset();
};

// The buffers of every team's ring. Fixed when the first ring is made (at
// start-up); until then set_dispatch_buffers(n) may change the count, as
// kmp_set_disp_num_buffers does on libomp before it initialises, and
// returns false once it is fixed.
uint32_t dispatch_ring_size();
bool set_dispatch_buffers(int n);

// A thread's position in its current dynamic loop.
struct LoopCursor {
  LoopBuffer* buf = nullptr;
  int64_t lower = 0, incr = 1;  // original bounds, to map back from [0, trip)
  uint64_t static_next = 0;     // static kinds: next chunk index of this thread
  uint64_t cur = 0, end = 0;    // the chunk being executed: iterations [cur, end)
  bool bumped = false;          // ordered region of iteration `cur` already done
  LoopBuffer* dep_buf = nullptr;  // the doacross loop this thread is in
};

}  // namespace bobbin::rt
