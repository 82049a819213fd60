#include "scheduler/tree_sched.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace bobbin::sched {

TreeScheduler::TreeScheduler(const Placement& p, int threshold) : placement_(&p), dynamic_(threshold < 0) {
  threshold_.store(threshold < 0 ? 0 : std::min<std::size_t>(std::size_t(threshold), kMaxThreshold), memory_order_relaxed);
  leaves_ = std::max(p.num_lists, 1);
  for (int i = 0; i < leaves_; ++i) {
    nodes_.push_back(std::make_unique<Node>());
    nodes_.back()->nleaves = 1;
  }
  root_ = 0;
  if (leaves_ == 1 || p.list_nodes.size() != std::size_t(leaves_)) return;  // one list: it is the root
  // An inner node for each topology node where two leaves' paths meet
  // (a chain of single-child nodes adds nothing but a hop).
  std::map<const TopoNode*, std::set<const TopoNode*>> below;
  for (const TopoNode* leaf : p.list_nodes)
    for (const TopoNode* c = leaf; c->parent; c = c->parent) below[c->parent].insert(c);
  std::map<const TopoNode*, int> index;
  std::vector<const TopoNode*> inner;
  for (const auto& [n, kids] : below)
    if (kids.size() >= 2) {
      index.emplace(n, int(nodes_.size()));
      inner.push_back(n);
      nodes_.push_back(std::make_unique<Node>());
    }
  auto nearest = [&](const TopoNode* c) {
    for (const TopoNode* a = c->parent; a; a = a->parent)
      if (auto it = index.find(a); it != index.end()) return it->second;
    return -1;
  };
  for (int i = 0; i < leaves_; ++i) node(i).parent = nearest(p.list_nodes[std::size_t(i)]);
  for (const TopoNode* n : inner) node(index[n]).parent = nearest(n);
  for (int i = 0; i < num_nodes(); ++i) {
    if (node(i).parent < 0) root_ = i;  // exactly one: where every leaf's path meets
    else node(node(i).parent).children.push_back(i);
  }
  for (int i = 0; i < leaves_; ++i)
    for (int a = node(i).parent; a >= 0; a = node(a).parent) ++node(a).nleaves;
}

void TreeScheduler::push(int leaf, void* item) {
  Node& n = node(leaf);
  clear_idle(leaf);  // a thread that makes work is not idle
  n.list.push_bottom(item);
  if (n.parent < 0 || n.list.size() <= threshold_.load(memory_order_relaxed)) return;
  void* batch[kBatch];
  std::size_t k = n.list.take_top(batch, kBatch, TaskList::kHalf);
  if (k) offer(n.parent, batch, k);
}

void TreeScheduler::push_pinned(int leaf, void* item) { node(leaf).list.push_bottom(item); }

// A batch arriving at node `at` from below.
void TreeScheduler::offer(int at, void** batch, std::size_t k) {
  for (;;) {
    Node& n = node(at);
    if (n.idle_below.load(memory_order_relaxed) > 0) {
      int leaf = claim_idle_leaf(at);
      if (leaf >= 0) {
        for (std::size_t i = 0; i < k; ++i) node(leaf).list.push_bottom(batch[i]);
        return;
      }
    }
    for (std::size_t i = 0; i < k; ++i) n.list.push_bottom(batch[i]);
    if (n.parent < 0) {
      raise();
      return;
    }
    if (n.list.size() <= threshold_.load(memory_order_relaxed) * std::size_t(n.nleaves)) return;
    k = n.list.take_top(batch, kBatch, TaskList::kHalf);
    if (!k) return;
    at = n.parent;
  }
}

// Down from `at` to a leaf marked idle, which it unmarks; -1 if none is
// (the marks are hints: another batch may have taken it first).
int TreeScheduler::claim_idle_leaf(int at) {
  while (at >= leaves_) {
    int next = -1;
    for (int c : node(at).children) {
      bool idle = c < leaves_ ? node(c).idle.load(memory_order_relaxed) != 0 : node(c).idle_below.load(memory_order_relaxed) > 0;
      if (idle) {
        next = c;
        break;
      }
    }
    if (next < 0) return -1;
    at = next;
  }
  return clear_idle(at) ? at : -1;
}

// The marks and the counts above them: relaxed, hints for where overflow
// goes; the items themselves move under the lists' locks.
void TreeScheduler::set_idle(int leaf) {
  if (node(leaf).idle.exchange(1, memory_order_relaxed) != 0) return;
  for (int a = node(leaf).parent; a >= 0; a = node(a).parent) node(a).idle_below.fetch_add(1, memory_order_relaxed);
}

bool TreeScheduler::clear_idle(int leaf) {
  Node& n = node(leaf);
  if (n.idle.load(memory_order_relaxed) == 0 || n.idle.exchange(0, memory_order_relaxed) == 0) return false;
  for (int a = n.parent; a >= 0; a = node(a).parent) node(a).idle_below.fetch_sub(1, memory_order_relaxed);
  return true;
}

// relaxed: the threshold is a heuristic; a lost update only delays a change.
void TreeScheduler::raise() {
  if (!dynamic_) return;
  std::size_t t = threshold_.load(memory_order_relaxed);
  std::size_t up = t == 0 ? 2 : std::min(2 * t, kMaxThreshold);
  if (up != t && threshold_.compare_exchange_strong(t, up, memory_order_relaxed)) raises_.fetch_add(1, memory_order_relaxed);
}

void TreeScheduler::lower() {
  if (!dynamic_) return;
  std::size_t t = threshold_.load(memory_order_relaxed);
  if (t != 0 && threshold_.compare_exchange_strong(t, t / 2, memory_order_relaxed)) lowers_.fetch_add(1, memory_order_relaxed);
}

void* TreeScheduler::pop_own(int leaf, const Filter& f) {
  TaskList& l = node(leaf).list;
  return f.any() ? l.pop_bottom() : scan(leaf, f);
}

// A constrained pop: the whole list, newest first; after this thread's
// last scan of it found nothing, only what was pushed since, and nothing
// while nothing was (BOTS uts: waits rescanning the same items took most of
// the time).
void* TreeScheduler::scan(int at, const Filter& f) {
  TaskList& l = node(at).list;
  if (!f.memo) return l.pop_bottom_if(f);
  uint64_t since = f.memo->since(at), seen;
  if (since && l.pushes() == since) return nullptr;  // a stale count only delays a look
  void* item = l.pop_bottom_if_since(f, since, &seen);
  if (!item) f.memo->found_nothing(at, seen);
  return item;
}

// One item from node `at` for a thread on `leaf`; unconstrained, a share of
// the node's items comes along onto the leaf.
void* TreeScheduler::take(int at, int leaf, const Filter& f) {
  TaskList& l = node(at).list;
  if (l.size() == 0) return nullptr;
  // Constrained (a tied task's wait): the whole list, newest first. The
  // waiting task's children may have overflowed up here behind many other
  // items, and no other thread need come for them (each may be in such a
  // wait itself): the stealing scheduler's bounded scan would hang here.
  if (!f.any()) return scan(at, f);
  if (at < leaves_) return l.pop_top();  // another leaf: one, as a thief would
  std::size_t share = std::clamp<std::size_t>(l.size() / std::size_t(node(at).nleaves), 1, threshold() + 1);
  void* batch[kBatch];
  std::size_t k = l.take_top(batch, kBatch, share);
  for (std::size_t i = 1; i < k; ++i) node(leaf).list.push_bottom(batch[i]);
  return k ? batch[0] : nullptr;
}

Found TreeScheduler::find(int leaf, int thief, const Filter& f, const Probe& probe) {
  (void)thief;
  // A constrained ask (a tied task waiting for its descendants) is not an
  // idle leaf: it neither lowers the threshold nor marks the leaf for
  // overflow, which would spread the waiting task's own children up the
  // tree and hand the leaf batches its thread may not run (BOTS uts).
  bool idle = f.any();
  for (int at = node(leaf).parent; at >= 0; at = node(at).parent) {
    probe(at);
    if (at == root_ && idle) lower();
    if (void* item = take(at, leaf, f)) {
      clear_idle(leaf);
      return {item, at};
    }
  }
  if (idle) set_idle(leaf);
  // The last resort: the other leaves nearest first, then the inner nodes
  // off this leaf's path.
  auto try_at = [&](int at) -> void* {
    probe(at);
    return take(at, leaf, f);
  };
  if (std::size_t(leaf) < placement_->nearest.size())
    for (int other : placement_->nearest[std::size_t(leaf)])
      if (void* item = try_at(other)) {
        clear_idle(leaf);
        return {item, other};
      }
  for (int at = leaves_; at < num_nodes(); ++at)
    if (void* item = try_at(at)) {
      clear_idle(leaf);
      return {item, at};
    }
  return {};
}

std::size_t TreeScheduler::queued(int leaf) const {
  std::size_t n = 0;
  for (int at = leaf; at >= 0; at = node(at).parent) n += node(at).list.size();
  return n;
}

bool TreeScheduler::any_queued() const {
  for (const auto& n : nodes_)
    if (n->list.size()) return true;
  return false;
}

std::unique_ptr<TaskScheduler> make_tree_scheduler(const SchedContext& c) {
  return std::make_unique<TreeScheduler>(*c.placement, c.tree_threshold);
}

}  // namespace bobbin::sched
