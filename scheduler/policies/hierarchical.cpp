// hierarchical: nearest lists first, moving up the tree (siblings under the
// same cache, then the same NUMA node, then the package, then the machine),
// so stolen work stays close to the data its producer touched. After a
// success the thief starts again from the nearest.
#include "scheduler/policies/policies.hpp"

namespace bobbin::sched {

class HierarchicalPolicy final : public StealPolicy {
 public:
  int next_victim(int self, const ListLoad&) override {
    int own = own_list(self);
    const std::vector<int>& order = placement_->nearest[std::size_t(own)];
    if (order.empty()) return own;
    int& pos = pos_[self % kMaxThieves];
    if (pos >= int(order.size())) pos = 0;
    return order[std::size_t(pos++)];
  }
  void record(int self, int, bool found) override {
    if (found) pos_[self % kMaxThieves] = 0;
  }
  const char* name() const override { return "hierarchical"; }

 private:
  PerThief<int> pos_;
};

std::unique_ptr<StealPolicy> make_hierarchical() { return std::make_unique<HierarchicalPolicy>(); }

}  // namespace bobbin::sched
