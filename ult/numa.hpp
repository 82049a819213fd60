// Which NUMA node holds a page (OS-specific: numa_linux.cpp).
#pragma once

namespace bobbin {
// The node of the page holding addr, or -1 if unknown (not yet touched, no NUMA support).
int numa_node_of(const void* addr);
}  // namespace bobbin
