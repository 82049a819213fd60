// The moldable-region model (scheduler/mold.hpp): the widths it considers,
// exploration (the widest first, then increasing order), the cheapest width (time x width) when
// no worker idles, the fastest one the idle workers allow, and the periodic
// retry that keeps the estimates current; a slow first trial. And the model
// with the gang's placement on modelled 16- and 64-worker machines.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/gang.hpp"
#include "scheduler/mold.hpp"
#include "scheduler/topology.hpp"

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

TEST_CASE("mold: each leader place keeps its own table", "[mold]") {
  // One kind (same microtask, same data) started from two NUMA nodes,
  // alternately: near its data (leader 0) four workers stream fastest; from
  // the far node (leader 1) the remote bandwidth saturates at two and a
  // third and fourth member only add traffic. Each leader settles on its
  // own best; in one table the two would share one answer.
  MoldModel m;
  int fn;
  auto near = [](int w) { return w == 1 ? 1e5 : w == 2 ? 0.6e5 : 0.4e5; };
  auto far = [](int w) { return w == 1 ? 1.2e5 : w == 2 ? 0.7e5 : 0.9e5; };
  std::vector<int> at0, at1;
  for (int i = 0; i < 60; ++i) {
    at0.push_back(run(m, {&fn, 0, 0}, 4, 3, 1, near)[0]);
    at1.push_back(run(m, {&fn, 0, 1}, 4, 3, 1, far)[0]);
  }
  CHECK(settled(at0) == 4);
  CHECK(settled(at1) == 2);
  CHECK(m.estimate({&fn, 0, 0}, 4).first == Approx(0.4e5));
  CHECK(m.estimate({&fn, 0, 1}, 4).first == Approx(0.9e5));
}

TEST_CASE("mold: the leader is the node whose cheapest partition costs least, after each is tried", "[mold]") {
  // A kind opened by tasks the model places: from node 2 of 3 its regions
  // take half the time they take elsewhere. Each node is tried (the node
  // given least first: tasks made ready together spread over the nodes)
  // until kLeaderTrials regions were timed under it, and kTrials at its
  // cheapest width; then node 2 every time but for retries of the others.
  MoldModel m;
  int fn;
  const int nodes = 3;
  auto t = [](int leader, int w) { return (leader == 2 ? 1e5 : 2e5) / w; };
  CHECK(m.choose_leader(&fn, 0, 1).leader == -1);  // one node: no choice
  std::vector<int> explored(nodes);
  MoldModel::LeaderChoice c;
  int tasks = 0;
  while ((c = m.choose_leader(&fn, 0, nodes)).exploring && ++tasks < nodes * MoldModel::kLeaderTries) {
    REQUIRE(c.leader >= 0);
    REQUIRE(c.leader < nodes);
    CHECK(explored[std::size_t(c.leader)] == *std::min_element(explored.begin(), explored.end()));
    ++explored[std::size_t(c.leader)];
    run(m, {&fn, 0, c.leader}, 2, 1, 1, [&](int w) { return t(c.leader, w); });
  }
  CHECK(c.leader == 2);
  CHECK_FALSE(c.exploring);
  for (int l = 0; l < nodes; ++l) {
    CHECK(explored[std::size_t(l)] >= MoldModel::kLeaderTrials);
    CHECK(explored[std::size_t(l)] <= MoldModel::kLeaderTrials + MoldModel::kTrials);
  }
  std::vector<int> chosen(nodes);
  int retries = 0;
  for (int i = 0; i < 4 * MoldModel::kLeaderRetry; ++i) {
    c = m.choose_leader(&fn, 0, nodes);
    REQUIRE(c.leader >= 0);
    ++chosen[std::size_t(c.leader)];
    if (c.exploring) {
      ++retries;
      CHECK(c.leader != 2);
    }
  }
  CHECK(retries == 4);
  CHECK(chosen[2] == 4 * MoldModel::kLeaderRetry - 4);
  // Another place for the data is another kind: explored anew.
  CHECK(m.choose_leader(&fn, 5, nodes).exploring);
  // Only nodes where the team's threads were seen are candidates: node 2
  // left out, the choice is among 0 and 1; one node left, no choice.
  for (int i = 0; i < 4 * MoldModel::kLeaderRetry; ++i) {
    c = m.choose_leader(&fn, 0, nodes, 0b011);
    REQUIRE(c.leader >= 0);
    REQUIRE(c.leader < 2);
  }
  CHECK(m.choose_leader(&fn, 0, nodes, 0b100).leader == -1);
}

TEST_CASE("mold: a node is judged by kTrials regions at its cheapest width, not by one slow one", "[mold]") {
  // Two nodes; regions run at width 1 take 100 us under node 1 and 400
  // under node 0, and 4 times as long at width 2 (a team's members on one
  // loaded processor). Node 1's first
  // region at width 1, its only exploring trial there, is delayed 7 times
  // (a loaded host). A worker idles at each node's first kTrials regions
  // (width 2 is explored), then none. The model keeps node 1 under trial
  // until its width-1 time rests on kTrials regions, then queues the
  // chain at node 1.
  MoldModel m;
  int fn;
  std::vector<int> at_width1(2), regions(2);
  MoldModel::LeaderChoice c;
  int tasks = 0;
  while ((c = m.choose_leader(&fn, 0, 2)).exploring && ++tasks < 2 * MoldModel::kLeaderTries) {
    MoldModel::Key k{&fn, 0, c.leader};
    MoldModel::Decision d = m.choose(k, 2, regions[std::size_t(c.leader)]++ < MoldModel::kTrials ? 1 : 0);
    double us = (c.leader == 1 ? 100 : 400) * (d.width == 2 ? 4 : 1);
    if (d.width == 1 && c.leader == 1 && at_width1[1]++ == 0) us *= 7;
    m.record(k, d.width, uint64_t(us * 1000));
  }
  CHECK(c.leader == 1);
  CHECK_FALSE(c.exploring);
  CHECK(at_width1[1] >= MoldModel::kTrials);
}

TEST_CASE("mold: width 1 is estimated from wider regions' time in the body until a region of one is timed",
          "[mold]") {
  // Regions of 2 take 100 us, their threads 90 us each in the body: one
  // thread would take about 180. With a worker idle, width 2's trials are
  // the whole exploration: no region of one is run for it.
  MoldModel m;
  int fn;
  MoldModel::Key k{&fn, 0};
  auto region = [&](int idle, uint64_t busy_each) {
    MoldModel::Decision d = m.choose(k, 2, idle);
    m.record(k, d.width, d.width == 2 ? 100000 : 150000, d.width == 2 ? 2 * busy_each : 0);
    return d;
  };
  for (int i = 0; i < MoldModel::kTrials; ++i) {
    MoldModel::Decision d = region(1, 90000);
    CHECK(d.width == 2);
    CHECK(d.exploring);
  }
  CHECK(m.estimate(k, 1) == std::pair<double, int>{180000, MoldModel::kTrials});
  // Chosen from then on, and the estimate for one follows the regions of 2.
  for (int i = 0; i < 20; ++i) CHECK_FALSE(region(1, 70000).exploring);
  CHECK(m.estimate(k, 1).first == 140000);
  // With no worker idle, the cheaper width in processor time: one (140 us
  // against 2 x 100). Its first timed region (150 us) replaces the estimate.
  MoldModel::Decision d = region(0, 0);
  CHECK(d.width == 1);
  CHECK(m.estimate(k, 1) == std::pair<double, int>{150000, 1});
  // Regions of 2 no longer move it.
  for (int i = 0; i < 3; ++i) m.record(k, 2, 100000, 2 * 10000);
  CHECK(m.estimate(k, 1).first == 150000);
  // Without the threads' times (a tool attached), width 1 is explored by a region of one.
  MoldModel plain;
  for (int i = 0; i < MoldModel::kTrials; ++i) plain.record(k, plain.choose(k, 2, 1).width, 100000);
  MoldModel::Decision e = plain.choose(k, 2, 1);
  CHECK(e.width == 1);
  CHECK(e.exploring);
}

TEST_CASE("mold: a derived width-1 estimate is retried as if one thread took at least the perfect division's time",
          "[mold]") {
  // Regions of 2 take 100 us, their threads 60 us each in the body:
  // derived, width 1 is 120 us. A retry of it is budgeted as if it took
  // 2 x 100 (a perfect division of the chosen region), not 120: at
  // kRetryShare, after 64 decisions, not after kRetry (32).
  MoldModel m;
  int fn;
  MoldModel::Key k{&fn, 0};
  int first_retry = -1;
  for (int i = 0; i < 200 && first_retry < 0; ++i) {
    MoldModel::Decision d = m.choose(k, 2, 1);
    if (d.width == 1) first_retry = i - MoldModel::kTrials;
    m.record(k, d.width, 100000, d.width == 2 ? 2 * 60000 : 0);
  }
  CHECK(first_retry == 63);  // the 64th decision after the exploration
  // Timed, the estimate is what the region took, and budgets the next retry.
  CHECK(m.estimate(k, 1) == std::pair<double, int>{100000, 1});
}

TEST_CASE("mold: a wait that finds no room says whether the one before it found room", "[mold]") {
  MoldModel m;
  int fn;
  MoldModel::Key k{&fn, 0};
  CHECK(m.waited(k, false));  // no wait before: a worker late, not a busy DAG
  CHECK_FALSE(m.waited(k, false));
  CHECK_FALSE(m.waited(k, true));  // the one before found none
  CHECK(m.waited(k, false));
}

TEST_CASE("mold: a node whose tasks ran elsewhere is tried up to kLeaderTries times", "[mold]") {
  // Tasks queued at node 1 are all taken by node 0's workers: node 1 has no
  // time. It is tried again, up to kLeaderTries tasks, then left.
  MoldModel m;
  int fn;
  int to1 = 0, decisions = 0;
  MoldModel::LeaderChoice c;
  while ((c = m.choose_leader(&fn, 0, 2)).exploring && ++decisions < 4 * MoldModel::kLeaderTries) {
    to1 += c.leader == 1;
    run(m, {&fn, 0, 0}, 2, 1, 1, [](int) { return 1e5; });  // ran on node 0
  }
  CHECK(to1 == MoldModel::kLeaderTries);
  CHECK(c.leader == 0);
  // With no time anywhere, no preference once every node was tried.
  MoldModel none;
  for (int i = 0; i < 2 * MoldModel::kLeaderTries; ++i) REQUIRE(none.choose_leader(&fn, 0, 2).exploring);
  CHECK(none.choose_leader(&fn, 0, 2).leader == -1);
}

TEST_CASE("mold: a task's function names the regions its tasks open", "[mold]") {
  MoldModel m;
  int task_a, task_b, region_a, region_b;
  CHECK(m.region_opened_by(&task_a) == nullptr);
  m.opened_by(&task_a, &region_a);
  m.opened_by(&task_b, &region_b);
  CHECK(m.region_opened_by(&task_a) == &region_a);
  CHECK(m.region_opened_by(&task_b) == &region_b);
  m.opened_by(&task_a, &region_b);
  CHECK(m.region_opened_by(&task_a) == &region_b);
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

TEST_CASE("mold: a width the idle workers do not allow is not explored until they do", "[mold]") {
  // A DAG with as many chains as workers: nobody idles when a step opens
  // its region. Width 2 would be a trial whose member waits for a busy
  // worker; the model runs width 1 and names width 2 as the wider choice,
  // so that the caller waits a moment for a worker and explores it then.
  int fn;
  MoldModel::Key k{&fn, 0};
  auto t = [](int w) { return 1e6 / w; };
  MoldModel m;
  std::vector<int> busy = run(m, k, 2, 0, 40, t);
  CHECK(busy == std::vector<int>(40, 1));
  CHECK(m.estimate(k, 2).second == 0);
  MoldModel::Decision d = m.choose(k, 2, 0);
  CHECK(d.width == 1);
  CHECK(d.wider == 2);
  CHECK(d.wider_exploring);
  CHECK(d.wider_ns == 0);
  // Once a worker idles, width 2's trials, back to back, then the fastest.
  std::vector<int> freed = run(m, k, 2, 1, 2 * MoldModel::trials(2), t);
  CHECK(std::vector<int>(freed.begin(), freed.begin() + MoldModel::trials(2)) ==
        std::vector<int>(std::size_t(MoldModel::trials(2)), 2));
  CHECK(settled(freed) == 2);
  // Explored, it is the wider choice by its estimate, not a trial.
  MoldModel::Decision again = m.choose(k, 2, 0);
  CHECK(again.width == 1);
  CHECK(again.wider == 2);
  CHECK(!again.wider_exploring);
  CHECK(again.wider_ns == Approx(5e5));
}

TEST_CASE("mold: waits that keep finding no room stop, but for a probe", "[mold]") {
  // Two chains on two workers: width 2 is faster (measured while a worker
  // was free), but at each decision the other worker runs the other chain,
  // and every wait for it costs the region its length.
  int fn;
  MoldModel::Key k{&fn, 0};
  auto t = [](int w) { return 1e6 / w; };
  MoldModel m;
  run(m, k, 2, 1, MoldModel::trials(1) + MoldModel::trials(2), t);
  for (int i = 0; i < MoldModel::kWaitMisses; ++i) {
    MoldModel::Decision d = m.choose(k, 2, 0);
    CHECK(d.wider == 2);
    m.waited(k, false);
  }
  int named = 0, decisions = 4 * int(MoldModel::kWaitProbe);
  for (int i = 0; i < decisions; ++i) {
    MoldModel::Decision d = m.choose(k, 2, 0);
    REQUIRE(d.width == 1);
    if (d.wider) {
      ++named;
      m.waited(k, false);
    }
  }
  CHECK(named == decisions / int(MoldModel::kWaitProbe));
  // A probe that finds room: waiting is worth it again.
  m.waited(k, true);
  CHECK(m.choose(k, 2, 0).wider == 2);
}

TEST_CASE("mold: retries lose at most their share: a much slower width is retried rarely", "[mold]") {
  int fn;
  MoldModel::Key k{&fn, 0};
  int explored = MoldModel::trials(1) + MoldModel::trials(2);
  // Width 1 takes 2.5 times as long as width 2: a retry loses 1.5 regions'
  // time, which 1/64 of each decision's pays for in 96 decisions; each
  // retry that finds it as slow again halves the share, down to an eighth.
  auto retries_of = [&](const std::vector<int>& chosen, int from) {
    std::vector<int> r;
    for (std::size_t i = std::size_t(from); i < chosen.size(); ++i)
      if (chosen[i] == 1) r.push_back(int(i) - from);
    return r;
  };
  auto slow1 = [](int w) { return w == 1 ? 2.5e5 : 1e5; };
  MoldModel m;
  std::vector<int> chosen = run(m, k, 2, 1, explored + 2300, slow1);
  CHECK(retries_of(chosen, explored) == std::vector<int>{95, 95 + 192, 95 + 192 + 384, 95 + 192 + 384 + 768,
                                                        95 + 192 + 384 + 2 * 768});
  // The share stays halved while retries find width 1 as slow: the third
  // retry comes 384 decisions after the second. Width 1 has become faster
  // meanwhile; that retry finds it, and it is the choice from then on.
  MoldModel p;
  chosen = run(p, k, 2, 1, explored + 300, slow1);
  CHECK(retries_of(chosen, explored) == std::vector<int>{95, 287});
  chosen = run(p, k, 2, 1, 500, [](int w) { return w == 1 ? 0.9e5 : 1e5; });
  auto first1 = std::find(chosen.begin(), chosen.end(), 1);
  CHECK(first1 - chosen.begin() == 95 + 192 + 384 - 300);
  CHECK(std::count(first1, chosen.end(), 2) <= (chosen.end() - first1) / MoldModel::kRetry);
  // As fast (flat: width 1 is chosen, the cheapest): width 2 is retried
  // every kRetry decisions, the least interval.
  MoldModel f;
  chosen = run(f, k, 2, 1, explored + 100, [](int) { return 1e5; });
  int at2 = 0;
  for (std::size_t i = std::size_t(explored); i < chosen.size(); ++i) at2 += chosen[i] == 2;
  CHECK(at2 == 100 / MoldModel::kRetry);
}

// The model and the gang's placement together, on modelled machines: a
// nested region opened by a chain's task on worker `creator` while every
// other worker idles (a chain alone: the DAG has no other work), its team
// the creator's worker and the first width - 1 candidates in the order
// reserve_gang takes them (order_candidates, nearest the creator first).
// The region's time is modelled from the domains its team spans.
namespace {

using bobbin::sched::Level;
using bobbin::sched::Topology;

struct Machine {
  std::unique_ptr<Topology> topo;
  std::vector<uint8_t> near;
  int n = 0;
};

Machine& machine_for(const std::string& desc) {
  static Machine m;
  std::string error;
  m.topo = Topology::synthetic(desc, {0}, &error);
  INFO(desc << ": " << error);
  REQUIRE(m.topo);
  m.n = m.topo->num_pus();
  m.near = bobbin::sched::core_nearness(*m.topo);
  bobbin::sched::set_worker_nearness(
      [](int a, int b) { return int(m.near[std::size_t(a) * std::size_t(m.n) + std::size_t(b)]); });
  return m;
}

std::vector<int> team_of(const Machine& m, int creator, int width) {
  std::vector<int> others;
  for (int i = 1; i < m.n; ++i) others.push_back((creator + i) % m.n);  // id order after the creator's
  bobbin::sched::order_candidates(others, creator, [](int) { return 0; });
  std::vector<int> team{creator};
  team.insert(team.end(), others.begin(), others.begin() + (width - 1));
  return team;
}

// The distinct level-l domains the team's workers (one per core, PU w) are in, and how many members each has.
std::vector<int> members_per_domain(const Machine& m, const std::vector<int>& team, Level l) {
  std::vector<const bobbin::sched::TopoNode*> seen;
  std::vector<int> count;
  for (int w : team) {
    const bobbin::sched::TopoNode* d = &m.topo->ancestor_at(w, l);
    std::size_t k = 0;
    while (k < seen.size() && seen[k] != d) ++k;
    if (k == seen.size()) {
      seen.push_back(d);
      count.push_back(0);
    }
    ++count[k];
  }
  return count;
}

// Runs `decisions` regions; returns the last team.
std::vector<int> run_placed(const Machine& m, int creator, int decisions,
                            const std::function<double(const std::vector<int>&)>& t) {
  MoldModel model;
  int fn;
  std::vector<int> team;
  for (int i = 0; i < decisions; ++i) {
    MoldModel::Decision d = model.choose({&fn, 0}, m.n, m.n - 1);
    team = team_of(m, creator, d.width);
    model.record({&fn, 0}, d.width, uint64_t(t(team)));
  }
  return team;
}

}  // namespace

TEST_CASE("mold and placement: a memory-bound chain widens across NUMA nodes, a cache-bound one stays in one L3",
          "[mold][gang]") {
  bobbin::sched::WorkerNearness before = bobbin::sched::worker_nearness();
  // 16 workers: two NUMA nodes (packages) of two L3s of 4 cores; 64: four
  // packages of two NUMA nodes of two L3s of 4 cores.
  for (const char* desc : {"pack:2 numa:1 l3:2 core:4 pu:1", "pack:4 numa:2 l3:2 core:4 pu:1"}) {
    Machine& m = machine_for(desc);
    INFO(desc);
    // Stream-triad-like: a NUMA node's bandwidth saturates at 2 cores.
    auto triad = [&](const std::vector<int>& team) {
      double bw = 0;
      for (int k : members_per_domain(m, team, Level::Numa)) bw += k < 2 ? k : 2;
      return 4e6 / bw + 2e3 * double(team.size());
    };
    // MatMul-like on a block that fits one L3: a team spread over several
    // L3s refetches it from memory (each further L3 adds 3e5 ns).
    auto matmul = [&](const std::vector<int>& team) {
      return 1e6 / double(team.size()) + 3e5 * double(members_per_domain(m, team, Level::L3).size() - 1);
    };
    // Worker 5: the second core of its L3 (ids after it leave the L3 at 8).
    for (int creator : {0, 5}) {
      INFO("creator " << creator);
      std::vector<int> team = run_placed(m, creator, 200, triad);
      CHECK(int(team.size()) == m.n);  // every node's bandwidth
      CHECK(members_per_domain(m, team, Level::Numa).size() > 1);
      team = run_placed(m, creator, 200, matmul);
      CHECK(team.size() == 4);  // a whole L3, and no more
      CHECK(members_per_domain(m, team, Level::L3).size() == 1);
    }
  }
  bobbin::sched::set_worker_nearness(before);
}
