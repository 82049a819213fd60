// GOMP_* tasking entry points: task, taskwait, taskyield, taskgroup,
// taskloop, and task reductions. A gcc task is a function plus a data block
// the runtime copies (rt::ClosureTask); dependences come as one of two
// depend-array layouts and task reductions as chained descriptors, both
// translated by the classes at the end (declared in gomp_types.hpp).
#include <algorithm>
#include <type_traits>

#include "abi/gomp_types.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi::gomp;

// gcc 4.4 passed the first seven arguments; 4.9 added depend, 6 priority, 11
// detach, all under the same symbol: each is read only when its flag is set.
BOBBIN_EXPORT void GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                             long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
                             void* detach) {
  BOBBIN_OMPT_ENTRY;
  rt::ClosureTask t;
  t.fn = fn;
  t.data = data;
  t.copy = cpyfn;
  t.size = arg_size > 0 ? std::size_t(arg_size) : 0;
  t.align = arg_align > 0 ? std::size_t(arg_align) : 1;
  t.if_clause = if_clause;
  t.tied = !(flags & kTaskUntied);
  t.final_ = (flags & kTaskFinal) != 0;
  t.priority = (flags & kTaskPriority) ? priority : 0;
  if (flags & kTaskDetach) {
    // The event goes to the detach variable and to the first word of the
    // block, where gcc put the task's firstprivate copy of it.
    t.event_slots[0] = static_cast<void**>(detach);
    t.event_slots[1] = static_cast<void**>(data);
  }
  if (!(flags & kTaskDepend)) {
    rt::task_closure(t);  // the common case, without Depends' inline table to set up
    return;
  }
  Depends deps(depend);
  t.deps = deps.items();
  t.ndeps = deps.size();
  rt::task_closure(t);
}

BOBBIN_EXPORT void GOMP_taskwait(void) {
  BOBBIN_OMPT_ENTRY;
  rt::taskwait();
}
BOBBIN_EXPORT void GOMP_taskwait_depend(void** depend) {
  Depends deps(depend);
  rt::task_wait_deps(deps.items(), deps.size());
}
BOBBIN_EXPORT void GOMP_taskyield(void) {
  BOBBIN_OMPT_ENTRY;
  rt::taskyield();
}
BOBBIN_EXPORT void GOMP_taskgroup_start(void) {
  BOBBIN_OMPT_ENTRY;
  rt::taskgroup_begin();
}
BOBBIN_EXPORT void GOMP_taskgroup_end(void) {
  BOBBIN_OMPT_ENTRY;
  rt::taskgroup_end_bound();
}

namespace {

// Each task's copy of `data` starts with its own [start, end).
template <class T>
void taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size, long arg_align,
              unsigned flags, unsigned long num_tasks, int priority, T start, T end, T step) {
  rt::ClosureTaskloop l;
  l.task.fn = fn;
  l.task.data = data;
  l.task.copy = cpyfn;
  l.task.size = arg_size > 0 ? std::size_t(arg_size) : 0;
  l.task.align = arg_align > 0 ? std::size_t(arg_align) : 1;
  l.task.if_clause = (flags & kTaskIf) != 0;
  l.task.tied = !(flags & kTaskUntied);
  l.task.final_ = (flags & kTaskFinal) != 0;
  l.task.priority = priority;
  l.start = int64_t(start);
  l.end = int64_t(end);
  l.step = int64_t(step);
  l.is_unsigned = std::is_unsigned_v<T>;
  l.up = std::is_unsigned_v<T> ? (flags & kTaskUp) != 0 : int64_t(step) > 0;
  l.sched = (flags & kTaskGrainsize) ? 1 : num_tasks ? 2 : 0;
  l.grain = num_tasks;
  l.strict = (flags & kTaskStrict) != 0;
  l.nogroup = (flags & kTaskNogroup) != 0;
  bool reduce = (flags & kTaskReduction) && !l.nogroup;
  Reductions red(reduce ? static_cast<TaskloopReductionHead<T>*>(data)->reductions : nullptr);
  l.reductions = red.blocks();
  l.nreductions = red.size();
  rt::taskloop_closure(l);
  // A null storage tells the compiler nothing was registered (an empty loop).
  if (reduce) red.write_back(l.reductions_handle);
}

}  // namespace

BOBBIN_EXPORT void GOMP_taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                                 long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start,
                                 long end, long step) {
  taskloop<long>(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
}
BOBBIN_EXPORT void GOMP_taskloop_ull(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                                     long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                                     ull start, ull end, ull step) {
  taskloop<ull>(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
}

// ---- task reductions ------------------------------------------------------------------

BOBBIN_EXPORT void GOMP_taskgroup_reduction_register(uintptr_t* data) {
  Reductions red(data);
  red.write_back(rt::reductions_register(red.blocks(), red.size()));
}
BOBBIN_EXPORT void GOMP_taskgroup_reduction_unregister(uintptr_t* data) {
  rt::reductions_unregister(reinterpret_cast<void*>(data[kRedHandle]));
}
// ptrs[0..cnt): addresses to replace by this thread's copies; for i < cntorig
// the original's address goes to ptrs[cnt + i].
BOBBIN_EXPORT void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void** ptrs) {
  rt::reductions_remap(ptrs, cnt, ptrs + cnt, cntorig);
}
BOBBIN_EXPORT void GOMP_workshare_task_reduction_unregister(bool cancelled) {
  rt::workshare_reductions_end(cancelled);
}

// ---- translations (gomp_types.hpp) ------------------------------------------------------

namespace bobbin::abi::gomp {

Depends::Depends(void** depend) {
  if (!depend) return;
  std::size_t total, nout, nmutex = 0, nin, first;
  if (uintptr_t(depend[0]) != 0) {
    total = uintptr_t(depend[0]);
    nout = uintptr_t(depend[1]);
    nin = total - nout;
    first = 2;
  } else {
    total = uintptr_t(depend[1]);
    nout = uintptr_t(depend[2]);
    nmutex = uintptr_t(depend[3]);
    nin = uintptr_t(depend[4]);
    first = 5;
  }
  // The total rules: a depend clause with an iterator of no iterations
  // comes with a total of 0 and per-kind counts that are not (gcc 12,
  // depend(iterator(j=0:i), out: p[j]) with i = -1: {0, 0, 1, ...});
  // libgomp sizes the task's dependences by the total.
  if (total == 0) return;
  if (total > sizeof inline_ / sizeof inline_[0]) {
    more_.resize(total);
    items_ = more_.data();
  }
  std::size_t plain = std::min(nout + nmutex + nin, total);
  for (std::size_t i = 0; i < plain; ++i) {
    uint8_t kind = i < nout ? rt::kDepInout : i < nout + nmutex ? rt::kDepMutexInoutset : rt::kDepIn;
    add(depend[first + i], kind);
  }
  for (std::size_t i = plain; i < total; ++i) {  // omp_depend_t objects: {address, kind}
    auto* obj = static_cast<void**>(depend[first + i]);
    switch (uintptr_t(obj[1])) {
      case kDependIn: add(obj[0], rt::kDepIn); break;
      case kDependOut: add(obj[0], rt::kDepOut); break;
      case kDependInout: add(obj[0], rt::kDepInout); break;
      case kDependMutexinoutset: add(obj[0], rt::kDepMutexInoutset); break;
      case kDependInoutset: add(obj[0], rt::kDepInoutset); break;
      default: rt::unsupported("this dependence kind in a depend object");
    }
  }
}

void Depends::add(const void* addr, uint8_t kind) {
  // A null out or inout address is omp_all_memory (gcc 12's encoding).
  if (!addr && kind != rt::kDepIn) kind = rt::kDepAllMemory;
  items_[n_++] = rt::DepItem{uintptr_t(addr), kind};
}

Reductions::Reductions(uintptr_t* data) : head_(data) {
  for (uintptr_t* d = data; d; d = reinterpret_cast<uintptr_t*>(d[kRedNext])) descriptors_.push_back(d);
  items_.resize(descriptors_.size());
  blocks_.resize(descriptors_.size());
  for (std::size_t i = 0; i < descriptors_.size(); ++i) {
    uintptr_t* d = descriptors_[i];
    std::size_t count = d[kRedCount];
    items_[i].resize(count);
    for (std::size_t j = 0; j < count; ++j) {
      const uintptr_t* item = d + kRedItems + j * kRedItemWords;
      items_[i][j] = rt::BlockReductionItem{item[0], std::size_t(item[1])};
    }
    rt::ReductionBlock& b = blocks_[i];
    b.per_thread = d[kRedSize];
    b.align = d[kRedAlign];
    b.items = items_[i].data();
    b.nitems = int(count);
    b.publish = d + kRedAlign;  // threads and tasks read the storage from there, at once
  }
}

void Reductions::write_back(void* handle) {
  for (std::size_t i = 0; i < descriptors_.size(); ++i) descriptors_[i][kRedAlign] = uintptr_t(blocks_[i].storage);
  if (head_) head_[kRedHandle] = uintptr_t(handle);
}

}  // namespace bobbin::abi::gomp
