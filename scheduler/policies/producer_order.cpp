// producer-order: visit the other lists from most to least loaded, ranking
// them afresh at the start of each round (MPC's "producer order").
#include <algorithm>

#include "scheduler/policies/policies.hpp"

namespace bobbin::sched {

class ProducerOrderPolicy final : public StealPolicy {
 public:
  int next_victim(int self, const ListLoad& load) override {
    State& s = state_[self % kMaxThieves];
    int n = num_lists(), own = own_list(self);
    if (n <= 1) return 0;
    if (s.pos >= s.order.size()) {
      s.order.clear();
      for (int i = 0; i < n; ++i)
        if (i != own) s.order.push_back(i);
      // Read each size once: sizes change under our feet, and a comparator
      // whose answers change is undefined behaviour for any sort.
      std::vector<std::size_t> sizes(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) sizes[std::size_t(i)] = load(i);
      std::stable_sort(s.order.begin(), s.order.end(),
                       [&](int a, int b) { return sizes[std::size_t(a)] > sizes[std::size_t(b)]; });
      s.pos = 0;
    }
    return s.order[s.pos++];
  }
  void record(int self, int, bool found) override {
    if (found) state_[self % kMaxThieves].pos = std::size_t(-1);  // re-rank on the next attempt
  }
  const char* name() const override { return "producer-order"; }

 private:
  struct State {
    std::vector<int> order;
    std::size_t pos = 0;
  };
  PerThief<State> state_;
};

std::unique_ptr<StealPolicy> make_producer_order() { return std::make_unique<ProducerOrderPolicy>(); }

}  // namespace bobbin::sched
