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
// Whether the program asked for no binding (the runtime says so at start):
// then the pool workers' pins are the runtime's business alone, and the
// program sees its threads as libomp's and libgomp's unbound ones: a thread
// it starts from a worker gets the process's mask (create_linux.cpp), and a
// worker's mask reads as the process's (affinity_linux.cpp).
void set_program_unbound(bool on);
bool program_unbound();
// Whether the program set some thread's mask itself (sched_setaffinity or
// pthread_setaffinity_np, not from the runtime): from then on every mask
// reads as the kernel has it.
bool program_pinned();
void note_program_pin();
// Whether the calling thread's own mask reads as the process's to the
// program (affinity_linux.cpp): no binding asked for, none set by the
// program, and a kernel thread of the runtime's own. The runtime's own
// reports of a thread's processors (OMP_DISPLAY_AFFINITY's %A) follow it.
bool reads_process_mask();
// True on a thread while the runtime itself binds threads or reads masks
// through hwloc (whose calls reach the C library's entries, which Bobbin
// interposes).
bool in_runtime_affinity();

}  // namespace bobbin::ult
