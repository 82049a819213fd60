#include <sys/syscall.h>
#include <unistd.h>

#include "ult/numa.hpp"

namespace bobbin {

int numa_node_of(const void* addr) {
  // get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR): the node of the page at addr.
  constexpr unsigned long kNode = 1, kAddr = 2;
  int node = -1;
  if (syscall(SYS_get_mempolicy, &node, nullptr, 0, addr, kNode | kAddr) != 0) return -1;
  return node;
}

}  // namespace bobbin
