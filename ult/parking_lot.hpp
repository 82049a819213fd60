// Futex semantics for fibers: wait on any 32-bit word, keyed by its address.
//
// Locks must fit the ABI's storage (4 bytes for a simple lock, as libgomp
// gives), so there is no room in them for a waiter list. Waiting fibers are
// kept in a global hash table of buckets instead (the "parking lot" of WebKit
// and Rust's parking_lot): a lock word only needs a "has waiters" state.
//
// Invariant: wait(addr, v) parks only if *addr == v when checked under the
// bucket lock, and wake(addr) takes the same lock; so a waker that changed
// *addr and then calls wake either finds the waiter queued or the waiter
// sees the new value. Same contract as FUTEX_WAIT/FUTEX_WAKE.
#pragma once

#include <cstdint>

#include "ult/atomic.hpp"

namespace bobbin::ult {

// Parks the calling fiber while *word == expected. May return spuriously.
// From a thread that is not a worker, waits on the kernel futex instead.
void park_on(Atomic<uint32_t>* word, uint32_t expected);
// Wakes up to n fibers (and kernel-thread waiters) parked on word; returns how many fibers.
int unpark_on(Atomic<uint32_t>* word, int n);

}  // namespace bobbin::ult
