// Context switching with Boost.Context's fcontext layer (make_fcontext,
// jump_fcontext): the lowest level Boost offers, a few dozen instructions per
// switch and no allocation. The higher-level boost::context::fiber would put
// a control record on each stack and add a resume-callback layer that we
// write ourselves anyway (the after-switch action). fcontext lives in
// boost::context::detail but has been stable since Boost 1.61.
#include "ult/fiber.hpp"

#include <boost/context/detail/fcontext.hpp>

#include "ult/log.hpp"
#include "ult/worker.hpp"

namespace bobbin::ult {

namespace bc = boost::context::detail;

namespace {
struct SwitchMsg {
  Fiber* from;
  AfterSwitch after;
  void* arg;
  Fiber* to;  // read only by a fiber's first activation (the trampoline)
};

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
  complete_switch(t);
  Worker::fiber_main(self);
  fatal("internal error: fiber main returned");
}
}  // namespace

void Fiber::prepare(Entry entry, void* user, bool movable) {
  BOBBIN_ASSERT(reusable());
  movable_ = movable;
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

void FiberOps::switch_to(Fiber* from, Fiber* to, AfterSwitch after, void* arg) {
  if (to->ctx_ == nullptr) {
    BOBBIN_ASSERT(to->stack_.base != nullptr);
    to->ctx_ = bc::make_fcontext(to->stack_.top(), to->stack_.usable(), trampoline);
  }
  SwitchMsg m{from, after, arg, to};
  bc::transfer_t t = bc::jump_fcontext(to->ctx_, &m);
  complete_switch(t);  // resumed: whoever jumped here left its message in t.data
}

}  // namespace bobbin::ult
