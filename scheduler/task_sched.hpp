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
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scheduler/steal_policy.hpp"

namespace bobbin::sched {

// What one thread's constrained scans found empty under `epoch` (which names
// the filter: the runtime gives each run of a task on a thread a number no
// other run had): per list of a scheduler, the list's pushes()
// at a scan that found nothing acceptable. An item refused once is refused
// again, and items reach a list only by a push, so the next scan looks only
// at what was pushed since (TaskList::pop_bottom_if_since), and not at all
// while the count has not moved. Lists numbered kLists and up are not
// remembered.
struct ScanMemo {
  static constexpr int kLists = 64;
  struct Entry {
    uint64_t epoch = 0;
    uint64_t pushes = 0;
  };
  uint64_t epoch = 1;
  Entry e[kLists];
  // The count at this thread's last empty scan of `list` (0: none, scan all).
  uint64_t since(int list) const { return list < kLists && e[list].epoch == epoch ? e[list].pushes : 0; }
  void found_nothing(int list, uint64_t pushes) {
    if (list < kLists) e[list] = {epoch, pushes};
  }
};

// The items a pop may take; no function: every item.
struct Filter {
  bool (*fn)(const void* ctx, void* item) = nullptr;
  const void* ctx = nullptr;
  ScanMemo* memo = nullptr;  // constrained scans may skip lists by it (may be null)
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
