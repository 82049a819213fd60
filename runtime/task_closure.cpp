// Closure tasks: a task whose body is fn(copy of a data block), the form in
// which gcc describes task and taskloop (there is no compiler-visible task
// structure to fill, unlike clang's kmp_task_t).
//
// A closure task's payload (from task_alloc) is a Header followed by the copy
// of the caller's block, aligned as the caller asks:
//
//   [ Header | padding | copy of the block (size bytes, `align`-aligned) ]
//
// The header holds the body, the copy's address, the task reductions the
// creating task saw (block_reduction.cpp finds them there), and, for a
// taskloop chunk, the chunk's bounds. The runtime's taskloop (taskloop.cpp)
// splits a normalised iteration space [0, trip) and writes each chunk's
// inclusive bounds into the header; run() maps them back to the loop's own
// values, [start + lb*step, start + (ub+1)*step), into the first two 8-byte
// words of the copy just before the body runs, and gives the last chunk the
// loop's own end exactly (gcc's lastprivate code compares against it).
#include <cstddef>
#include <cstring>
#include <new>

#include "runtime/api.hpp"
#include "runtime/block_reduction.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"

namespace bobbin::rt {

namespace {

struct Header {
  void (*fn)(void*) = nullptr;
  char* arg = nullptr;                // the copy (or, undeferred without a copy function, the caller's block)
  const void* reductions = nullptr;   // what the creator saw (block_reduction.cpp)
  // taskloop chunks only:
  uint64_t lb = 0, ub = 0;            // written by taskloop(): inclusive, in [0, trip)
  uint64_t trip = 0;
  int64_t start = 0, step = 0, end = 0;
  bool loop = false;
};

void run(void* payload, int /*gtid*/) {
  auto* h = static_cast<Header*>(payload);
  if (h->loop) {
    // Wrapping arithmetic: the loop variable may be unsigned.
    uint64_t s = uint64_t(h->start) + h->lb * uint64_t(h->step);
    uint64_t e = h->ub + 1 == h->trip ? uint64_t(h->end) : uint64_t(h->start) + (h->ub + 1) * uint64_t(h->step);
    memcpy(h->arg, &s, sizeof s);
    memcpy(h->arg + sizeof s, &e, sizeof e);
  }
  // The task's exit frame for a tool is this function's (the body's caller).
  if (ompt::on()) [[unlikely]] ompt::set_exit_frame(__builtin_frame_address(0));
  h->fn(h->arg);
  asm volatile("" ::: "memory");  // not a tail call: the frame must stay while the body runs
}

const bool g_routine_registered =
    (register_task_routine(&run, [](void* payload) -> const void* {
       return reinterpret_cast<const void*>(static_cast<Header*>(payload)->fn);
     }),
     true);

std::size_t align_of(const ClosureTask& t) { return t.align > 1 ? t.align : 1; }

std::size_t payload_size(const ClosureTask& t) { return sizeof(Header) + t.size + align_of(t) - 1; }

char* copy_address(void* payload, std::size_t align) {
  uintptr_t p = uintptr_t(payload) + sizeof(Header);
  return reinterpret_cast<char*>((p + align - 1) / align * align);
}

TaskSpec spec_of(const ClosureTask& t) {
  TaskSpec s;
  s.run = &run;
  s.tied = t.tied;
  s.final_ = t.final_;
  s.priority = t.priority;
  return s;
}

void fill(char* dst, const ClosureTask& t) {
  if (t.copy) t.copy(dst, t.data);
  else if (t.size) memcpy(dst, t.data, t.size);
}

// taskloop's task_dup: a chunk starts as a copy of the pattern's header; its
// block is copied from the caller's (still live: taskloop() creates every
// chunk before it returns), so copy constructors run once per chunk.
void copy_chunk(void* dst, void* src, bool /*last*/, void* ctx) {
  auto* t = static_cast<const ClosureTask*>(ctx);
  auto* h = new (dst) Header(*static_cast<const Header*>(src));
  h->arg = copy_address(dst, align_of(*t));
  fill(h->arg, *t);
}

uint64_t trip_of(const ClosureTaskloop& l) {
  uint64_t s = uint64_t(l.start), e = uint64_t(l.end), st = uint64_t(l.step);
  if (l.up) {
    if (l.is_unsigned ? s >= e : l.start >= l.end) return 0;
    return (e - s - 1) / st + 1;
  }
  if (l.is_unsigned ? s <= e : l.start <= l.end) return 0;
  return (s - e - 1) / (0 - st) + 1;
}

}  // namespace

const void* closure_reductions(const Task* t) {
  if (!t || t->implicit || t->run != &run) return nullptr;
  return static_cast<const Header*>(const_cast<Task*>(t)->payload())->reductions;
}

void task_closure(const ClosureTask& t) {
  bool event = t.event_slots[0] || t.event_slots[1];
  // A task that runs before this call returns (undeferred, or ready and run
  // at its creation) can use the caller's block itself, as its copy, unless
  // it has a copy function: gcc builds a fresh block for each task and does
  // not read it after the call. Deciding before the allocation spares the
  // copy and a larger descriptor in the common deep-recursion case.
  bool now = t.if_clause && t.ndeps == 0 && !event && task_runs_now(t.priority);
  bool own_copy = t.copy || (t.if_clause && !now);
  void* payload = task_alloc(spec_of(t), own_copy ? payload_size(t) : sizeof(Header));
  auto* h = new (payload) Header;
  h->fn = t.fn;
  h->arg = own_copy ? copy_address(payload, align_of(t)) : static_cast<char*>(t.data);
  h->reductions = reductions_visible();
  if (event) {
    // Before the copy: the event may be part of the block.
    void* handle = task_detach_event(payload);
    for (void** slot : t.event_slots)
      if (slot) *slot = handle;
  }
  if (!t.if_clause) {
    task_wait_deps(t.deps, t.ndeps);
    if (own_copy) fill(h->arg, t);
    task_begin_undeferred(payload);
    t.fn(h->arg);
    task_end_undeferred(payload);
    return;
  }
  if (own_copy) fill(h->arg, t);
  if (now) task_run_created(payload);
  else task_submit(payload, t.deps, t.ndeps);
}

void taskloop_closure(ClosureTaskloop& l) {
  l.reductions_handle = nullptr;
  for (int i = 0; i < l.nreductions; ++i) {
    l.reductions[i].storage = nullptr;
    if (l.reductions[i].publish) *l.reductions[i].publish = 0;
  }
  uint64_t trip = trip_of(l);
  if (trip == 0) return;  // no task, no taskgroup, nothing registered
  if (!l.nogroup) {
    taskgroup_begin();
    if (l.nreductions > 0) {
      BlockRecord* rec = reductions_create(l.reductions, l.nreductions, current_thread_fast()->team->nthreads, 1);
      reductions_bind(rec);
      l.reductions_handle = rec;
    }
  }
  // The pattern: never submitted; taskloop() copies it once per chunk and frees it.
  const ClosureTask& t = l.task;
  void* pattern = task_alloc(spec_of(t), payload_size(t));
  auto* h = new (pattern) Header;
  h->fn = t.fn;
  h->reductions = reductions_visible();
  h->loop = true;
  h->trip = trip;
  h->start = l.start;
  h->step = l.step;
  h->end = l.end;
  h->lb = 0;
  h->ub = trip - 1;
  TaskloopSpec s;
  s.pattern = pattern;
  s.lb_offset = offsetof(Header, lb);
  s.ub_offset = offsetof(Header, ub);
  s.stride = 1;
  s.if_clause = t.if_clause;
  s.nogroup = true;  // the group, if any, is ours: the reductions are bound in it
  s.strict = l.strict;
  s.sched = l.sched;
  s.grain = l.grain;
  s.copy = &copy_chunk;
  s.ctx = const_cast<ClosureTask*>(&l.task);
  taskloop(s);
  if (!l.nogroup) taskgroup_end_bound();
}

}  // namespace bobbin::rt
