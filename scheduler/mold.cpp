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
  SpinGuard g(lock_);
  Entry& e = table_[key];
  ++e.decisions;
  for (int w : ws) {
    auto it = e.by_width.find(w);
    if (it == e.by_width.end() || it->second.samples < trials(w)) return {w, 0, true};
  }
  if (e.decisions % kRetry == 0) {
    int w = ws[e.retry_next++ % ws.size()];
    return {w, e.by_width[w].ns, true};
  }
  int cheapest = ws[0];
  for (int w : ws)
    if (e.by_width[w].ns * w < e.by_width[cheapest].ns * cheapest) cheapest = w;
  // The fastest width up to `room`, from the cheapest: wider only when it is faster.
  auto fastest = [&](int room) {
    int best = cheapest;
    if (room > cheapest)
      for (int w : ws)
        if (w <= room && e.by_width[w].ns < e.by_width[best].ns) best = w;
    return best;
  };
  int best = fastest(std::min(asked, idle + 1));
  Decision d{best, e.by_width[best].ns, false};
  if (int w = fastest(asked); w > best) d.wider = w, d.wider_ns = e.by_width[w].ns;
  return d;
}

void MoldModel::record(const Key& key, int width, uint64_t ns) {
  SpinGuard g(lock_);
  Stats& s = table_[key].by_width[width];
  // While a width is explored, its estimate is the least of its trials:
  // the first region of a width also pays for making its team (a new gang,
  // the workers' first wake-up: 2.3 ms against 0.26 ms for the next one in
  // moldable matmul), and averaged in, that kept a chain at width 1, twice
  // as slow, for the rest of the run. After that, a sample counts for a
  // quarter, and at most twice the estimate: one region delayed by
  // something else (a processor taken by another program, a worker's
  // wake-up) must not condemn a width until its next retry (moldable triad:
  // one 17 ms sample among 1.3 ms ones kept a chain at width 1).
  double x = double(ns);
  if (s.samples < trials(width)) s.ns = s.samples == 0 ? x : std::min(s.ns, x);
  else s.ns = 0.75 * s.ns + 0.25 * std::min(x, 2 * s.ns);
  ++s.samples;
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
