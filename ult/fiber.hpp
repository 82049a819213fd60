// A fiber: a user-level thread with its own stack, switched by Boost.Context.
//
// The fiber object is owned by whoever created it (the runtime embeds one in
// each OpenMP thread descriptor and reuses it region after region); ult/ only
// runs it. Life cycle, each step by the named party:
//
//   Idle --prepare (owner)--> Ready --first switch (a worker)--> Running
//   Running <--park/unpark, yield (any worker's scheduler)--> Parked/Ready
//   Running --entry returns--> Finished --stack released (its worker)--> Idle
//
// A fiber that has started never changes worker (`home`): errno, native TLS
// and tied-task rules rely on it. Before it starts it may be given to any
// worker. reusable() is true once the fiber is back to Idle: only then may the
// owner prepare it again.
#pragma once

#include <cstdint>

#include "ult/atomic.hpp"
#include "ult/stack_pool.hpp"

namespace bobbin::ult {

class Worker;

enum class FiberState : uint32_t { Idle, Ready, Running, Parked, Finished };

class Fiber {
 public:
  using Entry = void (*)(Fiber*);

  Fiber() = default;
  ~Fiber();  // fiber.cpp: releases the ThreadSanitizer context, if any
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Arms an Idle fiber to run entry(this) from the start. `user` is the owner's.
  // `movable`: before it starts, another worker may take it (steal mode).
  void prepare(Entry entry, void* user, bool movable = false);

  void* user() const { return user_; }
  // An opaque ordering key the scheduler layer gives a fiber before it is
  // queued (0: none). Fibers with a key wait in their worker's ordered queue,
  // served before the plain FIFO, first in the order the key_before hook
  // gives. ult/ never reads meaning into it.
  uint64_t order_key() const { return order_key_; }
  void set_order_key(uint64_t k) { order_key_ = k; }
  // May start only on a pool worker with a kernel thread of its own
  // (Worker::dedicated): not on an adopted thread's worker, which runs queued
  // fibers only while that thread waits in the runtime and can leave for
  // user code (or exit) at any time. Written by the owner before queueing.
  bool pool_only() const { return pool_only_; }
  void set_pool_only(bool v) { pool_only_ = v; }
  // The one worker outside the pool that may also start this pool-only
  // fiber: an adopted thread's, at a point where it waits in the runtime for
  // the fiber to end (the join of the team it opened: runtime/team.cpp).
  // Null: none. Written by the owner before queueing.
  Worker* helper() const { return helper_; }
  void set_helper(Worker* w) { helper_ = w; }
  void set_user(void* u) { user_ = u; }
  // The place this fiber's thread is bound to (-1: none), for the resumed
  // hook (Worker::install_resumed_hook): a worker that ran fibers of other
  // places in between re-pins as this one resumes. Set by the owner before
  // queueing (then read by thieves, under the run-queue lock, while it has
  // not started), or by the fiber itself.
  int place() const { return place_; }
  void set_place(int p) { place_ = p; }
  Worker* home() const { return home_; }
  bool started() const { return ctx_ != nullptr; }
  const Stack& stack() const { return stack_; }
  // A kernel thread's own context (no stack of its own here).
  bool native() const { return native_; }
  // The trace recorder's number for this run of the fiber (ult/trace.hpp;
  // set when it is prepared, and for a worker's own contexts when the
  // worker starts); 0 while tracing is off.
  uint32_t trace_id() const { return trace_id_; }
  FiberState state() const { return static_cast<FiberState>(state_.load(memory_order_acquire)); }
  // acquire: pairs with the release store of Idle after the stack is released
  // (Worker::after_finish), so the owner's next prepare() cannot race it.
  bool reusable() const { return state_.load(memory_order_acquire) == uint32_t(FiberState::Idle); }

 private:
  friend class Worker;
  friend struct FiberOps;
  friend class FiberQueue;

  void* ctx_ = nullptr;           // saved context while not running; written by the resumer's complete_switch
  Stack stack_{};                 // owned while started; released by the home worker after finish
  Entry entry_ = nullptr;         // written by prepare (owner) before the fiber is published
  void* user_ = nullptr;
  Worker* home_ = nullptr;        // set once, by the worker that starts it
  Atomic<uint32_t> state_{uint32_t(FiberState::Idle)};
  Atomic<uint32_t> permit_{0};    // park token, see Worker::park
  Fiber* next_ = nullptr;         // run-queue link; guarded by the queue's lock
  bool native_ = false;           // a kernel thread's own context: no stack to manage
  bool movable_ = false;          // written by prepare (owner); read under the run-queue lock
  void* tsan_ = nullptr;          // its TSan context, in a TSan build or under a TSan program (fiber.cpp)
  // AddressSanitizer builds only (fiber.cpp): a native context's stack, learnt
  // when it first switches away.
  const void* asan_bottom_ = nullptr;
  std::size_t asan_size_ = 0;
  uint64_t order_key_ = 0;        // written by the owner before queueing; see order_key()
  bool pool_only_ = false;        // see pool_only()
  Worker* helper_ = nullptr;      // see helper()
  int place_ = -1;                // see place()
  bool waiting_for_work_ = false; // see Worker::note_waiting_for_work; its worker's thread only
  uint32_t trace_id_ = 0;         // written by prepare (owner) or the worker that adopts it, before the fiber runs
};

// The context-switch primitive; implemented in fiber.cpp, the only file that
// includes Boost.Context. `after(from, arg)` runs on the destination's side as
// soon as `from`'s context is saved: it is how a fiber hands itself to a queue
// or a waiter without anybody resuming it before it has stopped running.
using AfterSwitch = void (*)(Fiber* from, void* arg);

struct FiberOps {
  // Saves `from` and runs `to`. A `to` that has not started (no context yet,
  // a stack already attached) gets a fresh context that calls
  // Worker::fiber_main(to). Returns when something switches back to `from`.
  static void switch_to(Fiber* from, Fiber* to, AfterSwitch after, void* arg);
  static void save_context(Fiber* f, void* ctx);
  // AddressSanitizer builds: records a native context's stack bounds (fiber.cpp).
  static void note_native_stack(Fiber* f, const void* bottom, std::size_t size);
};

}  // namespace bobbin::ult
