// Task reductions (task_reduction / in_reduction on taskgroup): each thread
// of the team gets a private copy of each item on first use; the taskgroup's
// end combines the copies into the original variables.
#include <cstdlib>
#include <cstring>
#include <memory>

#include "runtime/api.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"
#include "ult/log.hpp"

namespace bobbin::rt {

namespace {

struct Item {
  TaskRedItem spec;
  std::size_t stride;  // bytes between two threads' copies (cache-line rounded)
  char* copies = nullptr;
  std::unique_ptr<Atomic<uint8_t>[]> ready;  // per thread: copy initialised
};

struct Reduction {
  int nthreads = 0;
  std::vector<Item> items;
};

void* copy_of(Item& it, int tid) {
  char* p = it.copies + std::size_t(tid) * it.stride;
  // Only thread `tid` initialises its own copy, so a plain check suffices;
  // acquire/release only order it with the combine at the taskgroup's end.
  if (!it.ready[std::size_t(tid)].load(memory_order_acquire)) {
    if (it.spec.init_with_orig) it.spec.init_with_orig(p, it.spec.orig ? it.spec.orig : it.spec.shar);
    else if (it.spec.init) it.spec.init(p);
    else memset(p, 0, it.spec.size);
    it.ready[std::size_t(tid)].store(1, memory_order_release);
  }
  return p;
}

}  // namespace

void* task_reduction_init(const TaskRedItem* items, int n) {
  Thread* th = current_thread_fast();
  TaskGroup* g = th->current_task->running_group;
  if (!g) fatal("task_reduction outside a taskgroup");
  auto* r = new Reduction;
  r->nthreads = th->team->nthreads;
  r->items.resize(std::size_t(n));
  for (int i = 0; i < n; ++i) {
    Item& it = r->items[std::size_t(i)];
    it.spec = items[i];
    it.stride = (it.spec.size + kCacheLine - 1) / kCacheLine * kCacheLine;
    if (it.stride == 0) it.stride = kCacheLine;
    it.copies = static_cast<char*>(aligned_alloc(kCacheLine, it.stride * std::size_t(r->nthreads)));
    if (!it.copies) fatal("out of memory allocating task reduction copies");
    it.ready.reset(new Atomic<uint8_t>[std::size_t(r->nthreads)]());
  }
  g->reduction = r;
  return g;
}

void* task_reduction_data(void* group, void* shared) {
  Thread* th = current_thread_fast();
  TaskGroup* g = group ? static_cast<TaskGroup*>(group) : th->current_task->running_group;
  for (; g; g = g->outer) {
    auto* r = static_cast<Reduction*>(g->reduction);
    if (!r) continue;
    for (Item& it : r->items) {
      if (it.spec.shar == shared) return copy_of(it, th->tid % r->nthreads);
      // A private copy (a task with in_reduction that creates another passes
      // its own copy): the calling thread's copy of the same item, as for the
      // original, so two threads never update one copy.
      char* c = static_cast<char*>(shared);
      if (c >= it.copies && c < it.copies + it.stride * std::size_t(r->nthreads)) return copy_of(it, th->tid % r->nthreads);
    }
    if (group) break;
  }
  fatal("in_reduction on a variable no enclosing taskgroup reduces");
}

void taskgroup_finish_reductions(Thread*, TaskGroup* g) {
  auto* r = static_cast<Reduction*>(g->reduction);
  if (!r) return;
  for (Item& it : r->items) {
    void* target = it.spec.orig ? it.spec.orig : it.spec.shar;
    for (int t = 0; t < r->nthreads; ++t) {
      if (!it.ready[std::size_t(t)].load(memory_order_acquire)) continue;
      void* c = it.copies + std::size_t(t) * it.stride;
      it.spec.comb(target, c);
      if (it.spec.fini) it.spec.fini(c);
    }
    free(it.copies);
  }
  delete r;
  g->reduction = nullptr;
}

}  // namespace bobbin::rt
