// Linux futex and clock: the only OS-specific code of the park/wake protocol.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ult/atomic.hpp"

namespace bobbin {

static_assert(sizeof(Atomic<uint32_t>) == sizeof(uint32_t), "futex needs a plain 32-bit word");

void futex_wait(Atomic<uint32_t>* word, uint32_t expected) {
  // Private futex: the word never crosses a process boundary.
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void futex_wait_for(Atomic<uint32_t>* word, uint32_t expected, uint64_t ns) {
  timespec ts{time_t(ns / 1000000000u), long(ns % 1000000000u)};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, &ts, nullptr, 0);
}

void futex_wake(Atomic<uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

}  // namespace bobbin
