// What the OS knows about the calling kernel thread (thread_info_linux.cpp):
// for affinity displays, which report the thread a fiber runs on.
#pragma once

#include <vector>

namespace bobbin::ult {

// The kernel's id of the calling thread (gettid on Linux).
long native_thread_id();
// The OS processors the calling thread may run on now, ascending.
std::vector<int> current_thread_cpus();

}  // namespace bobbin::ult
