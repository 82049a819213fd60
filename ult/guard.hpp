// Stack-overflow detection for fibers: a SIGSEGV/SIGBUS handler, on an
// alternate signal stack, that recognises a hit on a fiber's guard page.
#pragma once

#include <cstddef>

namespace bobbin::ult {

class Fiber;

// Each worker thread calls these (sigaltstack is per thread); the first call
// installs the process-wide handler, which chains to the previous one for any
// fault that is not a guard-page hit.
void install_guard_for_thread();
void uninstall_guard_for_thread();

// The layer above says who a fiber is ("OpenMP thread 3 at level 1"); it must
// be async-signal-safe: format into buf, no allocation, no locks.
using DescribeFiber = void (*)(Fiber* f, char* buf, std::size_t len);
void set_fiber_describer(DescribeFiber fn);
// Formats f with the describer (or "a fiber" if none is set).
void describe_fiber(Fiber* f, char* buf, std::size_t len);

}  // namespace bobbin::ult
