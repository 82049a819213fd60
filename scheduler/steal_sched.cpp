// The stealing scheduler (BOBBIN_SCHED=steal, the default): one list per
// leaf; a thread pushes to and pops from its own (LIFO), and when it is
// empty takes from the top (FIFO) of the lists its victim policy names.
#include <vector>

#include "scheduler/task_sched.hpp"
#include "scheduler/task_list.hpp"

namespace bobbin::sched {

namespace {

// How many items a constrained steal looks at from a victim's top before it
// moves on: a tied task's wait runs only its descendants, which are rarely
// deep in another thread's list. A guess (8); the caller loops.
constexpr int kConstrainedScan = 8;

class StealScheduler final : public TaskScheduler {
 public:
  explicit StealScheduler(const SchedContext& c)
      : lists_(std::size_t(c.placement->num_lists)), policy_(c.policy), half_(c.steal_half) {}

  void push(int leaf, void* item) override { lists_[std::size_t(leaf)].push_bottom(item); }
  void push_pinned(int leaf, void* item) override { push(leaf, item); }
  void* pop_own(int leaf, const Filter& f) override {
    TaskList& l = lists_[std::size_t(leaf)];
    return f.any() ? l.pop_bottom() : l.pop_bottom_if(f);
  }
  Found find(int leaf, int thief, const Filter& f, const Probe& probe) override;
  std::size_t queued(int leaf) const override { return lists_[std::size_t(leaf)].size(); }
  bool any_queued() const override {
    for (const TaskList& l : lists_)
      if (l.size()) return true;
    return false;
  }

 private:
  std::vector<TaskList> lists_;
  StealPolicy* policy_;
  bool half_;
};

Found StealScheduler::find(int own, int thief, const Filter& f, const Probe& probe) {
  int n = int(lists_.size());
  if (n <= 1) return {};
  ListLoad load{[](const void* ctx, int i) { return static_cast<const StealScheduler*>(ctx)->lists_[std::size_t(i)].size(); },
                this};
  // One sweep's worth of attempts per scheduling point; the caller loops.
  for (int attempt = 0; attempt < n - 1; ++attempt) {
    int v = policy_->next_victim(thief, load);
    if (v == own || v < 0 || v >= n) continue;
    TaskList& victim = lists_[std::size_t(v)];
    void* item = nullptr;
    if (victim.size() != 0) {
      if (!f.any()) {
        int scanned = 0;
        item = victim.pop_top_if([&](void* p) { return scanned++ < kConstrainedScan && f(p); });
      } else if (half_) {
        std::vector<void*> got;
        if (victim.steal_half(got)) {
          item = got.front();
          for (std::size_t i = 1; i < got.size(); ++i) lists_[std::size_t(own)].push_bottom(got[i]);
        }
      } else {
        item = victim.pop_top();
      }
    }
    policy_->record(thief, v, item != nullptr);
    probe(v);
    if (item) return {item, v};
  }
  return {};
}

}  // namespace

std::unique_ptr<TaskScheduler> make_steal_scheduler(const SchedContext& c) { return std::make_unique<StealScheduler>(c); }

}  // namespace bobbin::sched
