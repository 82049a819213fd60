// Task dependences: one domain per parent task, keyed by address.
//
// Only the thread executing the parent creates the parent's children, so the
// domain's table is touched by one thread at a time and needs no lock: there
// is no global lock on the hot path, only the per-task lock of a predecessor
// while an edge is added to it.
//
// Per address the table keeps the current group of accesses and the group
// before it. A group is either one writer (out, inout, mutexinoutset) or a
// set of tasks of one reader kind (in, or inoutset): readers of the same kind
// run concurrently; a different kind, or a writer, starts a new group that
// depends on every member of the current one. mutexinoutset is treated as
// inout: the tasks of a mutexinoutset set then run one after another in
// creation order, which is one of the executions the spec allows (mutual
// exclusion holds; only concurrency the spec permits is given up).
//
// Edges: adding pred -> succ locks pred's node; if pred is already done the
// edge is skipped. succ starts with one extra predecessor while it is being
// registered, so it cannot start before all its edges exist.
//
// depend(omp_all_memory) (a writer of every location): such a task A
// depends on the current group of every address and on the previous such
// task; then the table is emptied (its groups all precede A) and A becomes
// the domain's `all`, on which every later task with a dependence depends,
// and every taskwait with a dependence waits. Later tasks need no edge to
// what A followed: A's completion implies it.
//
// Memory: table entries hold a memory reference on the tasks they name
// (Task::refs), dropped when a group is replaced, when the parent's taskwait
// finds every child complete, when the parent completes, and (for implicit
// tasks) at each barrier; so finished tasks and their records are reclaimed
// while the program runs. These references never delay completion counting.
#include <algorithm>
#include <unordered_map>

#include "runtime/help.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"

namespace bobbin::rt {

namespace {

enum Kind : uint8_t { kWriter, kReader, kSetReader };

Kind kind_of(uint8_t k) {
  if (k & (kDepOut | kDepMutexInoutset)) return kWriter;
  if (k & kDepInoutset) return kSetReader;
  return kReader;
}

struct Entry {
  Kind kind = kWriter;
  std::vector<Task*> members;  // the current group (each holds an alive reference)
  std::vector<Task*> prev;     // the group before it (likewise)
};

}  // namespace

struct DepDomain {
  std::unordered_map<uintptr_t, Entry> map;
  Task* all = nullptr;  // the last omp_all_memory task (holds an alive reference)
};

namespace {

void add_edge(Task* pred, Task* succ) {
  DepNode* p = pred->deps;
  if (!p || p->done.load(memory_order_acquire)) return;
  SpinGuard g(p->lock);
  if (p->done.load(memory_order_relaxed)) return;
  succ->deps->npred.fetch_add(1, memory_order_relaxed);
  p->succ.push_back(succ);
  if (ompt::on()) [[unlikely]] ompt::task_dependence(pred, succ);
}


void release_all(std::vector<Task*>& v) {
  for (Task* t : v) release_task_ref(t);
  v.clear();
}

// Merges repeated addresses of one task into the strongest kind.
int merge_items(const DepItem* items, int n, std::vector<DepItem>& out) {
  out.assign(items, items + n);
  std::sort(out.begin(), out.end(), [](const DepItem& a, const DepItem& b) { return a.addr < b.addr; });
  std::size_t w = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (w > 0 && out[w - 1].addr == out[i].addr) {
      if (kind_of(out[i].kind) == kWriter || kind_of(out[w - 1].kind) != kind_of(out[i].kind)) out[w - 1].kind = kDepInout;
    } else {
      out[w++] = out[i];
    }
  }
  out.resize(w);
  return int(w);
}

}  // namespace

static bool all_memory(const DepItem* items, int n) {
  for (int i = 0; i < n; ++i)
    if (items[i].kind & kDepAllMemory) return true;
  return false;
}

// The address named by the first writing clause, else by the first reading
// one (DepNode::data).
static uintptr_t declared_data(const DepItem* items, int n) {
  for (int i = 0; i < n; ++i)
    if (items[i].kind != kDepIn && !(items[i].kind & kDepAllMemory)) return items[i].addr;
  for (int i = 0; i < n; ++i)
    if (!(items[i].kind & kDepAllMemory)) return items[i].addr;
  return 0;
}

bool deps_register(Task* parent, Task* t, const DepItem* items, int n) {
  t->deps = new DepNode;
  t->deps->data = declared_data(items, n);
  t->deps->npred.store(1, memory_order_relaxed);  // the registration guard
  if (!parent->domain) parent->domain = new DepDomain;
  DepDomain* d = parent->domain;
  if (d->all) add_edge(d->all, t);
  if (all_memory(items, n)) {
    for (auto& [addr, e] : d->map) {
      for (Task* m : e.members) add_edge(m, t);
      release_all(e.members);
      release_all(e.prev);
    }
    d->map.clear();
    if (d->all) release_task_ref(d->all);
    hold_task(t);
    d->all = t;
    return t->deps->npred.fetch_sub(1, memory_order_acq_rel) == 1;
  }
  std::vector<DepItem> merged;
  n = merge_items(items, n, merged);
  for (int i = 0; i < n; ++i) {
    Entry& e = parent->domain->map[merged[std::size_t(i)].addr];
    Kind k = kind_of(merged[std::size_t(i)].kind);
    if (e.members.empty()) {
      e.kind = k;
    } else if (k != kWriter && e.kind == k) {
      for (Task* p : e.prev) add_edge(p, t);  // join the readers: same predecessors
    } else {
      for (Task* m : e.members) add_edge(m, t);
      release_all(e.prev);
      e.prev.swap(e.members);
      e.kind = k;
    }
    hold_task(t);
    e.members.push_back(t);
  }
  // acq_rel: the last predecessor to finish may be releasing concurrently.
  return t->deps->npred.fetch_sub(1, memory_order_acq_rel) == 1;
}

void deps_release(Thread* th, Task* t) {
  std::vector<Task*> succ;
  {
    SpinGuard g(t->deps->lock);
    t->deps->done.store(true, memory_order_release);  // pairs with the acquire in add_edge / deps_wait
    succ.swap(t->deps->succ);
  }
  for (Task* s : succ) {
    if (s->deps->npred.fetch_sub(1, memory_order_acq_rel) != 1) continue;
    // The immediate successor (task.cpp, execute_maybe_traced): the first
    // one made ready, unless a priority orders it among others.
    if (th && th->successor_slot && !*th->successor_slot && s->priority == 0 && s->team == th->team) {
      *th->successor_slot = s;
      continue;
    }
    task_schedule_ready(th, s, false);
  }
}

void deps_clear_domain(Task* owner) {
  DepDomain* d = owner->domain;
  owner->domain = nullptr;
  for (auto& [addr, e] : d->map) {
    release_all(e.members);
    release_all(e.prev);
  }
  if (d->all) release_task_ref(d->all);
  delete d;
}

void deps_wait(Thread* th, const DepItem* items, int n) {
  Task* cur = th->current_task;
  if (!cur->domain) return;
  std::vector<Task*> waits;
  auto wait_for = [&](Task* t) {
    hold_task(t);
    waits.push_back(t);
  };
  if (cur->domain->all) wait_for(cur->domain->all);
  if (all_memory(items, n)) {
    for (auto& [addr, e] : cur->domain->map)
      for (Task* t : e.members) wait_for(t);
    n = 0;
  }
  for (int i = 0; i < n; ++i) {
    auto it = cur->domain->map.find(items[i].addr);
    if (it == cur->domain->map.end()) continue;
    Entry& e = it->second;
    Kind k = kind_of(items[i].kind);
    const std::vector<Task*>& on = (k != kWriter && e.kind == k) ? e.prev : e.members;
    for (Task* t : on) wait_for(t);
  }
  help_until(th, [&] {
    for (Task* t : waits)
      if (t->deps && !t->deps->done.load(memory_order_acquire)) return false;
    return true;
  });
  for (Task* t : waits) release_task_ref(t);
}

}  // namespace bobbin::rt
