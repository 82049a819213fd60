// producer: steal from the most loaded list (MPC's "producer" policy): the
// list with most tasks is most likely to have a producer that keeps making
// them. Reads every list's size, so it suits few lists.
#include "scheduler/policies/policies.hpp"

namespace bobbin::sched {

class ProducerPolicy final : public StealPolicy {
 public:
  int next_victim(int self, const ListLoad& load) override {
    int n = num_lists(), own = own_list(self), best = -1;
    std::size_t most = 0;
    for (int i = 0; i < n; ++i) {
      if (i == own) continue;
      std::size_t s = load(i);
      if (best < 0 || s > most) {
        best = i;
        most = s;
      }
    }
    return best < 0 ? own : best;
  }
  void record(int, int, bool) override {}
  const char* name() const override { return "producer"; }
};

std::unique_ptr<StealPolicy> make_producer() { return std::make_unique<ProducerPolicy>(); }

}  // namespace bobbin::sched
