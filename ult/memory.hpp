// Whole pages from the OS, and what an allocator may ask of them: pinning
// (never paged out) and NUMA placement. OS-specific: memory_linux.cpp.
// Memory that needs neither comes from malloc; these are for the allocator
// traits `pinned` and `partition` (runtime/alloc.cpp).
#pragma once

#include <cstddef>
#include <vector>

namespace bobbin::ult {

std::size_t page_size();
// `len` bytes of zeroed, page-aligned memory, or null (errno says why).
void* map_pages(std::size_t len);
void unmap_pages(void* p, std::size_t len);
// Keeps the pages of [p, p+len) resident (mlock). False if the OS refuses
// (RLIMIT_MEMLOCK); unmapping the pages unlocks them.
bool lock_pages(void* p, std::size_t len);

// NUMA nodes this process may allocate memory on, ascending (at least one
// entry: {0} where the OS has no NUMA support).
const std::vector<int>& memory_nodes();
// The node of the processor the calling thread runs on (-1 if unknown).
int current_memory_node();

enum class PagePolicy {
  Prefer,      // the pages' first choice is the one node given, others if it is full
  Interleave,  // page by page, round robin over the nodes given
};
// Sets the placement of pages in [p, p+len) (page-aligned, not yet touched).
// False if the OS refuses (no NUMA support, seccomp).
bool place_pages(void* p, std::size_t len, PagePolicy policy, const std::vector<int>& nodes);

}  // namespace bobbin::ult
