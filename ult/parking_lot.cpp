#include "ult/parking_lot.hpp"

#include "ult/spinlock.hpp"
#include "ult/worker.hpp"

namespace bobbin::ult {

namespace {
struct Waiter {
  const void* key;
  Fiber* fiber;
  Waiter* next;
  bool woken;  // guarded by the bucket lock
};

struct alignas(kCacheLine) Bucket {
  SpinLock lock;
  Waiter* head GUARDED_BY(lock) = nullptr;
};

// 256 buckets: collisions only cost a longer list scan; a guess sized for
// hundreds of concurrently contended locks.
constexpr unsigned kBuckets = 256;
Bucket g_buckets[kBuckets];
// Threads that are not workers wait on the kernel futex; counted so that the
// common unlock path makes no futex_wake syscall when there are none.
Atomic<int> g_kernel_waiters{0};

Bucket& bucket_for(const void* key) {
  auto k = reinterpret_cast<uintptr_t>(key);
  k ^= k >> 17;
  k *= 0x9E3779B97F4A7C15ull;  // Fibonacci hashing
  return g_buckets[k >> (64 - 8)];
}
}  // namespace

void park_on(Atomic<uint32_t>* word, uint32_t expected) {
  Fiber* self = Worker::current_fiber();
  if (!self) {
    // seq_cst increment/load: a waker must not miss a counted waiter (store-buffer pattern with *word).
    g_kernel_waiters.fetch_add(1, memory_order_seq_cst);
    futex_wait(word, expected);
    g_kernel_waiters.fetch_sub(1, memory_order_relaxed);
    return;
  }
  Bucket& b = bucket_for(word);
  Waiter w{word, self, nullptr, false};
  {
    SpinGuard g(b.lock);
    // acquire: pairs with the waker's release store of *word.
    if (word->load(memory_order_acquire) != expected) return;
    w.next = b.head;
    b.head = &w;
  }
  // Park until a waker removed us (it sets woken under the lock before unparking).
  for (;;) {
    Worker::park();
    SpinGuard g(b.lock);
    if (w.woken) return;
    // Spurious: still queued. Leave if the value changed (we are then merely early).
    if (word->load(memory_order_acquire) != expected) {
      for (Waiter** p = &b.head; *p; p = &(*p)->next) {
        if (*p == &w) { *p = w.next; break; }
      }
      return;
    }
  }
}

int unpark_on(Atomic<uint32_t>* word, int n) {
  Bucket& b = bucket_for(word);
  Fiber* wake[16];
  int count = 0, total = 0;
  for (;;) {
    count = 0;
    {
      SpinGuard g(b.lock);
      for (Waiter** p = &b.head; *p && total + count < n && count < 16;) {
        Waiter* w = *p;
        if (w->key == word) {
          *p = w->next;
          w->woken = true;
          wake[count++] = w->fiber;
        } else {
          p = &w->next;
        }
      }
    }
    // The Waiter record lives on the parked fiber's stack; after woken is set
    // we only touch the fiber, which stays valid until it has run.
    for (int i = 0; i < count; ++i) Worker::unpark(wake[i]);
    total += count;
    if (count < 16 || total >= n) break;
  }
  if (g_kernel_waiters.load(memory_order_seq_cst) > 0) futex_wake(word, n);
  return total;
}

}  // namespace bobbin::ult
