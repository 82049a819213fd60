// Moldable nested regions (after ARMS, the adaptive resource-moldable
// scheduler): how many threads a nested parallel region gets, chosen from
// an online history of how long regions of the same kind took at each
// width. A region's kind is its microtask (the outlined body: the same
// parallel construct) and a number standing for where its data lives
// (runtime/team.cpp: the task list an affinity clause named; 0 when unknown).
// Each kind keeps one table of widths per leader place, ARMS's (leader,
// width) partition: the leader is the NUMA node of the worker the region's
// master runs on, and the team is placed around it (scheduler/gang.cpp), so
// a region started far from its data is timed apart from one started near
// it. The master is the encountering thread, a started fiber that stays on
// its worker (compiled code keeps thread-local addresses across calls), so
// the leader is chosen before the task that opens the region starts: the
// task is queued on the list of the leader's node (choose_leader), for the
// kinds of region that tasks of its function were seen to open
// (opened_by). The affinity clause, when the task has one, chooses instead.
//
// The rule, per kind, over the widths 1, 2, 4, ... up to the width asked:
// - explore, among the widths the idle workers allow: the widest one's
//   trials first, back to back (the first region pays the one-time costs,
//   and the least of the trials is the estimate), then each other width in
//   increasing order, trials(w) times, before any choice among them (width
//   1 once: a region of one makes no team, so its first trial is like the
//   others); a wider width is explored once workers idle for it;
// - then the cheapest: the width with the least time x width (the
//   processor time the region costs: work that does not speed up stays
//   narrow and leaves the other workers to the rest of the program);
// - widen: when more workers idle than that width uses, the fastest width
//   the idle workers allow (the program has nothing else for them);
// - the caller may wait a moment for the wider choice (Decision::wider):
//   a worker that has just finished a task or a region is not counted idle
//   for the few microseconds it takes to come back (runtime/team.cpp); not
//   while such waits keep finding no room (the DAG keeps the workers busy:
//   each wait cost two chains of 250 us matmul steps 4%), but for a probe
//   every kWaitProbe decisions;
// - keep measuring: the next width in turn is retried, so that the
//   estimates follow a phase change, at most once in kRetry decisions and
//   only as often as the time it is expected to lose stays within
//   kRetryShare of the decisions' time (a width much slower than the
//   choice is retried rarely: its retries were most of what the model lost
//   against the best fixed width on a 60-step chain), and the share halves
//   with each retry in a row that finds its width slower than the choice
//   again (to an eighth: a chain that keeps one width pays for fewer
//   retries the longer it runs; a retry that finds a faster width restores
//   the share). Several regions of a kind may run at once: a region of the
//   retried width that ends first stands for the retry.
// Times: the least of a width's exploring trials, then exponentially
// weighted averages (a new sample weighs 1/4 and counts for at most twice
// the estimate: outliers move it by 25% at most), except that a sample
// below the estimate replaces it (delays only add to a region's time).
// Width 1 is not run to be explored: until a region of one is timed, its
// estimate is what the threads of each wider region spent in the body,
// summed (the same work done by one thread: about its time, a little more
// where the threads shared a bandwidth, less where the data fitted their
// caches together and not one's alone), kept current by every wider region.
// A chain of 40 stencil sweeps on 2 workers lost 2.3% to its one sweep at
// width 1. It is still retried, as any width (its time taken as at least
// what a perfect division of the chosen width implies), and a timed region
// replaces it.
// Thread-safe; one instance per run (runtime/team.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ult/spinlock.hpp"

namespace bobbin::sched {

class MoldModel {
 public:
  struct Key {
    const void* fn = nullptr;
    uintptr_t where = 0;
    int leader = 0;  // the place of the region's master: its worker's NUMA node
    bool operator==(const Key& o) const { return fn == o.fn && where == o.where && leader == o.leader; }
  };
  struct Decision {
    int width = 1;
    double predicted_ns = 0;  // the estimate for that width (0 while exploring it)
    bool exploring = false;
    // When the idle workers were what kept the choice narrow: the fastest
    // width the region could have (up to the width asked), the workers
    // besides the caller's it needs idle, and its estimate. 0 otherwise.
    int wider = 0;
    double wider_ns = 0;
    // That width was not explored yet (it was beyond the idle workers while
    // the others were): taken, it is a trial (wider_ns 0).
    bool wider_exploring = false;
  };

  static constexpr int kTrials = 3;
  // A wider choice is named (for the caller to wait for) unless the last
  // kWaitMisses waits for one found no room; then only every kWaitProbe-th
  // decision.
  static constexpr int kWaitMisses = 3;
  static constexpr uint32_t kWaitProbe = 16;
  static constexpr int kRetry = 32;             // decisions between retries, at least
  static constexpr double kRetryShare = 1.0 / 64;  // of the chosen width's time, at most, lost to retries
  // A retry that finds its width slower than the choice again halves the
  // share for the next (down to 1/2^kRetryBackoff of it); one that finds it
  // faster restores it.
  static constexpr int kRetryBackoff = 3;
  // The exploring trials of width w (the least of them is its estimate).
  static constexpr int trials(int w) { return w == 1 ? 1 : kTrials; }

  // For a region of `key` asking for `asked` threads (> 1) while `idle`
  // workers besides the caller's have nothing to run.
  Decision choose(const Key& key, int asked, int idle);
  // A region of `key` took `ns` at `width`; `busy_ns`, when not 0, is its
  // threads' time in the body, summed.
  void record(const Key& key, int width, uint64_t ns, uint64_t busy_ns = 0);
  // What the caller's wait for a decision's wider width found: room for it
  // in time, or not. Returns whether the wait before it found room (or
  // there was none): a miss after a success is taken as a worker late
  // from its last region, not as a DAG that keeps the workers busy.
  bool waited(const Key& key, bool room);

  // Leaders: the node a task that opens regions of a kind is queued at.
  // Each of `leaders` nodes is given tasks until kLeaderTrials regions were
  // timed under it (at least kLeaderTrials tasks, at most kLeaderTries: a
  // task queued there may run elsewhere; the node given least so far
  // first: tasks made ready together spread over the nodes) and its
  // cheapest width's time rests on kTrials regions (for up to kTrials more
  // tasks: width 1 is explored by one trial, too few on a loaded host), then the
  // node whose table has the least time x width over its
  // widths; every kLeaderRetry-th decision the next other node in turn,
  // so that the estimates follow. leader -1: no preference (no node has a
  // time yet).
  static constexpr int kLeaderTrials = 4;
  static constexpr int kLeaderTries = 16;
  static constexpr int kLeaderRetry = 32;
  struct LeaderChoice {
    int leader = -1;
    bool exploring = false;
  };
  // Only the nodes in `nodes` (bit l: node l) are candidates: those where
  // threads that may run the task were seen.
  LeaderChoice choose_leader(const void* fn, uintptr_t where, int leaders, uint64_t nodes = ~uint64_t(0));
  // Tasks of function `task_fn` open regions of microtask `region_fn`
  // (the last one seen, for a task that opens several).
  void opened_by(const void* task_fn, const void* region_fn);
  // The microtask of the regions tasks of `task_fn` open; null if none seen.
  const void* region_opened_by(const void* task_fn) const;

  // The widths considered for `asked`: 1, 2, 4, ... and `asked` itself.
  static std::vector<int> widths(int asked);
  // The current estimate for (key, width): {ns, samples}; {0, 0} if none.
  std::pair<double, int> estimate(const Key& key, int width) const;

 private:
  struct Hash {
    std::size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.fn) ^
             (std::hash<uintptr_t>()(k.where * 64 + uintptr_t(k.leader)) * 0x9E3779B97F4A7C15ull);
    }
  };
  struct Stats {
    double ns = 0;
    int samples = 0;
    // Width 1 only: the estimate is derived, from the threads' summed time
    // in the body of wider regions; no region of one was timed yet.
    bool derived = false;
  };
  static void add_sample(Stats& s, int width, double x);
  struct Entry {
    std::unordered_map<int, Stats> by_width;
    uint32_t since_retry = 0;  // decisions since the last retry (or the exploration)
    std::size_t retry_next = 0;
    int retry_backoff = 0;       // retries in a row that found their width slower (up to kRetryBackoff)
    int retrying = 0;            // the width of the retry under way (0: none)
    double retry_against = 0;    // the chosen width's estimate when it started
    int wait_misses = 0;          // waits for a wider width in a row that found no room
    uint32_t missing_decisions = 0;  // decisions made at kWaitMisses: every kWaitProbe-th probes
  };
  // Where tasks opening regions of (fn, where) were queued.
  struct Placed {
    std::vector<uint32_t> per_leader;  // tasks queued at each node by the model
    uint32_t since_retry = 0;
    uint32_t retry_next = 0;
  };
  mutable SpinLock lock_;
  std::unordered_map<Key, Entry, Hash> table_ GUARDED_BY(lock_);
  std::unordered_map<Key, Placed, Hash> placed_ GUARDED_BY(lock_);  // keyed with leader 0
  std::unordered_map<const void*, const void*> openers_ GUARDED_BY(lock_);
};

}  // namespace bobbin::sched
