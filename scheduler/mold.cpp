#include "scheduler/mold.hpp"

#include <algorithm>

namespace bobbin::sched {

std::vector<int> MoldModel::widths(int asked) {
  std::vector<int> w;
  for (int x = 1; x < asked; x *= 2) w.push_back(x);
  w.push_back(std::max(asked, 1));
  return w;
}

MoldModel::Decision MoldModel::choose(const Key& key, int asked, int idle) {
  std::vector<int> ws = widths(asked);
  int room = std::min(asked, idle + 1);  // the widest team the idle workers allow now
  SpinGuard g(lock_);
  Entry& e = table_[key];
  // The first regions of a kind also pay what happens once (first touch of
  // its data, its gang's first wake-up): they run at the widest width, whose
  // trials come first and back to back (its estimate is the least of them),
  // then the other widths in increasing order. Explored first, width 1
  // (tried once) took those costs: moldable triad's first step took 2.2 ms
  // at width 1 against 1.0 ms for a later one; and with a width's trials
  // apart (2, 1, 2), both were slow (1.9 and 1.8 ms against 0.45 later),
  // as if each started its team anew.
  auto unexplored = [&](int w) {
    auto it = e.by_width.find(w);
    return it == e.by_width.end() || it->second.samples < trials(w);
  };
  // Only widths the idle workers allow are explored: a trial wider than the
  // room queues members that wait for workers busy with the rest of the DAG
  // (two moldable triad chains on 2 workers: each trial of width 2 took
  // about twice a step at width 1, which no worker was free for anyway).
  // The widest unexplored width beyond the room is named as the wider
  // choice, so that the caller waits a moment for it (a worker a few
  // microseconds from free) and explores it when it comes.
  int beyond = 0;
  for (int w : ws)
    if (w > room && unexplored(w)) beyond = w;
  // While waits for a wider width keep finding no room, name none but on a probe.
  bool name_wider = e.wait_misses < kWaitMisses;
  if (!name_wider) name_wider = e.missing_decisions++ % kWaitProbe == 0;
  if (!name_wider) beyond = 0;
  auto explore = [&](int w) {
    Decision d{w, 0, true};
    if (beyond > w) d.wider = beyond, d.wider_exploring = true;
    return d;
  };
  int fit = ws[0];
  for (int w : ws)
    if (w <= room) fit = w;
  if (unexplored(fit)) return explore(fit);
  for (int w : ws)
    if (w <= room && unexplored(w)) return explore(w);
  // Every width the room allows is explored; the others may not be yet.
  auto known = [&](int w) { return !unexplored(w); };
  int cheapest = ws[0];
  for (int w : ws)
    if (known(w) && e.by_width[w].ns * w < e.by_width[cheapest].ns * cheapest) cheapest = w;
  // The fastest width up to `limit`, from the cheapest: wider only when it is faster.
  auto fastest = [&](int limit) {
    int best = cheapest;
    if (limit > cheapest)
      for (int w : ws)
        if (w <= limit && known(w) && e.by_width[w].ns < e.by_width[best].ns) best = w;
    return best;
  };
  int best = fastest(room);
  Decision d{best, e.by_width[best].ns, false};
  if (int w = fastest(asked); w > best && name_wider) d.wider = w, d.wider_ns = e.by_width[w].ns;
  else if (beyond > best) d.wider = beyond, d.wider_exploring = true;
  // Keep measuring: the next width in turn, once kRetry decisions have
  // passed and the time it is expected to lose fits in the share of the
  // decisions since the last retry (kRetryShare): a width 2.5 times slower
  // than the choice is retried every 96 decisions, one as fast every 32.
  // Not a width the room does not allow (its turn waits for the room).
  ++e.since_retry;
  int w = ws[e.retry_next % ws.size()];
  if (w == best) w = ws[++e.retry_next % ws.size()];
  if (w != best && w <= room && known(w) && e.since_retry >= kRetry) {
    // A derived estimate (width 1's, from the threads' time in the body)
    // knows nothing of what one thread alone lacks: the other processors'
    // caches and bandwidth. Its region is expected to take at least what
    // a perfect division of the chosen one implies: moldable triad's
    // derived 1.0 ms was 1.8-2.1 ms when a retry timed it (the two halves
    // fit the two processors' caches, the whole does not fit one).
    double t = e.by_width[w].ns;
    if (e.by_width[w].derived) t = std::max(t, d.predicted_ns * best / w);
    double lose = std::max(0.0, t - d.predicted_ns);
    if (double(e.since_retry) * d.predicted_ns * kRetryShare >= lose * double(1 << e.retry_backoff)) {
      e.since_retry = 0;
      ++e.retry_next;
      e.retrying = w;
      e.retry_against = d.predicted_ns;
      return {w, e.by_width[w].ns, true};
    }
  }
  return d;
}

void MoldModel::record(const Key& key, int width, uint64_t ns, uint64_t busy_ns) {
  SpinGuard g(lock_);
  Entry& e = table_[key];
  if (width > 1 && busy_ns > 0) {
    Stats& one = e.by_width[1];
    if (one.samples == 0) one.derived = true;
    if (one.derived) add_sample(one, 1, double(busy_ns));
  }
  // What a retry found: its width slower than the choice again (the
  // estimates hold: the next retry of a slower width waits twice as long),
  // or not (a phase change, or an estimate too high: back to the full share).
  // Moldable matmul's chain, where width 1 takes twice width 2's 230 us,
  // retried it 3 times in 200 steps, each costing a step's time: 1.5% of
  // the run.
  if (width == e.retrying) {
    e.retry_backoff = double(ns) >= e.retry_against ? std::min(e.retry_backoff + 1, kRetryBackoff) : 0;
    e.retrying = 0;
  }
  Stats& s = e.by_width[width];
  if (width == 1 && s.derived) s = Stats{};  // timed: the derived estimate gives way
  add_sample(s, width, double(ns));
}

void MoldModel::add_sample(Stats& s, int width, double x) {
  // While a width is explored, its estimate is the least of its trials:
  // the first region of a width also pays for making its team (a new gang,
  // the workers' first wake-up: 2.3 ms against 0.26 ms for the next one in
  // moldable matmul), and averaged in, that kept a chain at width 1, twice
  // as slow, for the rest of the run. After that, a sample counts for a
  // quarter, and at most twice the estimate: one region delayed by
  // something else (a processor taken by another program, a worker's
  // wake-up) must not condemn a width until its next retry (moldable triad:
  // one 17 ms sample among 1.3 ms ones kept a chain at width 1). A sample
  // below the estimate replaces it: what delays a region only adds to its
  // time, so a faster one is evidence, and averaged in by a quarter, a
  // retry that found width 2 at 177 us against an estimate of 490 (two slow
  // first trials) left the chain at width 1 (330 us) to the end.
  if (s.samples == 0 || x < s.ns) s.ns = x;
  else if (s.samples >= trials(width)) s.ns = 0.75 * s.ns + 0.25 * std::min(x, 2 * s.ns);
  ++s.samples;
}

bool MoldModel::waited(const Key& key, bool room) {
  SpinGuard g(lock_);
  Entry& e = table_[key];
  bool found_before = e.wait_misses == 0;
  e.wait_misses = room ? 0 : std::min(e.wait_misses + 1, kWaitMisses);
  return found_before;
}

MoldModel::LeaderChoice MoldModel::choose_leader(const void* fn, uintptr_t where, int leaders, uint64_t nodes) {
  leaders = std::min(leaders, 64);
  auto candidate = [&](int l) { return (nodes >> l & 1) != 0; };
  int candidates = 0;
  for (int l = 0; l < leaders; ++l) candidates += candidate(l);
  if (candidates < 2) return {};
  SpinGuard g(lock_);
  Placed& p = placed_[Key{fn, where, 0}];
  p.per_leader.resize(std::size_t(leaders));
  // Per node: the regions timed under it, and its cost: its cheapest
  // width's time x width (ARMS's parallel cost), over the widths whose
  // exploring trials are done (the first region under a node also makes
  // its gang there: 1.9 ms against 0.2 ms later on a modelled machine;
  // compared as it was, that node lost). Cost 0: none yet.
  int samples[64] = {}, cost_samples[64] = {};
  double cost[64] = {};
  for (int l = 0; l < leaders; ++l) {
    auto it = table_.find(Key{fn, where, l});
    if (it == table_.end() || !candidate(l)) continue;
    for (const auto& [w, s] : it->second.by_width) {
      if (!s.derived) samples[l] += s.samples;  // regions timed (a derived estimate counts them twice)
      if (s.samples >= trials(w) && (cost[l] == 0 || s.ns * w < cost[l])) cost[l] = s.ns * w, cost_samples[l] = s.samples;
    }
  }
  // Explored: kLeaderTrials regions timed under the node (a task queued
  // there may still run elsewhere: a worker of another node took it, so
  // placements count only up to kLeaderTries per node), and kTrials at the
  // width its cost rests on, for up to kTrials more tasks. Width 1 is
  // explored by one trial, and nodes were compared by that one time: under
  // a loaded host, one node's single trial took 7 times its usual time and
  // the chain stayed at the wrong node for 30 of 80 tasks. The node's own
  // choices give it the other trials when no worker idles (they go to its
  // cheapest width; with idle workers, to a wider one: hence the bound).
  int least = -1, best = -1;
  for (int l = 0; l < leaders; ++l) {
    if (!candidate(l)) continue;
    uint32_t placed = p.per_leader[std::size_t(l)];
    bool unexplored = placed < uint32_t(kLeaderTrials) ||
                      (placed < uint32_t(kLeaderTries) && samples[l] < kLeaderTrials) ||
                      (placed < uint32_t(kLeaderTrials + kTrials) && cost_samples[l] < kTrials);
    if (unexplored && (least < 0 || placed < p.per_leader[std::size_t(least)])) least = l;
    if (cost[l] > 0 && (best < 0 || cost[l] < cost[best])) best = l;
  }
  if (least >= 0) {
    ++p.per_leader[std::size_t(least)];
    return {least, true};
  }
  if (best < 0) return {};
  // Retries: a node with no cost yet first (its tasks ran elsewhere), else the next in turn.
  if (++p.since_retry >= uint32_t(kLeaderRetry)) {
    p.since_retry = 0;
    int l = -1;
    for (int k = 0; k < leaders && l < 0; ++k)
      if (candidate(k) && cost[k] == 0) l = k;
    for (int k = 0; k < leaders && l < 0; ++k)
      if (int c = int(p.retry_next++ % uint32_t(leaders)); c != best && candidate(c)) l = c;
    if (l < 0) return {best, false};
    ++p.per_leader[std::size_t(l)];
    return {l, true};
  }
  ++p.per_leader[std::size_t(best)];
  return {best, false};
}

void MoldModel::opened_by(const void* task_fn, const void* region_fn) {
  SpinGuard g(lock_);
  openers_[task_fn] = region_fn;
}

const void* MoldModel::region_opened_by(const void* task_fn) const {
  SpinGuard g(lock_);
  auto it = openers_.find(task_fn);
  return it == openers_.end() ? nullptr : it->second;
}

std::pair<double, int> MoldModel::estimate(const Key& key, int width) const {
  SpinGuard g(lock_);
  auto it = table_.find(key);
  if (it == table_.end()) return {0, 0};
  auto jt = it->second.by_width.find(width);
  if (jt == it->second.by_width.end()) return {0, 0};
  return {jt->second.ns, jt->second.samples};
}

}  // namespace bobbin::sched
