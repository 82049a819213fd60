// random-order: each thief visits every other list once per round, in a
// random order drawn afresh each round: random, but never the same victim
// twice before the others were tried.
#include <utility>

#include "scheduler/policies/policies.hpp"

namespace bobbin::sched {

class RandomOrderPolicy final : public StealPolicy {
 public:
  int next_victim(int self, const ListLoad&) override {
    State& s = state_[self % kMaxThieves];
    int n = num_lists(), own = own_list(self);
    if (n <= 1) return 0;
    if (s.pos >= s.order.size()) {
      s.order.clear();
      for (int i = 0; i < n; ++i)
        if (i != own) s.order.push_back(i);
      for (std::size_t i = s.order.size(); i > 1; --i) std::swap(s.order[i - 1], s.order[std::size_t(s.rng.below(int(i)))]);
      s.pos = 0;
    }
    return s.order[s.pos++];
  }
  void record(int, int, bool) override {}
  const char* name() const override { return "random-order"; }

 private:
  struct State {
    std::vector<int> order;
    std::size_t pos = 0;
    Rng rng;
  };
  PerThief<State> state_{[](std::size_t i) {
    State s;
    s.rng.s = 0xD1B54A32D192ED03ull * (i + 1) | 1;
    return s;
  }};
};

std::unique_ptr<StealPolicy> make_random_order() { return std::make_unique<RandomOrderPolicy>(); }

}  // namespace bobbin::sched
