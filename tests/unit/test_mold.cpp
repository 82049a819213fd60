// The moldable-region model (scheduler/mold.hpp): the widths it considers,
// exploration (the widest first, then increasing order), the cheapest width (time x width) when
// no worker idles, the fastest one the idle workers allow, and the periodic
// retry that keeps the estimates current; a slow first trial.
#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "scheduler/mold.hpp"

using bobbin::sched::MoldModel;

namespace {

// Runs `decisions` regions of one kind whose time at width w is t(w),
// with `idle` workers idle at each decision; returns the widths chosen.
std::vector<int> run(MoldModel& m, const MoldModel::Key& k, int asked, int idle, int decisions,
                     const std::function<double(int)>& t) {
  std::vector<int> chosen;
  for (int i = 0; i < decisions; ++i) {
    MoldModel::Decision d = m.choose(k, asked, idle);
    REQUIRE(d.width >= 1);
    REQUIRE(d.width <= asked);
    chosen.push_back(d.width);
    m.record(k, d.width, uint64_t(t(d.width)));
  }
  return chosen;
}

int settled(const std::vector<int>& chosen) { return chosen.back(); }

}  // namespace

TEST_CASE("mold: the widths are the powers of two below the width asked, and that width", "[mold]") {
  CHECK(MoldModel::widths(1) == std::vector<int>{1});
  CHECK(MoldModel::widths(2) == std::vector<int>{1, 2});
  CHECK(MoldModel::widths(6) == std::vector<int>{1, 2, 4, 6});
  CHECK(MoldModel::widths(8) == std::vector<int>{1, 2, 4, 8});
}

TEST_CASE("mold: the widest width's trials first, then each other width's, narrowest first, before any choice",
          "[mold]") {
  MoldModel m;
  int fn;
  std::vector<int> expect;  // the widest first: what happens once is paid by a width tried more than once
  for (int w : {8, 1, 2, 4})
    for (int i = 0; i < MoldModel::trials(w); ++i) expect.push_back(w);
  CHECK(expect.size() == 1 + 3 * MoldModel::kTrials);  // width 1 once: it makes no team
  std::vector<int> chosen = run(m, {&fn, 0}, 8, 7, int(expect.size()), [](int w) { return 1e6 / w; });
  CHECK(chosen == expect);
  CHECK(m.estimate({&fn, 0}, 1).second == 1);
  CHECK(m.estimate({&fn, 0}, 4).second == MoldModel::kTrials);
  CHECK(m.estimate({&fn, 0}, 4).first == Approx(2.5e5));
}

TEST_CASE("mold: perfect speedup widens only onto idle workers", "[mold]") {
  int fn;
  auto t = [](int w) { return 1e6 / w; };  // time x width constant
  MoldModel busy, idle;
  CHECK(settled(run(busy, {&fn, 0}, 8, 0, 30, t)) == 1);   // nobody idles: the cheapest (ties: the narrowest)
  CHECK(settled(run(idle, {&fn, 0}, 8, 7, 30, t)) == 8);   // seven idle: the fastest
  MoldModel some;
  CHECK(settled(run(some, {&fn, 0}, 8, 3, 30, t)) == 4);   // three idle: four threads at most
}

TEST_CASE("mold: work that stops speeding up stays narrow", "[mold]") {
  int fn;
  // Memory-bound: two threads saturate the bandwidth.
  MoldModel m1;
  CHECK(settled(run(m1, {&fn, 0}, 8, 7, 30, [](int w) { return 1e6 / (w < 2 ? w : 2); })) == 2);
  // Overhead growing with the width: 2 is fastest, 1 cheapest.
  MoldModel m2;
  auto t = [](int w) { return 1e6 / w + 3e5 * w; };
  CHECK(settled(run(m2, {&fn, 0}, 8, 7, 30, t)) == 2);
  MoldModel m3;
  CHECK(settled(run(m3, {&fn, 0}, 8, 0, 30, t)) == 1);
}

TEST_CASE("mold: kinds are separate, and a retry keeps every estimate current", "[mold]") {
  MoldModel m;
  int a, b;
  run(m, {&a, 0}, 4, 3, 20, [](int w) { return 1e6 / w; });
  run(m, {&b, 0}, 4, 3, 20, [](int) { return 1e6; });
  CHECK(m.choose({&a, 0}, 4, 3).width == 4);
  CHECK(m.choose({&b, 0}, 4, 3).width == 1);
  CHECK(m.choose({&a, 7}, 4, 3).exploring);  // another address: a kind of its own
  // A phase change: kind b becomes parallel; the retries find out.
  std::vector<int> chosen = run(m, {&b, 0}, 4, 3, 20 * MoldModel::kRetry, [](int w) { return 1e6 / w; });
  CHECK(settled(chosen) == 4);
}

TEST_CASE("mold: one outlier moves an estimate by a quarter at most; a faster sample replaces it", "[mold]") {
  MoldModel m;
  int fn;
  for (int i = 0; i < MoldModel::trials(2); ++i) m.record({&fn, 0}, 2, 1000);
  m.record({&fn, 0}, 2, 50000);  // a region delayed by something else
  CHECK(m.estimate({&fn, 0}, 2).first == Approx(1250));
  for (int i = 0; i < 12; ++i) m.record({&fn, 0}, 2, 50000);  // a real change still registers
  CHECK(m.estimate({&fn, 0}, 2).first > 10000);
  m.record({&fn, 0}, 2, 2000);  // delays only add: a faster sample is believed at once
  CHECK(m.estimate({&fn, 0}, 2).first == Approx(2000));
}

TEST_CASE("mold: a slow first trial (making the team) does not condemn a width", "[mold]") {
  MoldModel m;
  int fn;
  MoldModel::Key k{&fn, 0};
  // Width 2 is twice as fast, but its first region took 7x longer.
  int n2 = 0;
  std::vector<int> chosen = run(m, k, 2, 1, 40, [&](int w) { return w == 1 ? 330.0 : (n2++ == 0 ? 2300.0 : 260.0); });
  CHECK(m.estimate(k, 2).first < 330);
  int at2 = 0;
  int explored = MoldModel::trials(1) + MoldModel::trials(2);
  for (std::size_t i = std::size_t(explored); i < chosen.size(); ++i) at2 += chosen[i] == 2;
  CHECK(at2 >= int(chosen.size()) - explored - 2);  // all but the retries
}

TEST_CASE("mold: a choice kept narrow by the idle count names the faster width", "[mold]") {
  int fn;
  MoldModel::Key k{&fn, 0};
  auto t = [](int w) { return 1e6 / w + 3e5 * w; };  // 2 fastest, 1 cheapest
  MoldModel m;
  run(m, k, 2, 1, 10, t);
  // (decisions 11 and 12: explored, and no retry before decision kRetry)
  MoldModel::Decision busy = m.choose(k, 2, 0);  // nobody idles: the cheapest, and what it gave up
  REQUIRE(!busy.exploring);
  CHECK(busy.width == 1);
  CHECK(busy.wider == 2);
  CHECK(busy.wider_ns == Approx(m.estimate(k, 2).first));
  MoldModel::Decision free = m.choose(k, 2, 1);  // one idles: the fastest, nothing given up
  REQUIRE(!free.exploring);
  CHECK(free.width == 2);
  CHECK(free.wider == 0);
}

TEST_CASE("mold: retries lose at most their share: a much slower width is retried rarely", "[mold]") {
  int fn;
  MoldModel::Key k{&fn, 0};
  int explored = MoldModel::trials(1) + MoldModel::trials(2);
  // Width 1 takes 2.5 times as long as width 2: a retry loses 1.5 regions'
  // time, which 1/64 of each decision's pays for in 96 decisions.
  MoldModel m;
  std::vector<int> chosen = run(m, k, 2, 1, explored + 300, [](int w) { return w == 1 ? 2.5e5 : 1e5; });
  std::vector<int> retries;
  for (std::size_t i = std::size_t(explored); i < chosen.size(); ++i)
    if (chosen[i] == 1) retries.push_back(int(i) - explored);
  CHECK(retries == std::vector<int>{95, 191, 287});
  // As fast (flat: width 1 is chosen, the cheapest): width 2 is retried
  // every kRetry decisions, the least interval.
  MoldModel f;
  chosen = run(f, k, 2, 1, explored + 100, [](int) { return 1e5; });
  int at2 = 0;
  for (std::size_t i = std::size_t(explored); i < chosen.size(); ++i) at2 += chosen[i] == 2;
  CHECK(at2 == 100 / MoldModel::kRetry);
}
