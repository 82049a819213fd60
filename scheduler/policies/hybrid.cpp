// hybrid (the default): alternate between recently successful victims and
// random ones.
//
// Why: always returning to the last good victim drains one producer's task
// tree before touching the next (sibling subtrees run one after another);
// pure random finds work slowly when few lists have any. A short history
// window interleaved with random probes gets both: after a success the
// thief moves to the next slot (empty, so the next attempt is random); after
// a failure it steps back to the most recent successful victim, forgetting
// the one that failed.
//
// State per thief: kWindow slots of list ids (-1 = empty) and a cursor.
#include "scheduler/policies/policies.hpp"

namespace bobbin::sched {

class HybridPolicy final : public StealPolicy {
 public:
  // 4 slots: a guess; enough to remember a couple of producers on 2..16 lists.
  static constexpr int kWindow = 4;

  int next_victim(int self, const ListLoad&) override {
    State& s = state_[self % kMaxThieves];
    int own = own_list(self);
    int v = s.slot[s.cursor];
    if (v < 0 || v == own || v >= num_lists()) return random_other(s.rng, own, num_lists());
    return v;
  }

  void record(int self, int victim, bool found) override {
    State& s = state_[self % kMaxThieves];
    if (found) {
      s.slot[s.cursor] = victim;
      s.cursor = (s.cursor + 1) % kWindow;
      s.slot[s.cursor] = -1;  // the next attempt is a random one
    } else {
      s.slot[s.cursor] = -1;
      s.cursor = (s.cursor + kWindow - 1) % kWindow;
    }
  }

  const char* name() const override { return "hybrid"; }

 private:
  struct State {
    int slot[kWindow] = {-1, -1, -1, -1};
    int cursor = 0;
    Rng rng;
  };
  PerThief<State> state_{[](std::size_t i) {
    State s;
    s.rng = seeded_rng(i);
    return s;
  }};
};

std::unique_ptr<StealPolicy> make_hybrid() { return std::make_unique<HybridPolicy>(); }

}  // namespace bobbin::sched
