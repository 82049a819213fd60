// Binding threads to processors, and the machine's real topology (hwloc).
// This and scheduler/topology.cpp are the only files that include hwloc.h.
#pragma once

#include <sched.h>

#include <cstddef>
#include <vector>

struct hwloc_topology;

namespace bobbin::ult {

// The real machine, loaded once and never modified. Thread-safe.
hwloc_topology* machine_topology();
// Binds the calling thread to the given OS processor indices. Returns false
// (and changes nothing) if the set is empty or binding is not supported.
bool pin_current_thread(const std::vector<int>& os_cpus);
// A processor set made ready for binding ahead of time, so that binding to
// it allocates nothing: the bits sched_setaffinity takes.
class CpuMask {
 public:
  explicit CpuMask(const std::vector<int>& os_cpus);
  // The calling thread's mask (empty if it cannot be read).
  static CpuMask of_current_thread();
  bool empty() const { return bits_.empty(); }
  bool operator==(const CpuMask& o) const { return bits_ == o.bits_; }
  // For a thread attribute (pthread_attr_setaffinity_np).
  const cpu_set_t* set() const { return reinterpret_cast<const cpu_set_t*>(bits_.data()); }
  std::size_t bytes() const { return bits_.size() * sizeof(unsigned long); }

 private:
  CpuMask() = default;
  friend bool pin_current_thread(const CpuMask& mask);
  std::vector<unsigned long> bits_;  // no zero words at the end
};
// Binds the calling thread to `mask`: one system call, no allocation, so a
// signal handler may call it. Returns false if the set is empty or the
// kernel refuses it (a processor the process may not use).
bool pin_current_thread(const CpuMask& mask);
// The OS processor indices this process may run on, ascending, as they
// were at the first call.
const std::vector<int>& allowed_cpus();
// Binds another thread of this process (a pool worker's) to the given OS
// processors. Returns false (and changes nothing) if that fails.
bool pin_thread(unsigned long pthread, const std::vector<int>& os_cpus);
// The OS processor the calling thread runs on now (-1 if unknown).
int current_cpu();
// Whether a thread the program starts from a pool worker gets the
// process's mask rather than the worker's (create_linux.cpp): the runtime
// says so when the program asked for no binding.
void set_children_unbound(bool on);

}  // namespace bobbin::ult
