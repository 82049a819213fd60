// Binding threads to processors, and the machine's real topology (hwloc).
// This and scheduler/topology.cpp are the only files that include hwloc.h.
#pragma once

#include <vector>

struct hwloc_topology;

namespace bobbin::ult {

// The real machine, loaded once and never modified. Thread-safe.
hwloc_topology* machine_topology();
// Binds the calling thread to the given OS processor indices. Returns false
// (and changes nothing) if the set is empty or binding is not supported.
bool pin_current_thread(const std::vector<int>& os_cpus);
// The OS processor indices this process may run on, ascending.
std::vector<int> allowed_cpus();

}  // namespace bobbin::ult
