// The table of steal policies, and where the task lists sit on the tree.
// Adding a policy: one file in policies/ and one row here.
#include <cstdlib>
#include <algorithm>
#include <map>
#include <string>

#include "config.hpp"
#include "scheduler/policies/policies.hpp"
#include "scheduler/steal_policy.hpp"
#include "ult/log.hpp"

namespace bobbin::sched {

// A constant array, never destroyed (as the schedulers' table).
std::span<const PolicyRow> policy_rows() {
  static constexpr PolicyRow rows[] = {
      {"hybrid", "recent successful victims alternated with random ones (default)", &make_hybrid},
      {"random", "a uniformly random list", &make_random},
      {"hierarchical", "nearest lists first, up the topology tree", &make_hierarchical},
      {"round-robin", "every other list in turn", &make_round_robin},
      {"random-order", "every other list once per round, in random order", &make_random_order},
      {"producer", "the most loaded list", &make_producer},
      {"producer-order", "lists from most to least loaded", &make_producer_order},
  };
  return rows;
}

std::unique_ptr<StealPolicy> make_policy(const std::string& name) {
  for (const PolicyRow& r : policy_rows())
    if (name == r.name) return r.make();
  return nullptr;
}

std::unique_ptr<StealPolicy> make_policy_from_env() {
  const char* v = getenv("BOBBIN_STEAL");
  if (v) {  // set but empty: a bad value too, warned about as libomp does
    if (auto p = make_policy(v)) return p;
    std::string valid;
    for (const PolicyRow& r : policy_rows()) valid += std::string(valid.empty() ? "" : ", ") + r.name;
    warn("ignoring BOBBIN_STEAL='%s' (valid: %s); using %s", v, valid.c_str(), BOBBIN_DEFAULT_STEAL);
  }
  return make_policy(BOBBIN_DEFAULT_STEAL);
}

Level meeting_level(const Placement& p, int from, int to) {
  std::size_t n = p.list_nodes.size();
  if (from < 0 || to < 0 || std::size_t(from) >= n || std::size_t(to) >= n) return Level::Machine;
  return common_ancestor(*p.list_nodes[std::size_t(from)], *p.list_nodes[std::size_t(to)]).level;
}

Placement make_placement(const Topology& topo, Level level) {
  Placement p;
  p.level = level;
  std::map<const TopoNode*, int> index;
  std::vector<const TopoNode*> nodes;
  for (int i = 0; i < topo.num_pus(); ++i) {
    const TopoNode* n = level == Level::PU ? &topo.pu(i) : &topo.ancestor_at(i, level);
    auto it = index.find(n);
    if (it == index.end()) {
      it = index.emplace(n, int(nodes.size())).first;
      nodes.push_back(n);
    }
    p.list_of_pu.push_back(it->second);
  }
  p.num_lists = int(nodes.size());
  p.list_nodes = nodes;
  // Worker k runs on core k (one place per core): its first PU, in tree order.
  int pu = 0;
  for (const auto& place : topo.core_places()) {
    p.first_pu_of_worker_core.push_back(pu < topo.num_pus() ? pu : topo.num_pus() - 1);
    pu += int(place.size());
  }
  if (p.first_pu_of_worker_core.empty()) p.first_pu_of_worker_core.push_back(0);
  {
    std::vector<const TopoNode*> doms = topo.domains(Level::Numa);
    for (int first : p.first_pu_of_worker_core) {
      const TopoNode* n = &topo.ancestor_at(first, Level::Numa);
      p.numa_of_worker_core.push_back(int(std::find(doms.begin(), doms.end(), n) - doms.begin()));
    }
  }
  const auto& numas = topo.nodes(Level::Numa);
  if (numas.size() > 1) {
    for (const TopoNode* nn : numas) p.list_of_numa.push_back(p.list_of_pu[std::size_t(nn->first_pu)]);
  }
  p.nearest.resize(nodes.size());
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    std::vector<int>& order = p.nearest[a];
    for (std::size_t b = 0; b < nodes.size(); ++b)
      if (b != a) order.push_back(int(b));
    // Deeper common ancestor first; among equals, the next indices after a
    // first, so that neighbours do not all pick the same victim.
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      int dx = common_ancestor(*nodes[a], *nodes[std::size_t(x)]).depth;
      int dy = common_ancestor(*nodes[a], *nodes[std::size_t(y)]).depth;
      if (dx != dy) return dx > dy;
      int n = int(nodes.size());
      return (x - int(a) + n) % n < (y - int(a) + n) % n;
    });
  }
  return p;
}

}  // namespace bobbin::sched
