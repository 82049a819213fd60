// Victim selection: where an idle worker looks for tasks. A policy only picks
// victims; task_list.hpp owns push and pop, and gang.cpp (later) decides
// which fibers a worker may run.
//
// Lists are numbered 0..num_lists-1: one per node of the topology tree at the
// BOBBIN_TASKLIST level. A thief is a worker id. Each policy keeps its own
// per-thief state, touched only by that thief (no synchronisation).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scheduler/topology.hpp"

namespace bobbin::sched {

// Where workers and task lists sit on the tree.
struct Placement {
  int num_lists = 1;
  std::vector<int> list_of_pu;     // tree PU index -> list index
  std::vector<int> first_pu_of_worker_core;  // core k -> its first PU (tree order)
  std::vector<int> list_of_numa;   // NUMA node (logical index) -> first list under it; empty if one node
  std::vector<int> numa_of_worker_core;  // core k -> its NUMA domain (0.. number of domains - 1)
  // Lists ordered by tree distance from each list (nearest first, itself excluded).
  std::vector<std::vector<int>> nearest;
  std::vector<const TopoNode*> list_nodes;  // list -> the tree node it hangs on (the topology is never freed)
  Level level = Level::PU;
  int list_of_worker(int worker) const {
    if (first_pu_of_worker_core.empty()) return 0;
    int pu = first_pu_of_worker_core[std::size_t(worker) % first_pu_of_worker_core.size()];
    return list_of_pu[std::size_t(pu)];
  }
};

// Reads how many tasks list i holds now (for the producer policies).
struct ListLoad {
  std::size_t (*size)(const void* ctx, int list);
  const void* ctx;
  std::size_t operator()(int list) const { return size(ctx, list); }
};

class StealPolicy {
 public:
  virtual ~StealPolicy() = default;
  virtual void attach(const Placement& p) { placement_ = &p; }
  // The list thief `self` should try next (never its own list when there are others).
  virtual int next_victim(int self, const ListLoad& load) = 0;
  // What happened when `self` tried `victim`.
  virtual void record(int self, int victim, bool found_work) = 0;
  virtual const char* name() const = 0;

  static constexpr int kMaxThieves = 4096;  // ult::Worker::kMaxWorkers; thieves beyond wrap

 protected:
  const Placement* placement_ = nullptr;
  int own_list(int self) const { return placement_->list_of_worker(self); }
  int num_lists() const { return placement_->num_lists; }
};

// Per-thief xorshift64* generator (Vigna's constants); good enough to spread victims.
struct Rng {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
  int below(int n) { return n <= 1 ? 0 : int(next() % uint64_t(n)); }
};

// A random list other than `own` (own itself when it is the only one).
inline int random_other(Rng& rng, int own, int n) {
  if (n <= 1) return 0;
  int v = rng.below(n - 1);
  return v >= own ? v + 1 : v;
}

// Registry: name -> factory (policy_registry.cpp). One row per policy.
struct PolicyRow {
  const char* name;
  const char* description;
  std::unique_ptr<StealPolicy> (*make)();
};
std::span<const PolicyRow> policy_rows();
// The policy BOBBIN_STEAL names (warns and uses the default if unknown).
std::unique_ptr<StealPolicy> make_policy_from_env();
std::unique_ptr<StealPolicy> make_policy(const std::string& name);  // null if unknown
// The level of the smallest tree node above both lists: how far a thief on
// list `from` reaches to steal from list `to` (Machine when unknown).
Level meeting_level(const Placement& p, int from, int to);
// Builds the placement of lists at `level` (BOBBIN_TASKLIST) on `topo`.
Placement make_placement(const Topology& topo, Level level);

}  // namespace bobbin::sched
