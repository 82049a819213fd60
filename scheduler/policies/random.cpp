// random: a uniformly random other list each time. No memory, no locality.
#include "scheduler/policies/policies.hpp"

namespace bobbin::sched {

class RandomPolicy final : public StealPolicy {
 public:
  int next_victim(int self, const ListLoad&) override {
    return random_other(rng_[self % kMaxThieves], own_list(self), num_lists());
  }
  void record(int, int, bool) override {}
  const char* name() const override { return "random"; }

 private:
  PerThief<Rng> rng_{seeded_rng};
};

std::unique_ptr<StealPolicy> make_random() { return std::make_unique<RandomPolicy>(); }

}  // namespace bobbin::sched
