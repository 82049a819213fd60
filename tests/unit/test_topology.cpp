// The topology tree: collapse of synthetic machines, ancestor_at, places,
// BOBBIN_TOPOLOGY, and the real machine.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/gang.hpp"
#include "scheduler/steal_policy.hpp"
#include "scheduler/topology.hpp"
#include "ult/pin.hpp"
#include "ult_helpers.hpp"

using namespace bobbin;
using namespace bobbin::sched;

namespace {

using LevelCounts = std::vector<std::pair<Level, int>>;

LevelCounts level_counts(const Topology& t) {
  LevelCounts out;
  for (Level l : t.levels()) out.emplace_back(l, int(t.nodes(l).size()));
  return out;
}

std::string show(const LevelCounts& lc) {
  std::string s;
  for (auto& [l, n] : lc) s += std::string(level_name(l)) + ":" + std::to_string(n) + " ";
  return s;
}

std::unique_ptr<Topology> make(const std::string& desc, const std::vector<int>& cpus = {}) {
  std::string error;
  std::unique_ptr<Topology> t = Topology::synthetic(desc, cpus, &error);
  INFO(desc << ": " << error);
  REQUIRE(t);
  return t;
}

// Every structural promise of the header, checked on a whole tree.
void check_consistent(const Topology& t) {
  const TopoNode& root = t.root();
  REQUIRE(root.parent == nullptr);
  REQUIRE(root.level == Level::Machine);
  REQUIRE(root.depth == 0);
  REQUIRE(root.first_pu == 0);
  REQUIRE(root.end_pu == t.num_pus());
  REQUIRE(t.num_pus() > 0);

  std::size_t visited = 0;
  std::vector<const TopoNode*> stack{&root};
  while (!stack.empty()) {
    const TopoNode* n = stack.back();
    stack.pop_back();
    ++visited;
    REQUIRE(n->index >= 0);
    REQUIRE(n->index < int(t.nodes(n->level).size()));
    REQUIRE(t.nodes(n->level)[std::size_t(n->index)] == n);
    if (n->children.empty()) {
      // Leaves are exactly the PUs, in order.
      REQUIRE(n->level == Level::PU);
      REQUIRE(n->end_pu == n->first_pu + 1);
      REQUIRE(&t.pu(n->first_pu) == n);
      REQUIRE(n->os_index >= 0);
      continue;
    }
    REQUIRE(n->level != Level::PU);
    REQUIRE(n->os_index == -1);
    // The children's ranges partition the parent's, in order.
    int next = n->first_pu;
    for (const TopoNode* c : n->children) {
      REQUIRE(c->parent == n);
      REQUIRE(c->depth == n->depth + 1);
      REQUIRE(c->first_pu == next);
      REQUIRE(c->end_pu > c->first_pu);
      next = c->end_pu;
      stack.push_back(c);
    }
    REQUIRE(next == n->end_pu);
  }
  std::size_t listed = 0;
  for (Level l : t.levels()) listed += t.nodes(l).size();
  REQUIRE(visited == listed);

  // The collapse reached its fixpoint: each level between root and leaves
  // still splits something somewhere.
  for (Level l : t.levels()) {
    if (l == Level::Machine || l == Level::PU) continue;
    const auto& ns = t.nodes(l);
    INFO("level " << level_name(l));
    CHECK(std::any_of(ns.begin(), ns.end(),
                      [](const TopoNode* n) { return n->children.size() > 1 && n->parent->children.size() > 1; }));
  }

  // ancestor_at always contains the PU; domains are its distinct answers.
  for (int l = 0; l < kNumLevels; ++l) {
    std::set<const TopoNode*> seen;
    for (int i = 0; i < t.num_pus(); ++i) {
      const TopoNode& a = t.ancestor_at(i, Level(l));
      REQUIRE(a.first_pu <= i);
      REQUIRE(i < a.end_pu);
      seen.insert(&a);
    }
    REQUIRE(t.domains(Level(l)).size() == seen.size());
  }
  REQUIRE(&t.ancestor_at(0, Level::Machine) == &root);

  std::size_t in_places = 0;
  for (const auto& p : t.core_places()) {
    REQUIRE(!p.empty());
    in_places += p.size();
  }
  REQUIRE(in_places == std::size_t(t.num_pus()));
}

// Collects what the code under test writes to stderr (file descriptor 2).
class StderrCapture {
 public:
  StderrCapture() : file_(std::tmpfile()), saved_(dup(2)) {
    REQUIRE(file_);
    std::fflush(stderr);
    dup2(fileno(file_), 2);
  }
  ~StderrCapture() { restore(); }
  std::string finish() {
    restore();
    std::string out;
    std::rewind(file_);
    for (int c; (c = std::fgetc(file_)) != EOF;) out += char(c);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::FILE* file_;
  int saved_;
};

// Sets an environment variable for one scope and puts the old value back.
class EnvScope {
 public:
  EnvScope(const char* name, const char* value) : name_(name) {
    const char* old = getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~EnvScope() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_;
  std::string old_;
};

}  // namespace

TEST_CASE("topology: synthetic shapes collapse to the levels that branch", "[topology]") {
  struct Shape {
    const char* desc;
    LevelCounts expected;
  };
  using L = Level;
  const Shape shapes[] = {
      // Everything branches: nothing is removed.
      {"pack:2 numa:2 l3:2 core:4 pu:2",
       {{L::Machine, 1}, {L::Package, 2}, {L::Numa, 4}, {L::L3, 8}, {L::Core, 32}, {L::PU, 64}}},
      // One PU per core: the PU stands for its core.
      {"core:8 pu:1", {{L::Machine, 1}, {L::PU, 8}}},
      // One package: it is the machine.
      {"pack:1 core:4 pu:2", {{L::Machine, 1}, {L::Core, 4}, {L::PU, 8}}},
      // Package = Core = PU: the PU survives.
      {"pack:2 core:1 pu:1", {{L::Machine, 1}, {L::PU, 2}}},
      {"numa:4 core:2 pu:1", {{L::Machine, 1}, {L::Numa, 4}, {L::PU, 8}}},
      // Private L2 and L1 per core go; the core (two PUs) stays.
      {"pack:2 l3:2 l2:2 l1:1 core:1 pu:2", {{L::Machine, 1}, {L::Package, 2}, {L::L3, 4}, {L::Core, 8}, {L::PU, 16}}},
      // hwloc's own spellings.
      {"package:2 core:2 pu:2", {{L::Machine, 1}, {L::Package, 2}, {L::Core, 4}, {L::PU, 8}}},
      {"node:2 core:2 pu:1", {{L::Machine, 1}, {L::Numa, 2}, {L::PU, 4}}},
      // One NUMA node per package: the Package level goes, the NUMA one stays.
      {"pack:2 numa:1 core:2 pu:2", {{L::Machine, 1}, {L::Numa, 2}, {L::Core, 4}, {L::PU, 8}}},
      // The shape of a small laptop: one package, one NUMA node, a shared L3.
      {"pack:1 numa:1 l3:1 l2:2 l1:1 core:1 pu:1", {{L::Machine, 1}, {L::PU, 2}}},
      // NUMA above packages: the tree need not follow the enum's order.
      {"numa:2 pack:2 core:2 pu:1", {{L::Machine, 1}, {L::Package, 4}, {L::Numa, 2}, {L::PU, 8}}},
      // Nested L3s: the outer ones branch, so the level stays, inner ones too.
      {"pack:2 l3:2 l3:2 pu:1", {{L::Machine, 1}, {L::Package, 2}, {L::L3, 12}, {L::PU, 8}}},
  };
  for (const Shape& s : shapes) {
    INFO(s.desc);
    auto t = make(s.desc);
    LevelCounts expected = s.expected;
    std::sort(expected.begin(), expected.end());
    INFO("got " << show(level_counts(*t)) << " expected " << show(expected));
    CHECK(level_counts(*t) == expected);
    CHECK(t->is_synthetic());
    CHECK(t->description() == s.desc);
    check_consistent(*t);
  }
}

TEST_CASE("topology: ancestor_at on a tree where every level branches", "[topology]") {
  auto t = make("pack:2 numa:2 l3:2 core:4 pu:2");
  const int pu = 37;  // any PU off the first branch at every level
  CHECK(&t->ancestor_at(pu, Level::Machine) == &t->root());
  CHECK(&t->ancestor_at(pu, Level::Package) == t->nodes(Level::Package)[37 / 32]);
  CHECK(&t->ancestor_at(pu, Level::Numa) == t->nodes(Level::Numa)[37 / 16]);
  CHECK(&t->ancestor_at(pu, Level::L3) == t->nodes(Level::L3)[37 / 8]);
  CHECK(&t->ancestor_at(pu, Level::Core) == t->nodes(Level::Core)[37 / 2]);
  CHECK(&t->ancestor_at(pu, Level::PU) == &t->pu(pu));
  // Levels the machine does not have: the deepest shallower ancestor.
  CHECK(&t->ancestor_at(pu, Level::L2) == t->nodes(Level::L3)[37 / 8]);
  CHECK(&t->ancestor_at(pu, Level::L1) == t->nodes(Level::L3)[37 / 8]);
  CHECK(t->domains(Level::L3).size() == 8);
  CHECK(t->domains(Level::L1).size() == 8);
}

TEST_CASE("topology: ancestor_at of a removed level is the node with the same PUs", "[topology]") {
  SECTION("one PU per core: the core is the PU") {
    auto t = make("numa:4 core:2 pu:1");
    CHECK(&t->ancestor_at(5, Level::Core) == &t->pu(5));
    CHECK(&t->ancestor_at(5, Level::Numa) == t->nodes(Level::Numa)[2]);
    CHECK(&t->ancestor_at(5, Level::L3) == t->nodes(Level::Numa)[2]);  // absent: the NUMA node above
    CHECK(&t->ancestor_at(5, Level::Package) == &t->root());           // absent: the machine
    CHECK(t->domains(Level::Core).size() == 8);
    CHECK(t->domains(Level::Numa).size() == 4);
    CHECK(t->domains(Level::Package).size() == 1);
  }
  SECTION("a single package is the machine") {
    auto t = make("pack:1 core:4 pu:2");
    CHECK(&t->ancestor_at(3, Level::Package) == &t->root());
    CHECK(&t->ancestor_at(3, Level::Core) == t->nodes(Level::Core)[1]);
  }
  SECTION("package = core = PU: both are the PU") {
    auto t = make("pack:2 core:1 pu:1");
    CHECK(&t->ancestor_at(1, Level::Package) == &t->pu(1));
    CHECK(&t->ancestor_at(1, Level::Core) == &t->pu(1));
    CHECK(t->domains(Level::Package).size() == 2);
  }
  SECTION("private L2 and L1 are the core") {
    auto t = make("pack:2 l3:2 l2:2 l1:1 core:1 pu:2");
    CHECK(&t->ancestor_at(5, Level::L2) == t->nodes(Level::Core)[2]);
    CHECK(&t->ancestor_at(5, Level::L1) == t->nodes(Level::Core)[2]);
    CHECK(&t->ancestor_at(5, Level::L3) == t->nodes(Level::L3)[1]);
    CHECK(&t->ancestor_at(5, Level::Package) == t->nodes(Level::Package)[0]);
  }
  SECTION("a package with one NUMA node is that node") {
    auto t = make("pack:2 numa:1 core:2 pu:2");
    CHECK(&t->ancestor_at(6, Level::Package) == t->nodes(Level::Numa)[1]);
  }
}

TEST_CASE("topology: synthetic PUs map round-robin onto the real processors", "[topology]") {
  auto t = make("core:4 pu:2", {3, 5, 7});
  const int expected_os[] = {3, 5, 7, 3, 5, 7, 3, 5};
  REQUIRE(t->num_pus() == 8);
  for (int i = 0; i < 8; ++i) CHECK(t->pu(i).os_index == expected_os[i]);
  CHECK(t->core_places() == std::vector<std::vector<int>>{{3, 5}, {7, 3}, {5, 7}, {3, 5}});
  check_consistent(*t);

  // With no real processors given, hwloc's own numbering stays.
  auto own = make("core:4 pu:2");
  for (int i = 0; i < 8; ++i) CHECK(own->pu(i).os_index == i);
}

TEST_CASE("topology: core_places is one place per core of the full tree", "[topology]") {
  std::vector<int> cpus(64);
  for (int i = 0; i < 64; ++i) cpus[std::size_t(i)] = i;
  SECTION("two PUs per core") {
    auto t = make("pack:2 numa:2 l3:2 core:4 pu:2", cpus);
    auto places = t->core_places();
    REQUIRE(places.size() == 32);
    CHECK(places[0] == std::vector<int>{0, 1});
    CHECK(places[31] == std::vector<int>{62, 63});
  }
  SECTION("the core level was removed") {
    auto t = make("pack:2 core:1 pu:1", cpus);
    CHECK(t->core_places() == std::vector<std::vector<int>>{{0}, {1}});
  }
  SECTION("no core level at all: each PU is a place") {
    auto t = make("pack:2 pu:3", cpus);
    CHECK(t->core_places().size() == 6);
  }
}

TEST_CASE("placement: each worker core's NUMA domain (task memory pools)", "[topology]") {
  std::vector<int> cpus(64);
  for (int i = 0; i < 64; ++i) cpus[std::size_t(i)] = i;
  SECTION("two packages of two nodes of eight cores") {
    auto t = make("pack:2 numa:2 core:8 pu:2", cpus);
    Placement p = make_placement(*t, Level::PU);
    REQUIRE(p.numa_of_worker_core.size() == 32);
    for (int core = 0; core < 32; ++core) CHECK(p.numa_of_worker_core[std::size_t(core)] == core / 8);
    CHECK(p.list_of_numa.size() == 4);
  }
  SECTION("no NUMA level: one domain") {
    auto t = make("pack:1 core:4 pu:1", cpus);
    Placement p = make_placement(*t, Level::Core);
    REQUIRE(p.numa_of_worker_core.size() == 4);
    for (int d : p.numa_of_worker_core) CHECK(d == 0);
    CHECK(p.list_of_numa.empty());
  }
}

TEST_CASE("topology: to_string draws the collapsed tree", "[topology]") {
  auto t = make("pack:2 core:1 pu:2", {0, 1, 2, 3});
  CHECK(t->to_string() ==
        "Machine\n"
        "  Core#0\n"
        "    PU#0 (os 0)\n"
        "    PU#1 (os 1)\n"
        "  Core#1\n"
        "    PU#2 (os 2)\n"
        "    PU#3 (os 3)\n");
}

TEST_CASE("topology: level names parse and print", "[topology]") {
  Level l;
  CHECK((parse_level("pu", &l) && l == Level::PU));
  CHECK((parse_level("core", &l) && l == Level::Core));
  CHECK((parse_level("L3", &l) && l == Level::L3));
  CHECK((parse_level("numa", &l) && l == Level::Numa));
  CHECK((parse_level("machine", &l) && l == Level::Machine));
  CHECK((parse_level("package", &l) && l == Level::Package));
  CHECK(!parse_level("socket-ish", &l));
  CHECK(!parse_level("", &l));
  CHECK(std::string(level_name(Level::Numa)) == "NUMA");
  CHECK(std::string(level_name(Level::PU)) == "PU");
}

TEST_CASE("topology: bad synthetic descriptions are refused", "[topology]") {
  for (const char* bad : {"", "pack:two", "pack:2 bogus:3 pu:1", "pack:0 pu:2", "core:8 pu:1 extra"}) {
    INFO("'" << bad << "'");
    std::string error;
    CHECK(!Topology::synthetic(bad, {0}, &error));
    CHECK(!error.empty());
    CHECK(!Topology::synthetic(bad, {0}));  // no error string wanted
  }
  std::string error;
  CHECK(!Topology::synthetic("pack:64 core:1024 pu:8", {0}, &error));  // would take minutes to build
  CHECK(error.find("8192") != std::string::npos);
}

TEST_CASE("topology: BOBBIN_TOPOLOGY picks a synthetic machine, or warns once and falls back", "[topology]") {
  const std::vector<int> allowed = ult::allowed_cpus();
  SECTION("a valid description") {
    EnvScope env("BOBBIN_TOPOLOGY", "pack:2 core:2 pu:1");
    StderrCapture err;
    auto t = Topology::discover();
    CHECK(err.finish().empty());
    REQUIRE(t->is_synthetic());
    CHECK(t->description() == "pack:2 core:2 pu:1");
    REQUIRE(t->num_pus() == 4);
    for (int i = 0; i < 4; ++i) CHECK(t->pu(i).os_index == allowed[std::size_t(i) % allowed.size()]);
  }
  SECTION("a bad description") {
    EnvScope env("BOBBIN_TOPOLOGY", "pack:2 bogus:3");
    StderrCapture err;
    auto t = Topology::discover();
    std::string said = err.finish();
    REQUIRE(t);
    CHECK(!t->is_synthetic());
    CHECK(t->num_pus() == int(allowed.size()));
    CHECK(std::count(said.begin(), said.end(), '\n') == 1);
    CHECK(said.find("BOBBIN_TOPOLOGY") != std::string::npos);
    CHECK(said.find("pack:2 bogus:3") != std::string::npos);
    CHECK(said.find("real machine") != std::string::npos);
  }
  SECTION("unset") {
    EnvScope env("BOBBIN_TOPOLOGY", nullptr);
    auto t = Topology::discover();
    CHECK(!t->is_synthetic());
  }
}

TEST_CASE("topology: the real machine", "[topology]") {
  const std::vector<int> allowed = ult::allowed_cpus();
  REQUIRE(!allowed.empty());
  auto t = Topology::machine(allowed);
  INFO(t->to_string());
  CHECK(!t->is_synthetic());
  REQUIRE(t->num_pus() == int(allowed.size()));
  std::vector<int> seen;
  for (int i = 0; i < t->num_pus(); ++i) seen.push_back(t->pu(i).os_index);
  std::sort(seen.begin(), seen.end());
  CHECK(seen == allowed);  // each allowed processor exactly once
  check_consistent(*t);

  std::vector<int> in_places;
  for (const auto& p : t->core_places()) in_places.insert(in_places.end(), p.begin(), p.end());
  std::sort(in_places.begin(), in_places.end());
  CHECK(in_places == allowed);

  SECTION("restricted to one processor") {
    auto one = Topology::machine({allowed.back()});
    REQUIRE(one->num_pus() == 1);
    CHECK(one->pu(0).os_index == allowed.back());
    CHECK(one->levels() == std::vector<Level>{Level::Machine, Level::PU});
    CHECK(one->core_places() == std::vector<std::vector<int>>{{allowed.back()}});
    check_consistent(*one);
  }
  SECTION("restricted to processors it does not have: warns, uses all") {
    StderrCapture err;
    auto all = Topology::machine({-1, 1 << 20});
    std::string said = err.finish();
    CHECK(std::count(said.begin(), said.end(), '\n') == 1);
    CHECK(all->num_pus() >= t->num_pus());
  }
}

TEST_CASE("gangs take the workers nearest their creator first, least loaded before", "[topology][gang]") {
  // Two packages of four cores: worker w on core w.
  std::unique_ptr<Topology> t = make("pack:2 core:4 pu:1");
  static std::vector<uint8_t> near;
  near = core_nearness(*t);
  REQUIRE(near.size() == 64);
  CHECK(near[1 * 8 + 2] > near[1 * 8 + 4]);   // same package before the other
  CHECK(near[1 * 8 + 2] == near[1 * 8 + 0]);  // and within it, all alike
  CHECK(near[5 * 8 + 5] > near[5 * 8 + 6]);   // a core is nearest itself
  WorkerNearness before = worker_nearness();
  set_worker_nearness([](int a, int b) { return int(near[std::size_t(a % 8) * 8 + std::size_t(b % 8)]); });
  // Built in id order after the creator, as reserve_gang does.
  std::vector<int> others{2, 3, 4, 5, 6, 7, 0};
  order_candidates(others, 1, [](int) { return 0; });
  CHECK(others == std::vector<int>{2, 3, 0, 4, 5, 6, 7});
  others = {2, 3, 4, 5, 6, 7, 0};
  order_candidates(others, 1, [](int w) { return w == 2 ? 1 : 0; });  // worker 2 carries a member already
  CHECK(others == std::vector<int>{3, 0, 4, 5, 6, 7, 2});
  others = {6, 7, 0, 1, 2, 3, 4};  // from worker 5: its package's 6, 7, 4 first
  order_candidates(others, 5, [](int) { return 0; });
  CHECK(others == std::vector<int>{6, 7, 4, 0, 1, 2, 3});
  set_worker_nearness(before);
}

namespace bobbin::sched {
// The run-queue hooks of gang.cpp (installed by worker_loop.cpp).
void gang_fiber_taken(ult::Worker& w, ult::Fiber* f);
void gang_fiber_finished(ult::Worker& w, ult::Fiber* f);
}  // namespace bobbin::sched

TEST_CASE("a gang member is stolen only from inside its gang's subtree (a bubble stays together)", "[topology][gang]") {
  // Two packages of four cores, worker w on core w; a gang of 3 made on
  // worker 0 takes workers 0, 1 and 2 (package 0).
  std::unique_ptr<Topology> t = make("pack:2 core:4 pu:1");
  static std::vector<uint8_t> near;
  near = core_nearness(*t);
  test::PoolScope pool(8);
  WorkerNearness before = worker_nearness();
  set_worker_nearness([](int a, int b) { return int(near[std::size_t(a % 8) * 8 + std::size_t(b % 8)]); });
  GangReservation r = reserve_gang(0, 3, 0, false, false, [](const GangReservation&) {});
  REQUIRE(r.workers == std::vector<int>{0, 1, 2});
  CHECK_FALSE(claim_for_steal(5, 1, r.key));  // an idle worker of the other package may not
  CHECK_FALSE(claim_for_steal(4, 2, r.key));
  CHECK(claim_for_steal(3, 1, r.key));  // one of the same package may: the member is now worker 3's
  // Give everything back: the master's fork, worker 2's member run and
  // finished there, the stolen one finished on worker 3.
  ult::Fiber member;
  member.set_order_key(r.key);
  gang_master_enter(r.key);
  gang_fiber_taken(*ult::Worker::at(2), &member);
  gang_fiber_finished(*ult::Worker::at(2), &member);
  gang_fiber_finished(*ult::Worker::at(3), &member);
  gang_master_leave(r.key);
  CHECK(gang_stacks() == std::vector<std::string>(8));

  // More workers than cores (worker w on core w mod 4 of two packages of
  // 2): a gang on one core, workers 0 and 4, may be taken up by the other
  // core of its package, not by the other package.
  static std::unique_ptr<Topology> small = make("pack:2 core:2 pu:1");
  near = core_nearness(*small);
  set_worker_nearness([](int a, int b) { return int(near[std::size_t(a % 4) * 4 + std::size_t(b % 4)]); });
  r = reserve_gang(0, 2, 0, false, false, [](const GangReservation&) {});
  REQUIRE(r.workers == std::vector<int>{0, 4});
  CHECK_FALSE(claim_for_steal(2, 4, r.key));
  CHECK(claim_for_steal(1, 4, r.key));
  member.set_order_key(r.key);
  gang_master_enter(r.key);
  gang_fiber_finished(*ult::Worker::at(1), &member);
  gang_master_leave(r.key);
  CHECK(gang_stacks() == std::vector<std::string>(8));
  set_worker_nearness(before);
}
