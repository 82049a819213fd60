// ICVs of explicit tasks.
//
// The spec gives each task its own data environment, and with it its own
// copy of the data-environment ICVs (nthreads-var, dyn-var, run-sched-var,
// def-allocator-var, default-device-var, ...; spec 5.2 section 2.1): an
// omp_set_num_threads in a task changes that task's value, not the value of
// the implicit task it was created in, and the change ends with the task
// (libgomp's icv-1 test: a task(if(0)) sets 5 and its creator still sees 6).
//
// The ICVs live in the thread (Thread::icv), where every query reads them.
// Copying them in and out around every task would cost each task two copies
// that nearly no task needs; instead a setter called in an explicit task
// first saves the thread's ICVs, once per task, on the thread's stack
// (Thread::icv_saves), and when the task's routine returns on that thread
// they are put back. Tasks nest on a thread's stack (a task run at a
// scheduling point of another returns before it), so the stack's top, when
// it is not the task that is ending, belongs to an enclosing one.
//
// Limits: a deferred task starts with the ICVs of the thread that runs it,
// which equal its creator's unless the creator changed them; an untied
// task's changes last until its current part returns.
#include <utility>

#include "runtime/task.hpp"
#include "runtime/team.hpp"

namespace bobbin::rt {

Icvs& writable_icvs(Thread* th) {
  Task* t = th->current_task;
  if (t && !t->implicit && (th->icv_saves.empty() || th->icv_saves.back().first != t))
    th->icv_saves.emplace_back(t, th->icv);
  return th->icv;
}

void task_end_icvs(Thread* th, Task* t) {
  if (th->icv_saves.empty() || th->icv_saves.back().first != t) return;
  th->icv = th->icv_saves.back().second;
  th->icv_saves.pop_back();
}

}  // namespace bobbin::rt
