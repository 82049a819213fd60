// Queries about the current task that only some entry points ask: explicit or
// implicit, its completion event, and the ids libomp reports for tasks.
#include "runtime/api.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"

namespace bobbin::rt {

bool in_explicit_task() {
  Task* t = current_thread_fast()->current_task;
  return t && !t->implicit;
}

void* task_event(void* payload) { return task_from_payload(payload); }

// libomp's release builds give every task the id ~0 (its ids are numbered
// only in debug builds); the initial task has no parent, reported as 0.
// Programs compare these ids with what libomp gives, so Bobbin gives the same.
uint64_t current_task_id() { return ~uint64_t(0); }
uint64_t parent_task_id() {
  Task* t = current_thread_fast()->current_task;
  bool initial = t && t->implicit && level() == 0;
  return initial ? 0 : ~uint64_t(0);
}

}  // namespace bobbin::rt
