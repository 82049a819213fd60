#include "ult/stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ult/atomic.hpp"
#include "ult/log.hpp"

namespace bobbin::ult {

// libomp's default stack size for worker threads on 64-bit Linux is 4 MiB;
// matching it keeps programs that run on libomp from overflowing here. The
// mapping is lazy (MAP_NORESERVE), so untouched stack costs no memory.
static Atomic<std::size_t> g_stack_size{4u << 20};

std::size_t Stack::guard_size() {
  static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  return page;
}

void set_stack_size(std::size_t bytes) {
  std::size_t page = Stack::guard_size();
  if (bytes < 16 * page) bytes = 16 * page;  // room for the runtime's own frames
  bytes = (bytes + page - 1) / page * page;
  g_stack_size.store(bytes, memory_order_relaxed);  // read at the next take(); no ordering needed
}

std::size_t stack_size() { return g_stack_size.load(memory_order_relaxed); }

Stack map_stack(std::size_t usable) {
  std::size_t guard = Stack::guard_size();
  std::size_t total = usable + guard;
  void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (p == MAP_FAILED)
    fatal("cannot map a %zu KiB stack for an OpenMP thread (%s): lower OMP_STACKSIZE or the number of threads, "
          "or raise the address-space limit (ulimit -v)",
          total >> 10, strerror(errno));
  if (mprotect(p, guard, PROT_NONE) != 0) fatal("cannot protect a fiber stack guard page (%s)", strerror(errno));
  return Stack{static_cast<char*>(p), total};
}

void unmap_stack(Stack s) {
  if (s.base) munmap(s.base, s.mapped);
}

Stack StackCache::take() {
  std::size_t want = stack_size() + Stack::guard_size();
  while (count_ > 0) {
    Stack s = slots_[--count_];
    if (s.mapped == want) return s;
    unmap_stack(s);  // OMP_STACKSIZE changed since this one was cached
  }
  return map_stack(stack_size());
}

void StackCache::give(Stack s) {
  if (count_ < kMaxCached && s.mapped == stack_size() + Stack::guard_size()) {
    slots_[count_++] = s;
  } else {
    unmap_stack(s);
  }
}

void StackCache::clear() {
  while (count_ > 0) unmap_stack(slots_[--count_]);
}

}  // namespace bobbin::ult
