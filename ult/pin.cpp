#include "ult/pin.hpp"

#include <hwloc.h>

#include <mutex>

#include "ult/log.hpp"

namespace bobbin::ult {

static hwloc_topology_t g_topo = nullptr;
static std::once_flag g_once;

hwloc_topology* machine_topology() {
  std::call_once(g_once, [] {
    if (hwloc_topology_init(&g_topo) != 0 || hwloc_topology_load(g_topo) != 0) {
      fatal("hwloc could not discover this machine's topology");
    }
  });
  return g_topo;
}

bool pin_current_thread(const std::vector<int>& os_cpus) {
  if (os_cpus.empty()) return false;
  hwloc_topology_t t = machine_topology();
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  for (int c : os_cpus) hwloc_bitmap_set(set, unsigned(c));
  bool ok = hwloc_set_cpubind(t, set, HWLOC_CPUBIND_THREAD) == 0;
  hwloc_bitmap_free(set);
  return ok;
}

std::vector<int> allowed_cpus() {
  hwloc_topology_t t = machine_topology();
  std::vector<int> out;
  hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(t);
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  // The process's own mask (taskset, cgroups) narrows what hwloc allows.
  if (hwloc_get_cpubind(t, bound, HWLOC_CPUBIND_PROCESS) != 0) hwloc_bitmap_copy(bound, allowed);
  hwloc_bitmap_and(bound, bound, allowed);
  int i;
  hwloc_bitmap_foreach_begin(i, bound) { out.push_back(i); }
  hwloc_bitmap_foreach_end();
  hwloc_bitmap_free(bound);
  return out;
}

}  // namespace bobbin::ult
