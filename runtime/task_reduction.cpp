// Task reductions whose private copies the runtime makes: task_reduction on
// a taskgroup, and the task modifier of reduction clauses on parallel and
// worksharing constructs (reduction(task, op: x)), as clang lowers them.
//
// Copies. Each item of a reduction has one private copy per thread of the
// team, in one array (cache-line strided), initialised by its thread on first
// use (Storage). A task with in_reduction asks for its copy by naming the
// variable as its creator saw it (`shar`), or by an address inside any
// thread's copy (a task with in_reduction that creates another passes its own
// copy), and gets the copy of the thread executing it: two threads never
// update one copy, and a thread's tasks run one at a time on its fiber.
//
// Scopes. A taskgroup with task_reduction owns its storage; its end combines
// the copies into the variables. reduction(task, ...) is a team-wide scope:
// every thread of the team opens a taskgroup at the construct's start with
// its own items, whose `shar` is that thread's private copy of the variable
// (the construct's ordinary reduction combines those afterwards), and tasks
// created by any thread contribute. So:
//   - the first thread to arrive makes the storage and the others get the
//     same one (single_share: one descriptor per construct, agreed on by the
//     construct's sequence number, so that a thread that runs ahead past a
//     nowait construct into the next one never mixes the two up);
//   - each thread's taskgroup gets its own view (Reduction: its own `shar`s,
//     the shared storage), so lookups by `shar` match the creator's variable;
//   - each thread's construct end waits for the tasks of its own taskgroup,
//     then drops its hold on the storage; the last to drop it combines every
//     copy into its own `shar` and frees the storage.
// Invariant R: when the last hold is dropped, every task that could touch the
// copies has completed (each was created in some thread's taskgroup, each of
// those ended), and the acq_rel chain on `holds` orders their writes before
// the combine. No barrier is needed at either end, so the construct keeps
// its nowait: the thread that combines is whichever ends last, and it
// combines before its own part of the construct's reduction.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/api.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"
#include "ult/log.hpp"

namespace bobbin::rt {

namespace {

struct Copies {
  std::size_t stride = 0;  // bytes between two threads' copies (cache-line rounded)
  char* base = nullptr;
  std::unique_ptr<Atomic<uint8_t>[]> ready;  // per thread: copy initialised
  bool holds(const void* p, int nthreads) const {
    auto* c = static_cast<const char*>(p);
    return c >= base && c < base + stride * std::size_t(nthreads);
  }
};

// The copies of one reduction, shared by the taskgroups bound to it.
struct Storage {
  int nthreads = 0;
  std::vector<Copies> items;  // written by the maker before any other thread sees the storage
  Atomic<int> holds{1};       // taskgroups bound to it that have not ended
};

// One taskgroup's view: the items as its tasks name them.
struct Reduction {
  Storage* storage;
  std::vector<TaskRedItem> items;
  bool into_shar;  // combine into `shar` (a scope: the thread's private copy), else into `orig`
};

Storage* make_storage(const TaskRedItem* items, int n, int nthreads, int holds) {
  auto* s = new Storage;
  s->nthreads = nthreads;
  s->holds.store(holds, memory_order_relaxed);  // published with the storage (single_share, or this thread)
  s->items.resize(std::size_t(n));
  for (int i = 0; i < n; ++i) {
    Copies& c = s->items[std::size_t(i)];
    c.stride = (items[i].size + kCacheLine - 1) / kCacheLine * kCacheLine;
    if (c.stride == 0) c.stride = kCacheLine;
    c.base = static_cast<char*>(aligned_alloc(kCacheLine, c.stride * std::size_t(nthreads)));
    if (!c.base) fatal("out of memory allocating task reduction copies");
    c.ready.reset(new Atomic<uint8_t>[std::size_t(nthreads)]());
  }
  return s;
}

void* copy_of(const TaskRedItem& spec, Copies& c, int tid) {
  char* p = c.base + std::size_t(tid) * c.stride;
  // Only thread `tid` initialises its own copy, so a plain check suffices;
  // acquire/release only order it with the combine at the end.
  if (!c.ready[std::size_t(tid)].load(memory_order_acquire)) {
    if (spec.init_with_orig) spec.init_with_orig(p, spec.orig ? spec.orig : spec.shar);
    else if (spec.init) spec.init(p);
    else memset(p, 0, spec.size);
    c.ready[std::size_t(tid)].store(1, memory_order_release);
  }
  return p;
}

TaskGroup* bind(Thread* th, Storage* s, const TaskRedItem* items, int n, bool into_shar) {
  TaskGroup* g = th->current_task->running_group;
  if (!g) fatal("task_reduction outside a taskgroup");
  g->reduction = new Reduction{s, std::vector<TaskRedItem>(items, items + n), into_shar};
  return g;
}

}  // namespace

void* task_reduction_init(const TaskRedItem* items, int n) {
  Thread* th = current_thread_fast();
  return bind(th, make_storage(items, n, th->team->nthreads, 1), items, n, false);
}

void* task_reduction_scope_begin(const TaskRedItem* items, int n) {
  Thread* th = current_thread_fast();
  taskgroup_begin();
  struct Make {
    const TaskRedItem* items;
    int n, nthreads;
  } make{items, n, th->team->nthreads};
  auto* s = static_cast<Storage*>(single_share(
      [](void* ctx) -> void* {
        auto* m = static_cast<Make*>(ctx);
        return make_storage(m->items, m->n, m->nthreads, m->nthreads);  // one hold per thread
      },
      &make));
  if (std::size_t(n) != s->items.size()) {
    fatal("reduction(task, ...): a thread names %d items, the team's first thread named %zu", n, s->items.size());
  }
  return bind(th, s, items, n, true);
}

void task_reduction_scope_end() { taskgroup_end(); }

void* task_reduction_data(void* group, void* shared) {
  Thread* th = current_thread_fast();
  // A named group is where the search starts: the creator's taskgroup (its
  // enclosing ones are alive while it is).
  TaskGroup* g = group ? static_cast<TaskGroup*>(group) : th->current_task->running_group;
  for (; g; g = g->outer) {
    auto* r = static_cast<Reduction*>(g->reduction);
    if (!r) continue;
    Storage* s = r->storage;
    for (std::size_t i = 0; i < r->items.size(); ++i) {
      if (r->items[i].shar == shared || s->items[i].holds(shared, s->nthreads)) {
        return copy_of(r->items[i], s->items[i], th->tid % s->nthreads);
      }
    }
  }
  fatal("in_reduction on a variable no enclosing taskgroup reduces");
}

void taskgroup_finish_reductions(Thread*, TaskGroup* g) {
  auto* r = static_cast<Reduction*>(g->reduction);
  if (!r) return;
  g->reduction = nullptr;
  Storage* s = r->storage;
  // Invariant R. acq_rel: the last hold sees every other group's tasks' writes.
  if (s->holds.fetch_sub(1, memory_order_acq_rel) == 1) {
    for (std::size_t i = 0; i < s->items.size(); ++i) {
      const TaskRedItem& spec = r->items[i];
      Copies& c = s->items[i];
      void* target = r->into_shar || !spec.orig ? spec.shar : spec.orig;
      for (int t = 0; t < s->nthreads; ++t) {
        if (!c.ready[std::size_t(t)].load(memory_order_acquire)) continue;
        void* p = c.base + std::size_t(t) * c.stride;
        spec.comb(target, p);
        if (spec.fini) spec.fini(p);
      }
      free(c.base);
    }
    delete s;
  }
  delete r;
}

}  // namespace bobbin::rt
