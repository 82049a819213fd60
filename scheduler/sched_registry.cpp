// The table of task schedulers (BOBBIN_SCHED). Adding one: a class behind
// task_sched.hpp's interface and one row here.
#include "scheduler/task_sched.hpp"

namespace bobbin::sched {

// A constant array, never destroyed: threads still running when exit()
// runs the static destructors keep making teams' schedulers from its rows.
std::span<const SchedRow> scheduler_rows() {
  static constexpr SchedRow rows[] = {
      {"steal", "a list per leaf; idle threads steal by the BOBBIN_STEAL policy (default)", &make_steal_scheduler},
      {"tree", "a tree of lists shaped like the machine; overflow moves up, idle leaves ask up (BOBBIN_TREE_THRESHOLD)",
       &make_tree_scheduler},
  };
  return rows;
}

const SchedRow* find_scheduler(const std::string& name) {
  for (const SchedRow& r : scheduler_rows())
    if (name == r.name) return &r;
  return nullptr;
}

}  // namespace bobbin::sched
