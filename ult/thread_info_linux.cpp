#include "ult/thread_info.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace bobbin::ult {

long native_thread_id() { return long(syscall(SYS_gettid)); }

std::vector<int> current_thread_cpus() {
  std::vector<int> out;
  // A dynamically sized set, so machines with more than CPU_SETSIZE (1024)
  // processors work; 64K processors is more than Linux supports (NR_CPUS).
  for (int n = 1024; n <= 65536; n *= 2) {
    cpu_set_t* set = CPU_ALLOC(std::size_t(n));
    std::size_t bytes = CPU_ALLOC_SIZE(std::size_t(n));
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) == 0) {
      for (int c = 0; c < n; ++c)
        if (CPU_ISSET_S(std::size_t(c), bytes, set)) out.push_back(c);
      CPU_FREE(set);
      return out;
    }
    CPU_FREE(set);
  }
  return out;
}

}  // namespace bobbin::ult
