// Context switching with Boost.Context's fcontext layer (make_fcontext,
// jump_fcontext): the lowest level Boost offers, a few dozen instructions per
// switch and no allocation. The higher-level boost::context::fiber would put
// a control record on each stack and add a resume-callback layer that we
// write ourselves anyway (the after-switch action). fcontext lives in
// boost::context::detail but has been stable since Boost 1.61.
#include "ult/fiber.hpp"

#include <boost/context/detail/fcontext.hpp>

#include "ult/log.hpp"
#include "ult/trace.hpp"
#include "ult/worker.hpp"

// ThreadSanitizer tracks one call stack and one vector clock per kernel
// thread; a context switch it does not know about mixes the fibers of a
// worker into one thread: their function entries and exits interleave on
// one shadow stack (wrong stacks in reports, and an unbounded shadow stack
// on long runs), and accesses of two fibers on one worker look ordered. So
// in a TSan build each fiber gets its own TSan context, and switch_to
// announces every switch (__tsan_switch_to_fiber, the annotation TSan
// documents for swapcontext-style switches). A worker's own context
// (native_) adopts the thread's context the first time it switches away.
// Switches synchronize (flags 0): the after-switch action and the message
// on the stack are ordered by the switch itself, so an unsynchronized
// switch would report them as races; races between workers are still seen.
#if defined(__SANITIZE_THREAD__)
#define BOBBIN_TSAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BOBBIN_TSAN_FIBERS 1
#endif
#endif
#if BOBBIN_TSAN_FIBERS
#include <sanitizer/tsan_interface.h>
#else
#include <dlfcn.h>
#endif

// AddressSanitizer keeps the bounds of the running stack (for stack
// accounting and for the fake stacks of use-after-return detection); a
// switch it does not know about makes it see a fiber's frames as overflows
// of the thread's stack. So an ASan build announces each switch with the
// destination's stack (__sanitizer_start_switch_fiber) and completes it on
// arrival (__sanitizer_finish_switch_fiber), which also reports the stack
// left: that is how a native context's bounds (a kernel thread's own stack)
// are learnt, the first time it switches to a fiber. A finished fiber's
// last switch passes no fake-stack slot, so ASan frees its fake stack.
#if defined(__SANITIZE_ADDRESS__)
#define BOBBIN_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BOBBIN_ASAN_FIBERS 1
#endif
#endif
#if BOBBIN_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

namespace bobbin::ult {

namespace bc = boost::context::detail;

namespace {
// The TSan fiber interface, in a TSan build of the runtime; otherwise the
// program's own TSan runtime when it has one (a program built with
// -fsanitize=thread under this library, as with Archer, the OpenMP data
// race detector: without the announcements, TSan sees a worker's fibers as
// one thread, their stacks interleaved). Looked up once at load: the
// program's TSan runtime is loaded before any library it uses.
struct TsanFibers {
  void* (*current)() = nullptr;
  void* (*create)(unsigned) = nullptr;
  void (*destroy)(void*) = nullptr;
  void (*switch_to)(void*, unsigned) = nullptr;
};
#if BOBBIN_TSAN_FIBERS
const TsanFibers g_tsan{&__tsan_get_current_fiber, &__tsan_create_fiber, &__tsan_destroy_fiber, &__tsan_switch_to_fiber};
constexpr bool tsan_on() { return true; }
#else
const TsanFibers g_tsan = [] {
  TsanFibers t;
  t.current = reinterpret_cast<void* (*)()>(dlsym(RTLD_DEFAULT, "__tsan_get_current_fiber"));
  t.create = reinterpret_cast<void* (*)(unsigned)>(dlsym(RTLD_DEFAULT, "__tsan_create_fiber"));
  t.destroy = reinterpret_cast<void (*)(void*)>(dlsym(RTLD_DEFAULT, "__tsan_destroy_fiber"));
  t.switch_to = reinterpret_cast<void (*)(void*, unsigned)>(dlsym(RTLD_DEFAULT, "__tsan_switch_to_fiber"));
  if (!t.current || !t.create || !t.destroy || !t.switch_to) t = TsanFibers{};
  return t;
}();
inline bool tsan_on() { return g_tsan.switch_to != nullptr; }
#endif
}  // namespace

namespace {
struct SwitchMsg {
  Fiber* from;
  AfterSwitch after;
  void* arg;
  Fiber* to;  // read only by a fiber's first activation (the trampoline)
};

// On arrival: tells ASan the switch is done (`fake`: the slot the
// arriving fiber saved when it left, null on a first activation) and
// records the stack of a native context that switched here.
void asan_arrived(bc::transfer_t t, void* fake) {
#if BOBBIN_ASAN_FIBERS
  const void* bottom = nullptr;
  std::size_t size = 0;
  __sanitizer_finish_switch_fiber(fake, &bottom, &size);
  Fiber* from = static_cast<SwitchMsg*>(t.data)->from;
  FiberOps::note_native_stack(from, bottom, size);
#else
  (void)t;
  (void)fake;
#endif
}

// Runs the after-action of whoever switched to us.
void complete_switch(bc::transfer_t t) {
  auto* m = static_cast<SwitchMsg*>(t.data);
  // Copy out first: once `after` runs, `from` may be resumed elsewhere and
  // overwrite the stack that holds *m.
  Fiber* from = m->from;
  AfterSwitch after = m->after;
  void* arg = m->arg;
  FiberOps::save_context(from, t.fctx);
  if (after) after(from, arg);
}

[[noreturn]] void trampoline(bc::transfer_t t) {
  Fiber* self = static_cast<SwitchMsg*>(t.data)->to;
  asan_arrived(t, nullptr);
  complete_switch(t);
  Worker::fiber_main(self);
  fatal("internal error: fiber main returned");
}
}  // namespace

Fiber::~Fiber() {
  if (tsan_on() && tsan_ && !native_) g_tsan.destroy(tsan_);
}

void Fiber::prepare(Entry entry, void* user, bool movable) {
  BOBBIN_ASSERT(reusable());
  if (tsan_on()) [[unlikely]] {
    if (tsan_ && !native_) g_tsan.destroy(tsan_);  // Idle: not running anywhere
    tsan_ = nullptr;
  }
  movable_ = movable;
  order_key_ = 0;
  pool_only_ = false;
  helper_ = nullptr;
  place_ = -1;
  waiting_for_work_ = false;
  if (trace::on()) trace_id_ = trace::new_fiber_id();  // each run of the fiber is numbered anew
  entry_ = entry;
  user_ = user;
  ctx_ = nullptr;
  home_ = nullptr;
  permit_.store(0, memory_order_relaxed);
  // relaxed: the fiber is published to a worker by a queue push under a lock,
  // whose release orders these stores before any reader.
  state_.store(uint32_t(FiberState::Ready), memory_order_relaxed);
}

void FiberOps::save_context(Fiber* f, void* ctx) { f->ctx_ = ctx; }

void FiberOps::note_native_stack(Fiber* f, const void* bottom, std::size_t size) {
  if (f->native_ && !f->asan_bottom_) {
    f->asan_bottom_ = bottom;
    f->asan_size_ = size;
  }
}

void FiberOps::switch_to(Fiber* from, Fiber* to, AfterSwitch after, void* arg) {
  if (to->ctx_ == nullptr) {
    BOBBIN_ASSERT(to->stack_.base != nullptr);
    to->ctx_ = bc::make_fcontext(to->stack_.top(), to->stack_.usable(), trampoline);
  }
  SwitchMsg m{from, after, arg, to};
  if (tsan_on()) [[unlikely]] {
    if (!from->tsan_) from->tsan_ = g_tsan.current();  // a native context's first switch
    if (!to->tsan_) to->tsan_ = g_tsan.create(0);
    g_tsan.switch_to(to->tsan_, 0);
  }
#if BOBBIN_ASAN_FIBERS
  void* fake = nullptr;
  bool last = from->state_.load(memory_order_relaxed) == uint32_t(FiberState::Finished);
  if (to->native_) {
    __sanitizer_start_switch_fiber(last ? nullptr : &fake, to->asan_bottom_, to->asan_size_);
  } else {
    __sanitizer_start_switch_fiber(last ? nullptr : &fake, to->stack_.top() - to->stack_.usable(), to->stack_.usable());
  }
#else
  void* fake = nullptr;
#endif
  bc::transfer_t t = bc::jump_fcontext(to->ctx_, &m);
  asan_arrived(t, fake);
  complete_switch(t);  // resumed: whoever jumped here left its message in t.data
}

}  // namespace bobbin::ult
