// The tree scheduler (scheduler/tree_sched.hpp) on modelled 16- and
// 64-worker machines: its shape, the dynamic threshold (rises under a
// flood from one producer, falls when leaves starve), overflow handed to an
// idle leaf, an idle leaf finding work held under a busy leaf's threshold,
// a constrained scan looking again only at what was pushed since, and no
// item lost or taken twice when 16 threads push and take at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/topology.hpp"
#include "scheduler/tree_sched.hpp"

using namespace bobbin::sched;

namespace {

void* item(uintptr_t v) { return reinterpret_cast<void*>(v); }
uintptr_t val(void* p) { return reinterpret_cast<uintptr_t>(p); }

struct Machine {
  std::unique_ptr<Topology> topo;
  Placement placement;
};

Machine model(const std::string& desc) {
  std::string error;
  Machine m;
  m.topo = Topology::synthetic(desc, {}, &error);
  INFO(desc << ": " << error);
  REQUIRE(m.topo);
  m.placement = make_placement(*m.topo, Level::PU);
  return m;
}

std::size_t total_queued(const TreeScheduler& s) {
  std::size_t n = 0;
  for (int i = 0; i < s.num_nodes(); ++i) n += s.queued_at_node(i);
  return n;
}

const Filter kAny{};

}  // namespace

TEST_CASE("tree: one leaf per worker, inner nodes where the machine branches", "[tree]") {
  for (auto [desc, leaves] : {std::pair<const char*, int>{"pack:2 core:8 pu:1", 16}, {"pack:2 numa:2 core:16 pu:1", 64}}) {
    Machine m = model(desc);
    TreeScheduler s(m.placement, -1);
    INFO(desc);
    REQUIRE(s.num_leaves() == leaves);
    CHECK(s.parent_of(s.root()) == -1);
    CHECK(s.root() >= s.num_leaves());
    std::vector<int> children(std::size_t(s.num_nodes()), 0);
    for (int i = 0; i < s.num_nodes(); ++i) {
      if (i == s.root()) continue;
      int depth = 0;
      for (int a = i; a != s.root(); a = s.parent_of(a)) REQUIRE(++depth < 16);  // every path reaches the root
      ++children[std::size_t(s.parent_of(i))];
    }
    for (int i = s.num_leaves(); i < s.num_nodes(); ++i) CHECK(children[std::size_t(i)] >= 2);
    CHECK(s.threshold() == 0);
  }
}

TEST_CASE("tree: the threshold rises under a flood from one producer and falls when leaves starve", "[tree]") {
  for (const char* desc : {"pack:2 core:8 pu:1", "pack:2 numa:2 core:16 pu:1"}) {
    Machine m = model(desc);
    TreeScheduler s(m.placement, -1);
    INFO(desc);
    constexpr uintptr_t kFlood = 20000;
    for (uintptr_t v = 1; v <= kFlood; ++v) s.push(0, item(v));
    CHECK(s.threshold() == TreeScheduler::kMaxThreshold);
    CHECK(s.raises() >= 8);  // 0, 2, 4, ..., 256
    CHECK(total_queued(s) == kFlood);
    CHECK(s.queued_at_node(0) <= TreeScheduler::kMaxThreshold);
    // What the producer's throttle sees: its path, so that it runs new tasks
    // at their creation instead of queueing without end at the root.
    CHECK(s.queued(0) >= 256);
    CHECK(s.queued_at_node(s.root()) > 0);

    // Every other leaf starves: its path up to the root is all it has.
    // Each ask of the root halves the threshold.
    std::size_t before = s.threshold();
    std::vector<int> got(kFlood + 1, 0);
    std::size_t taken = 0;
    for (int round = 0; round < 10; ++round)
      for (int leaf = 1; leaf < s.num_leaves(); ++leaf) {
        Found f = s.find(leaf, leaf, kAny, {});
        if (f.item) ++got[val(f.item)], ++taken;
      }
    CHECK(s.threshold() < before);
    CHECK(s.threshold() == 0);
    CHECK(s.lowers() >= 8);
    // Drain: everything comes out once.
    for (;;) {
      bool any = false;
      for (int leaf = 0; leaf < s.num_leaves(); ++leaf) {
        void* p = s.pop_own(leaf, kAny);
        if (!p) p = s.find(leaf, leaf, kAny, {}).item;
        if (p) ++got[val(p)], ++taken, any = true;
      }
      if (!any) break;
    }
    CHECK(taken == kFlood);
    for (uintptr_t v = 1; v <= kFlood; ++v) REQUIRE(got[v] == 1);
    CHECK_FALSE(s.any_queued());
  }
}

TEST_CASE("tree: overflow goes to an idle leaf under the same node, not to the root", "[tree]") {
  Machine m = model("pack:2 core:8 pu:1");
  TreeScheduler s(m.placement, -1);
  // Leaf 5 shares a package with leaf 0 (tree order); it finds nothing and is marked idle.
  REQUIRE(s.parent_of(5) == s.parent_of(0));
  CHECK(s.find(5, 5, kAny, {}).item == nullptr);
  CHECK(s.leaf_idle(5));
  s.push(0, item(42));  // threshold 0: the item moves up at once
  CHECK(s.queued(0) == 0);
  CHECK(s.queued(5) == 1);
  CHECK_FALSE(s.leaf_idle(5));
  CHECK(s.queued_at_node(s.root()) == 0);
  CHECK(s.raises() == 0);
  CHECK(val(s.pop_own(5, kAny)) == 42);
}

TEST_CASE("tree: an idle leaf finds work held under a busy leaf's threshold", "[tree]") {
  Machine m = model("pack:2 numa:2 core:16 pu:1");
  TreeScheduler s(m.placement, 16);  // fixed
  for (uintptr_t v = 1; v <= 10; ++v) s.push(0, item(v));
  CHECK(s.queued(0) == 10);  // under the threshold: nothing moved up
  Found f = s.find(63, 63, kAny, {});
  REQUIRE(f.item != nullptr);
  CHECK(f.list == 0);
  CHECK(val(f.item) == 1);  // the oldest, as a thief takes
  CHECK(s.threshold() == 16);
}

TEST_CASE("tree: a constrained find takes only accepted items, from anywhere up the path", "[tree]") {
  Machine m = model("pack:2 core:8 pu:1");
  TreeScheduler s(m.placement, -1);
  for (uintptr_t v = 1; v <= 600; ++v) s.push(3, item(v));
  // Accept one item only, deep in whichever list it went to.
  Filter only77{[](const void*, void* p) { return val(p) == 77; }, nullptr};
  void* p = s.pop_own(3, only77);
  if (!p) p = s.find(3, 3, only77, {}).item;
  REQUIRE(p != nullptr);
  CHECK(val(p) == 77);
  CHECK(total_queued(s) == 599);
}

TEST_CASE("tree: a constrained scan looks again only at what was pushed since it found nothing", "[tree]") {
  Machine m = model("pack:2 core:8 pu:1");
  TreeScheduler s(m.placement, 64);  // fixed: everything stays on leaf 3
  for (uintptr_t v = 1; v <= 40; ++v) s.push(3, item(v));
  // Counts the items the filter is asked about; accepts values above 100.
  struct Ctx {
    int asked = 0;
  } ctx;
  ScanMemo memo;
  Filter big{[](const void* c, void* p) {
               ++const_cast<Ctx*>(static_cast<const Ctx*>(c))->asked;
               return val(p) > 100;
             },
             &ctx, &memo};
  CHECK(s.pop_own(3, big) == nullptr);
  CHECK(ctx.asked == 40);
  CHECK(s.pop_own(3, big) == nullptr);
  CHECK(ctx.asked == 40);  // unchanged since: not scanned again
  s.push(3, item(5));
  s.push(3, item(101));
  s.push(3, item(6));
  ctx.asked = 0;
  void* p = s.pop_own(3, big);
  REQUIRE(p != nullptr);
  CHECK(val(p) == 101);
  CHECK(ctx.asked == 2);  // only what came since, newest first
  ctx.asked = 0;
  ++memo.epoch;  // the thread's task changed: every list is scanned again
  CHECK(s.pop_own(3, big) == nullptr);
  CHECK(ctx.asked == 42);
  CHECK(total_queued(s) == 42);
}

TEST_CASE("tree: 16 threads pushing and taking lose no item and take none twice", "[tree][stress]") {
  for (const char* desc : {"pack:2 core:8 pu:1", "pack:2 numa:2 core:16 pu:1"}) {
    for (int threshold : {-1, 0, 4}) {
      Machine m = model(desc);
      TreeScheduler s(m.placement, threshold);
      INFO(desc << " threshold " << threshold);
      constexpr int kThreads = 16;
      constexpr uintptr_t kPerThread = 20000;
      std::vector<std::atomic<uint8_t>> seen(kThreads * kPerThread + 1);
      std::atomic<uint64_t> taken{0}, twice{0};
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      std::atomic<bool> late{false};
      auto body = [&](int t) {
        int leaf = t * s.num_leaves() / kThreads;
        std::mt19937 rng(uint32_t(t + 1));
        uintptr_t next = uintptr_t(t) * kPerThread + 1, end = next + kPerThread;
        auto take_one = [&] {
          void* p = s.pop_own(leaf, kAny);
          if (!p) p = s.find(leaf, t, kAny, {}).item;
          if (!p) return false;
          if (seen[val(p)].fetch_add(1) != 0) twice.fetch_add(1);
          taken.fetch_add(1);
          return true;
        };
        while (next < end) {
          // Producers at a third of the threads; the others mostly consume.
          int pushes = t % 3 == 0 ? 1 + int(rng() % 8) : int(rng() % 2);
          for (int i = 0; i < pushes && next < end; ++i) s.push(leaf, item(next++));
          take_one();
        }
        while (taken.load() < kThreads * kPerThread) {
          if (std::chrono::steady_clock::now() > deadline) {
            late = true;
            return;
          }
          if (!take_one()) std::this_thread::yield();
        }
      };
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
      for (auto& th : threads) th.join();
      INFO("taken " << taken.load() << " of " << kThreads * kPerThread << ", queued " << total_queued(s));
      REQUIRE_FALSE(late);  // a lost item: never taken within the time
      CHECK(twice.load() == 0);
      CHECK(taken.load() == kThreads * kPerThread);
      CHECK_FALSE(s.any_queued());
    }
  }
}
