// Task schedulers: where a team's ready tasks wait, and how a thread of the
// team finds one. One instance per team (runtime/task.cpp creates it at the
// team's first task); the kind is chosen per run (BOBBIN_SCHED) from the
// table in sched_registry.cpp. Adding a scheduler: one class behind this
// interface and one row in that table.
//
// Tasks are opaque items here. A leaf is a task list at the BOBBIN_TASKLIST
// level (Placement's list index); every thread pushes to and pops from the
// leaf of the worker it runs on. Tasks with a priority and hidden helper
// tasks never reach a scheduler (the runtime keeps them in lists of their
// own, served first); the tied-task constraint arrives as a Filter.
//
// What every scheduler guarantees (scheduler/README.md argues each one):
// - no task lost: an item pushed stays in exactly one list until one pop
//   or find returns it;
// - none run twice: a list hands each item out once (under its lock);
// - an idle leaf finds queued work: find() reaches every list, so a thread
//   that finds nothing has seen every list empty (or holding only items its
//   filter refuses) at some moment during the call.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scheduler/steal_policy.hpp"

namespace bobbin::sched {

// The items a pop may take; no function: every item.
struct Filter {
  bool (*fn)(const void* ctx, void* item) = nullptr;
  const void* ctx = nullptr;
  bool any() const { return fn == nullptr; }
  bool operator()(void* item) const { return !fn || fn(ctx, item); }
};

// Told each list a search looks at (tracing the steal sweeps); may be empty.
struct Probe {
  void (*tried)(void* ctx, int list) = nullptr;
  void* ctx = nullptr;
  void operator()(int list) const {
    if (tried) tried(ctx, list);
  }
};

struct Found {
  void* item = nullptr;
  int list = -1;  // where it was: a leaf, or (tree) an inner node numbered from num_lists up
};

class TaskScheduler {
 public:
  virtual ~TaskScheduler() = default;
  // A ready task made by a thread on `leaf`.
  virtual void push(int leaf, void* item) = 0;
  // A ready task that should run on `leaf` (the affinity clause): it stays there.
  virtual void push_pinned(int leaf, void* item) = 0;
  // The cheap path: the newest acceptable item of the thread's own leaf.
  virtual void* pop_own(int leaf, const Filter& f) = 0;
  // Beyond the own leaf (steal, or ask up the tree). `thief`: the calling
  // worker's index for per-thief state (StealPolicy::kMaxThieves slots).
  virtual Found find(int leaf, int thief, const Filter& f, const Probe& probe) = 0;
  // How many items wait on `leaf` (the runtime's throttling reads it).
  virtual std::size_t queued(int leaf) const = 0;
  // Whether any list holds an item (a hint, read without locks).
  virtual bool any_queued() const = 0;
};

// What a scheduler is built from: one per run, outliving every team.
struct SchedContext {
  const Placement* placement = nullptr;
  StealPolicy* policy = nullptr;  // shared by every team: its per-thief state is the thief's own
  bool steal_half = false;        // BOBBIN_STEAL_AMOUNT=half
  int tree_threshold = -1;        // BOBBIN_TREE_THRESHOLD: -1 dynamic, else fixed
};

struct SchedRow {
  const char* name;
  const char* description;
  std::unique_ptr<TaskScheduler> (*make)(const SchedContext& c);
};
std::span<const SchedRow> scheduler_rows();
const SchedRow* find_scheduler(const std::string& name);  // null if unknown

std::unique_ptr<TaskScheduler> make_steal_scheduler(const SchedContext& c);
std::unique_ptr<TaskScheduler> make_tree_scheduler(const SchedContext& c);

}  // namespace bobbin::sched
