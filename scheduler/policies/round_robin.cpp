// round-robin: each thief walks the other lists in index order, resuming
// where it left off. Fair and deterministic; no locality.
#include "scheduler/policies/policies.hpp"

namespace bobbin::sched {

class RoundRobinPolicy final : public StealPolicy {
 public:
  int next_victim(int self, const ListLoad&) override {
    int n = num_lists(), own = own_list(self);
    if (n <= 1) return 0;
    int& c = cursor_[self % kMaxThieves];
    c = (c + 1) % n;
    if (c == own) c = (c + 1) % n;
    return c;
  }
  void record(int, int, bool) override {}
  const char* name() const override { return "round-robin"; }

 private:
  PerThief<int> cursor_;
};

std::unique_ptr<StealPolicy> make_round_robin() { return std::make_unique<RoundRobinPolicy>(); }

}  // namespace bobbin::sched
