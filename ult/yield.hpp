// Kernel yields (yield_linux.cpp).
#pragma once

#include <cstdint>

namespace bobbin {
// sched_yield as a system call from the runtime's own instruction: what the
// runtime's spin loops use (never a fiber switch, never a preemption point).
void os_yield();
namespace ult {
// The instruction after the program's sched_yield system call (0 where it
// is not known): a safe point for preemption.
uintptr_t user_yield_return();
}  // namespace ult
}  // namespace bobbin
