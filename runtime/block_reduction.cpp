// Task reductions on storage the compiler lays out itself (gcc's
// task_reduction / in_reduction, reduction(task, ...) on parallel and
// worksharing constructs, taskloop reduction).
//
// The problem. gcc does most of such a reduction itself: it initialises each
// private copy lazily (with a flag it keeps inside the copy), and after the
// taskgroup it combines the copies of every thread by walking one contiguous
// array in which thread i's copies start at base + i * per_thread. The
// runtime allocates that array zero-filled, says where it is, and maps a
// variable's address to the calling thread's copy from inside tasks. (The
// runtime's own task reductions, task_reduction.cpp, allocate, initialise and
// combine per item; they cannot produce this layout.)
//
// Visibility. A registration belongs to the taskgroup that was innermost when
// it was made; it is seen by the task that made it until that taskgroup ends,
// and by every task created inside it. Rejected designs: a field on TaskGroup
// (task.hpp belongs to the tasking layer, whose reductions already use
// TaskGroup::reduction), and a global map keyed by TaskGroup* (a group's
// address is reused as soon as it is freed, and every lookup from every
// worker would share one lock). Chosen:
//   - the registering task pushes a binding {record, owner task, taskgroup,
//     outer binding} on a per-worker stack. A task runs on one fiber, and a
//     fiber never changes worker, so the owner's lookups always find its own
//     bindings on that stack, without a lock; bindings of other fibers of
//     the same worker interleave and are skipped by owner;
//   - a closure task (task_closure.cpp) captures, when it is created, the
//     binding its creator sees, and looks there when it has none of its own.
// Invariant V: a binding is popped (and freed) when its taskgroup ends, and a
// taskgroup's end waits for every task created in it, so no running task
// holds a captured pointer to a popped binding. Records outlive their
// bindings: the compiler releases them (reductions_unregister) only after the
// taskgroup ended and it combined the copies; worksharing constructs count
// one reference per thread of the team.
#include "runtime/block_reduction.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/api.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"
#include "ult/log.hpp"

namespace bobbin::rt {

struct BlockRecord {
  struct Block {
    char* storage = nullptr;
    std::size_t per_thread = 0;
    int nthreads = 0;
    std::vector<BlockReductionItem> by_addr;    // lookups by original variable
    std::vector<BlockReductionItem> by_offset;  // lookups by position in a copy
  };
  std::vector<Block> blocks;  // written by the creator before any thread can see the record
  Atomic<int> refs{1};
};

namespace {

struct ReductionBinding {
  const BlockRecord* rec;
  const ReductionBinding* outer;  // what the owner saw before this binding
  const Task* owner;
  const TaskGroup* group;
};

// This worker's bindings, innermost last (see "Visibility" above). Only
// fibers of this worker touch it, one at a time.
// initial-exec: one %fs-relative access instead of a __tls_get_addr call per use.
thread_local std::vector<ReductionBinding*> t_bindings __attribute__((tls_model("initial-exec")));

// Bindings alive in the process. While it is 0 no task can see a task
// reduction (a capture points to a live binding), so the common case skips
// the thread-local lookups. Relaxed: a binding a task may see was made by the
// task or an ancestor, which happens-before the task's creation.
Atomic<int> g_live_bindings{0};

const ReductionBinding* own_binding(const Task* cur) {
  for (auto it = t_bindings.rbegin(); it != t_bindings.rend(); ++it)
    if ((*it)->owner == cur) return *it;
  return nullptr;
}

// Finds `p` (an original variable, or an address inside any thread's copies)
// in one block; on success stores thread `tid`'s copy and the original.
bool find_in(const BlockRecord::Block& b, uintptr_t p, int tid, void** copy, uintptr_t* orig) {
  uintptr_t base = uintptr_t(b.storage);
  uintptr_t mine = base + uintptr_t(tid) * b.per_thread;
  auto it = std::lower_bound(b.by_addr.begin(), b.by_addr.end(), p,
                             [](const BlockReductionItem& item, uintptr_t a) { return item.addr < a; });
  if (it != b.by_addr.end() && it->addr == p) {
    *copy = reinterpret_cast<void*>(mine + it->offset);
    *orig = it->addr;
    return true;
  }
  if (b.per_thread == 0 || p < base || p >= base + b.per_thread * std::size_t(b.nthreads)) return false;
  std::size_t off = (p - base) % b.per_thread;
  *copy = reinterpret_cast<void*>(mine + off);
  auto at = std::lower_bound(b.by_offset.begin(), b.by_offset.end(), off,
                             [](const BlockReductionItem& item, std::size_t o) { return item.offset < o; });
  *orig = at != b.by_offset.end() && at->offset == off ? at->addr : 0;
  return true;
}

}  // namespace

BlockRecord* reductions_create(ReductionBlock* blocks, int n, int nthreads, int refs) {
  auto* rec = new BlockRecord;
  rec->refs.store(refs, memory_order_relaxed);  // published by the caller's handoff (team_once, or the same thread)
  rec->blocks.resize(std::size_t(n > 0 ? n : 0));
  for (int i = 0; i < n; ++i) {
    ReductionBlock& in = blocks[i];
    BlockRecord::Block& b = rec->blocks[std::size_t(i)];
    std::size_t align = std::max(in.align, alignof(std::max_align_t));
    if (align & (align - 1)) fatal("task reduction storage with alignment %zu (not a power of two)", in.align);
    std::size_t bytes = in.per_thread * std::size_t(nthreads);
    bytes = bytes ? (bytes + align - 1) / align * align : align;
    b.storage = static_cast<char*>(aligned_alloc(align, bytes));
    if (!b.storage) fatal("out of memory allocating %zu bytes of task reduction copies", bytes);
    memset(b.storage, 0, bytes);
    b.per_thread = in.per_thread;
    b.nthreads = nthreads;
    b.by_offset.assign(in.items, in.items + (in.nitems > 0 ? in.nitems : 0));
    b.by_addr = b.by_offset;
    std::sort(b.by_addr.begin(), b.by_addr.end(),
              [](const BlockReductionItem& x, const BlockReductionItem& y) { return x.addr < y.addr; });
    in.storage = b.storage;
    if (in.publish) *in.publish = uintptr_t(b.storage);
  }
  return rec;
}

void reductions_release(BlockRecord* rec) {
  // acq_rel: the last holder frees, after every other holder's last use.
  if (!rec || rec->refs.fetch_sub(1, memory_order_acq_rel) != 1) return;
  for (auto& b : rec->blocks) free(b.storage);
  delete rec;
}

void reductions_report(const BlockRecord* rec, ReductionBlock* blocks, int n) {
  for (int i = 0; i < n && std::size_t(i) < rec->blocks.size(); ++i) {
    blocks[i].storage = rec->blocks[std::size_t(i)].storage;
    if (blocks[i].publish) *blocks[i].publish = uintptr_t(blocks[i].storage);
  }
}

const void* reductions_visible() {
  if (g_live_bindings.load(memory_order_relaxed) == 0) return nullptr;
  const Task* cur = current_thread_fast()->current_task;
  if (const ReductionBinding* b = own_binding(cur)) return b;
  return closure_reductions(cur);
}

void reductions_bind(BlockRecord* rec) {
  Thread* th = current_thread_fast();
  Task* cur = th->current_task;
  if (!cur->running_group) fatal("internal error: task reductions bound outside a taskgroup");
  auto* b = new ReductionBinding{rec, static_cast<const ReductionBinding*>(reductions_visible()), cur, cur->running_group};
  t_bindings.push_back(b);
  g_live_bindings.fetch_add(1, memory_order_relaxed);
}

void* reductions_register(ReductionBlock* blocks, int n) {
  BlockRecord* rec = reductions_create(blocks, n, current_thread_fast()->team->nthreads, 1);
  reductions_bind(rec);
  return rec;
}

void reductions_unregister(void* handle) { reductions_release(static_cast<BlockRecord*>(handle)); }

void reductions_remap(void** ptrs, std::size_t n, void** origs, std::size_t norigs) {
  Thread* th = current_thread_fast();
  auto* visible = static_cast<const ReductionBinding*>(reductions_visible());
  for (std::size_t i = 0; i < n; ++i) {
    uintptr_t p = uintptr_t(ptrs[i]), orig = 0;
    void* copy = nullptr;
    for (const ReductionBinding* b = visible; b && !copy; b = b->outer) {
      for (const auto& blk : b->rec->blocks) {
        if (!find_in(blk, p, th->tid, &copy, &orig)) continue;
        if (th->tid >= blk.nthreads) {
          fatal("internal error: the task reduction copy of thread %d, in storage for %d threads", th->tid,
                blk.nthreads);
        }
        break;
      }
    }
    if (!copy) fatal("in_reduction on %p, which no enclosing task reduction names", ptrs[i]);
    if (i < norigs && !orig) fatal("in_reduction on %p: no reduced variable starts there", ptrs[i]);
    ptrs[i] = copy;
    if (i < norigs) origs[i] = reinterpret_cast<void*>(orig);
  }
}

void taskgroup_end_bound() {
  Thread* th = current_thread_fast();
  const Task* cur = th->current_task;
  const TaskGroup* g = cur->running_group;
  taskgroup_end();
  if (g_live_bindings.load(memory_order_relaxed) == 0) return;
  // Invariant V: every task of the group has completed. `g` is only compared.
  auto dead = [&](ReductionBinding* b) {
    if (b->owner != cur || b->group != g) return false;
    delete b;
    g_live_bindings.fetch_sub(1, memory_order_relaxed);
    return true;
  };
  t_bindings.erase(std::remove_if(t_bindings.begin(), t_bindings.end(), dead), t_bindings.end());
}

void workshare_reductions_begin(ReductionBlock* blocks, int n) {
  Thread* th = current_thread_fast();
  taskgroup_begin();
  th->current_task->running_group->workshare = true;
  struct Make {
    ReductionBlock* blocks;
    int n, nthreads;
  } make{blocks, n, th->team->nthreads};
  // One reference per thread: each releases its own in workshare_reductions_end.
  auto* rec = static_cast<BlockRecord*>(team_once(
      [](void* ctx) -> void* {
        auto* m = static_cast<Make*>(ctx);
        return reductions_create(m->blocks, m->n, m->nthreads, m->nthreads);
      },
      &make));
  reductions_report(rec, blocks, n);
  reductions_bind(rec);
}

void workshare_reductions_end(bool cancelled) {
  Thread* th = current_thread_fast();
  const ReductionBinding* mine = own_binding(th->current_task);
  if (!mine || mine->group != th->current_task->running_group) {
    fatal("internal error: the end of a worksharing construct's task reductions without their start");
  }
  auto* rec = const_cast<BlockRecord*>(mine->rec);
  taskgroup_end_bound();
  reductions_release(rec);
  if (!cancelled) barrier();
}

}  // namespace bobbin::rt
