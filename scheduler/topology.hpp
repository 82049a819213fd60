// The machine as a tree, for the scheduler: hwloc's view collapsed to the
// levels that branch (MPC-style). Task lists hang on its nodes; victim
// policies walk it. See topology.cpp for the collapse rules.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bobbin::sched {

// Ordered from the root down. Levels with no hwloc counterpart on a machine
// simply do not appear.
enum class Level : unsigned char { Machine, Package, Numa, L3, L2, L1, Core, PU };
inline constexpr int kNumLevels = int(Level::PU) + 1;
const char* level_name(Level l);
// Parses "pu", "core", "l3", "numa", "machine" (and "package", "l2", "l1"); false if unknown.
bool parse_level(const std::string& s, Level* out);

struct TopoNode {
  Level level;
  int index;                 // logical index among the tree's nodes of this level
  int depth;                 // 0 at the root
  TopoNode* parent;          // null at the root
  std::vector<TopoNode*> children;
  int first_pu, end_pu;      // the PUs below, as a range of leaf indices [first_pu, end_pu)
  int os_index;              // PU only: the real OS processor it runs on (-1 elsewhere)
};

// Their lowest common ancestor (the deepest node above both; `a` itself if
// they are the same node).
const TopoNode& common_ancestor(const TopoNode& a, const TopoNode& b);
class Topology;
// How near each core is to each other core (cores in tree order, as
// Topology::domains(Level::Core)): the depth of their common ancestor, row
// by row (n x n for n cores).
std::vector<uint8_t> core_nearness(const Topology& topo);

class Topology {
 public:
  // The topology the runtime uses: BOBBIN_TOPOLOGY (an hwloc synthetic
  // description, e.g. "pack:2 numa:2 l3:2 core:4 pu:2") if set and valid,
  // else the real machine restricted to the processors this process may use.
  // A bad BOBBIN_TOPOLOGY warns (naming the variable and value) and falls back.
  static std::unique_ptr<Topology> discover();
  // A synthetic machine; its PUs map round-robin onto `real_cpus` (OS indices).
  // Returns null (and sets *error) if hwloc rejects the description.
  static std::unique_ptr<Topology> synthetic(const std::string& desc, const std::vector<int>& real_cpus,
                                             std::string* error = nullptr);
  // The real machine, restricted to `allowed` OS processors (all if empty).
  static std::unique_ptr<Topology> machine(const std::vector<int>& allowed = {});

  ~Topology();
  const TopoNode& root() const { return *root_; }
  bool is_synthetic() const { return synthetic_; }
  const std::string& description() const { return description_; }

  int num_pus() const { return int(pus_.size()); }
  const TopoNode& pu(int i) const { return *pus_[size_t(i)]; }
  // Nodes of one level in tree order (empty if the level was collapsed away or absent).
  const std::vector<TopoNode*>& nodes(Level l) const { return by_level_[size_t(l)]; }
  // The node that stands for PU i's level-`l` domain: where a worker on that
  // PU finds its task list for BOBBIN_TASKLIST=l. If the machine has a
  // level-`l` node above PU i, the result covers exactly its PUs: the node
  // itself, or, if the collapse removed it, the surviving node with the same
  // PUs (so its `level` may differ from `l`: on a machine with one PU per
  // core, ancestor_at(i, Core) is PU i). If the machine has no level-`l`
  // node above PU i, the deepest ancestor of a level above `l`.
  const TopoNode& ancestor_at(int pu, Level l) const;
  // The distinct nodes ancestor_at(., l) returns, in tree order: one per
  // task list when BOBBIN_TASKLIST=l.
  std::vector<const TopoNode*> domains(Level l) const;
  // The levels present after collapse, root first.
  std::vector<Level> levels() const;

  // Default places: one per core, each the OS processors of the core's PUs.
  // Place k lists one entry per PU of core k, in tree order (a synthetic
  // machine larger than the real one may repeat an OS processor), so the
  // places' sizes add up to num_pus(). A PU with no core above it is a place
  // of its own.
  std::vector<std::vector<int>> core_places() const;
  // A multi-line drawing of the tree, for bobbin-info and OMP_DISPLAY_ENV=verbose.
  std::string to_string() const;

 private:
  Topology() = default;
  std::vector<std::unique_ptr<TopoNode>> storage_;
  TopoNode* root_ = nullptr;
  std::vector<TopoNode*> pus_;
  std::vector<TopoNode*> by_level_[kNumLevels];
  // at_level_[l][i] == &ancestor_at(i, l), precomputed while the full tree
  // still exists (the collapse forgets which removed node a PU was under).
  std::vector<const TopoNode*> at_level_[kNumLevels];
  std::vector<std::vector<int>> core_places_;
  bool synthetic_ = false;
  std::string description_;
  friend struct TopologyBuilder;
};

}  // namespace bobbin::sched
