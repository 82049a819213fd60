// taskloop: the loop's iterations split into chunks, each a copy of the
// pattern task the compiler built, with its own bounds.
#include <algorithm>
#include <cstring>

#include "runtime/api.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"

namespace bobbin::rt {

namespace {
// Tasks per thread when the loop names neither grainsize nor num_tasks: enough
// chunks for stealing to balance uneven iterations (libomp uses the same order
// of magnitude); a guess.
constexpr uint64_t kDefaultTasksPerThread = 10;
}  // namespace

void taskloop(const TaskloopSpec& s) {
  Thread* th = current_thread_fast();
  char* pat = static_cast<char*>(s.pattern);
  Task* pattern = task_from_payload(s.pattern);
  uint64_t lb, ub;
  memcpy(&lb, pat + s.lb_offset, sizeof lb);
  memcpy(&ub, pat + s.ub_offset, sizeof ub);
  int64_t st = s.stride ? s.stride : 1;
  uint64_t trip;
  if (st > 0) trip = int64_t(ub) < int64_t(lb) ? 0 : (ub - lb) / uint64_t(st) + 1;
  else trip = int64_t(lb) < int64_t(ub) ? 0 : (lb - ub) / uint64_t(-st) + 1;

  uint64_t ntasks;
  uint64_t grain = 0;  // strict grainsize: exact chunk length
  switch (s.sched) {
    case 1:  // grainsize
      if (s.strict) {
        grain = std::max<uint64_t>(s.grain, 1);
        ntasks = (trip + grain - 1) / grain;
      } else {
        ntasks = std::max<uint64_t>(1, trip / std::max<uint64_t>(s.grain, 1));
      }
      break;
    case 2:  // num_tasks
      ntasks = std::max<uint64_t>(1, s.grain);
      break;
    default:
      ntasks = uint64_t(th->team->nthreads) * kDefaultTasksPerThread;
  }
  ntasks = std::min(ntasks, trip);

  TaskSpec spec{pattern->run, pattern->cleanup, pattern->tied, pattern->final_, pattern->priority};
  std::size_t size = pattern->payload_size;
  if (!s.nogroup) taskgroup_begin();
  bool tool = ompt::on();
  const void* ra = tool ? ompt::return_address() : nullptr;
  if (tool) [[unlikely]] ompt::work(ompt_work_taskloop, ompt_scope_begin, th, trip, ra);
  uint64_t begin = 0;
  for (uint64_t i = 0; i < ntasks; ++i) {
    uint64_t len = grain ? std::min(grain, trip - begin) : trip / ntasks + (i < trip % ntasks ? 1 : 0);
    uint64_t end = begin + len;
    void* copy = task_alloc(spec, size);
    s.copy(copy, s.pattern, end == trip, s.ctx);
    uint64_t clb = lb + begin * uint64_t(st), cub = lb + (end - 1) * uint64_t(st);
    memcpy(static_cast<char*>(copy) + s.lb_offset, &clb, sizeof clb);
    memcpy(static_cast<char*>(copy) + s.ub_offset, &cub, sizeof cub);
    if (s.if_clause) {
      task_submit(copy, nullptr, 0);
    } else {
      task_begin_undeferred(copy);
      task_from_payload(copy)->run(copy, th->gtid);
      task_end_undeferred(copy);  // runs the cleanup
    }
    begin = end;
  }
  if (tool) [[unlikely]] ompt::work(ompt_work_taskloop, ompt_scope_end, th, trip, ra);
  if (!s.nogroup) taskgroup_end();
  // The pattern never ran and was never counted: destroy what the compiler
  // constructed in it (its firstprivate copies), then give its memory back.
  if (pattern->cleanup) pattern->cleanup(s.pattern, th->gtid);
  uint8_t cls = pattern->size_class;
  pattern->~Task();
  task_memory_free(pattern, cls);
}

}  // namespace bobbin::rt
