// Linux: mmap/mlock for pages, get_mempolicy/mbind for NUMA placement (raw
// syscalls, so Bobbin needs no libnuma).
#include "ult/memory.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>

namespace bobbin::ult {

namespace {

// <linux/mempolicy.h> values (stable kernel ABI).
constexpr int kMpolPreferred = 1;
constexpr int kMpolInterleave = 3;
constexpr unsigned long kMpolFMemsAllowed = 1ul << 2;
// Node masks are passed as arrays of unsigned long; 1024 nodes is the
// kernel's largest MAX_NUMNODES on x86-64 (CONFIG_NODES_SHIFT=10).
constexpr unsigned long kMaxNodes = 1024;
constexpr std::size_t kBitsPerWord = 8 * sizeof(unsigned long);

std::vector<int> g_nodes;
std::once_flag g_nodes_once;

}  // namespace

std::size_t page_size() {
  static const std::size_t size = std::size_t(sysconf(_SC_PAGESIZE));
  return size;
}

void* map_pages(std::size_t len) {
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void unmap_pages(void* p, std::size_t len) { munmap(p, len); }

bool lock_pages(void* p, std::size_t len) { return mlock(p, len) == 0; }

const std::vector<int>& memory_nodes() {
  std::call_once(g_nodes_once, [] {
    unsigned long mask[kMaxNodes / kBitsPerWord] = {};
    if (syscall(SYS_get_mempolicy, nullptr, mask, kMaxNodes, nullptr, kMpolFMemsAllowed) == 0) {
      for (unsigned long n = 0; n < kMaxNodes; ++n)
        if (mask[n / kBitsPerWord] & (1ul << (n % kBitsPerWord))) g_nodes.push_back(int(n));
    }
    if (g_nodes.empty()) g_nodes.push_back(0);
  });
  return g_nodes;
}

int current_memory_node() {
  unsigned cpu = 0, node = 0;
  if (syscall(SYS_getcpu, &cpu, &node, nullptr) != 0) return -1;
  return int(node);
}

bool place_pages(void* p, std::size_t len, PagePolicy policy, const std::vector<int>& nodes) {
  unsigned long mask[kMaxNodes / kBitsPerWord] = {};
  for (int n : nodes) {
    if (n < 0 || static_cast<unsigned long>(n) >= kMaxNodes) return false;
    mask[std::size_t(n) / kBitsPerWord] |= 1ul << (std::size_t(n) % kBitsPerWord);
  }
  int mode = policy == PagePolicy::Prefer ? kMpolPreferred : kMpolInterleave;
  return syscall(SYS_mbind, p, len, mode, mask, kMaxNodes, 0u) == 0;
}

}  // namespace bobbin::ult
