// The tree scheduler (BOBBIN_SCHED=tree): a tree of task lists shaped like
// the machine, after Nanos6's. Leaves are the lists at the BOBBIN_TASKLIST
// level; inner nodes are the topology nodes above them where the tree
// branches; the root is the machine. No thread steals from another's leaf
// while work can be had on its path to the root:
//
// - Overflow upward: a leaf keeps at most `threshold` items; the push that
//   exceeds it moves the oldest half of the leaf to its parent, which gives
//   the batch to a leaf that is idle below it, else keeps it (up to
//   threshold x its leaves) and passes its own oldest half on, up to the
//   root, which keeps everything.
// - Dynamic threshold: 0 at first (every item is spread at once); doubled
//   (0 becomes 2) whenever a batch reaches the root, halved whenever an
//   idle leaf asks the root, so that the producers keep about as much as
//   the consumers can take. BOBBIN_TREE_THRESHOLD fixes it instead.
// - Asking up: a leaf with nothing takes from its parent, then its
//   grandparent, ..., a share of what that node holds (its items divided by
//   its leaves, at most threshold + 1); the first is run, the rest queued on
//   the leaf. Finding nothing up to the root, the leaf marks itself idle
//   (for overflow to find it) and, as a last resort, takes one item from
//   the other lists nearest first: items under a busy leaf's threshold must
//   not wait for that leaf's thread, which may be waiting for them.
//
// scheduler/README.md argues the invariants (task_sched.hpp lists them).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "scheduler/task_list.hpp"
#include "scheduler/task_sched.hpp"

namespace bobbin::sched {

class TreeScheduler final : public TaskScheduler {
 public:
  // `threshold` < 0: dynamic.
  TreeScheduler(const Placement& p, int threshold);

  void push(int leaf, void* item) override;
  void push_pinned(int leaf, void* item) override;
  void* pop_own(int leaf, const Filter& f) override;
  Found find(int leaf, int thief, const Filter& f, const Probe& probe) override;
  // The leaf's items and those of the nodes on its path to the root: what
  // its thread could still get. The runtime's throttle compares this with
  // 256 (kThrottle); the leaf alone never reaches it (it overflows first),
  // so a program creating millions of tasks would queue them all at the root.
  std::size_t queued(int leaf) const override;
  bool any_queued() const override;

  // For tests and the trace.
  std::size_t threshold() const { return threshold_.load(memory_order_relaxed); }
  int num_nodes() const { return int(nodes_.size()); }
  int num_leaves() const { return leaves_; }
  int root() const { return root_; }
  int parent_of(int n) const { return node(n).parent; }
  std::size_t queued_at_node(int n) const { return node(n).list.size(); }
  bool leaf_idle(int leaf) const { return node(leaf).idle.load(memory_order_relaxed) != 0; }
  uint64_t raises() const { return raises_.load(memory_order_relaxed); }
  uint64_t lowers() const { return lowers_.load(memory_order_relaxed); }

  // The most a leaf keeps: the runtime runs new tasks at their creation from
  // 256 queued on (task.cpp, kThrottle), so a higher threshold would never be reached.
  static constexpr std::size_t kMaxThreshold = 256;
  // The most items one overflow or one ask moves (a bound on the stack buffer).
  static constexpr std::size_t kBatch = 64;

 private:
  struct Node {
    TaskList list;
    int parent = -1;
    int nleaves = 0;             // leaves in its subtree (1 for a leaf)
    std::vector<int> children;   // inner nodes only
    Atomic<int> idle{0};         // leaves: 1 while marked idle
    Atomic<int> idle_below{0};   // inner nodes: leaves marked idle under it (a hint)
  };
  Node& node(int i) { return *nodes_[std::size_t(i)]; }
  const Node& node(int i) const { return *nodes_[std::size_t(i)]; }
  void offer(int at, void** batch, std::size_t k);
  int claim_idle_leaf(int at);
  void set_idle(int leaf);
  bool clear_idle(int leaf);  // true if it was marked
  void raise();
  void lower();
  void* take(int at, int leaf, const Filter& f);
  void* scan(int at, const Filter& f);  // constrained: see tree_sched.cpp

  std::vector<std::unique_ptr<Node>> nodes_;  // leaves first (index = list), then inner nodes
  const Placement* placement_;
  int leaves_ = 0;
  int root_ = 0;
  bool dynamic_;
  Atomic<std::size_t> threshold_{0};
  Atomic<uint64_t> raises_{0}, lowers_{0};
};

}  // namespace bobbin::sched
