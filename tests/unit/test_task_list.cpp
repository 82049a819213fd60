// The task list: the deque (owner LIFO, thief FIFO) and the ordered part
// (smallest key first; after the deque for the owner, before it for thieves),
// with the constrained pops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "scheduler/task_list.hpp"

using bobbin::sched::TaskList;

namespace {

// Items are small integers disguised as pointers.
void* item(uintptr_t v) { return reinterpret_cast<void*>(v); }
uintptr_t val(void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

TEST_CASE("deque: the owner pops the newest, a thief the oldest") {
  TaskList l;
  for (uintptr_t v = 1; v <= 3; ++v) l.push_bottom(item(v));
  CHECK(l.size() == 3);
  CHECK(val(l.pop_bottom()) == 3);
  CHECK(val(l.pop_top()) == 1);
  CHECK(val(l.pop_bottom()) == 2);
  CHECK(l.pop_bottom() == nullptr);
  CHECK(l.pop_top() == nullptr);
  CHECK(l.size() == 0);
}

TEST_CASE("ordered part: smallest key first, after the deque for the owner, before it for thieves") {
  TaskList l;
  l.push_ordered(item(30), 30);
  l.push_bottom(item(1));
  l.push_ordered(item(10), 10);
  l.push_ordered(item(20), 20);
  l.push_bottom(item(2));
  CHECK(l.size() == 5);
  CHECK(val(l.pop_top()) == 10);     // thief: the ordered part first
  CHECK(val(l.pop_bottom()) == 2);   // owner: the deque first
  CHECK(val(l.pop_bottom()) == 1);
  CHECK(val(l.pop_bottom()) == 20);  // then the ordered part
  CHECK(val(l.pop_top()) == 30);
  CHECK(l.size() == 0);
  CHECK(l.pop_top() == nullptr);
}

TEST_CASE("ordered part: random keys come out sorted, through either end and removals in the middle") {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    TaskList l;
    std::vector<uintptr_t> keys;
    int n = 1 + int(rng() % 300);
    for (int i = 0; i < n; ++i) {
      uintptr_t k = 1 + rng() % 1000;
      keys.push_back(k);
      l.push_ordered(item(k), k);
    }
    // Take out a few odd keys from the middle first (a constrained pop that
    // refuses everything else), then drain.
    std::vector<uintptr_t> out;
    for (int i = 0; i < 5; ++i) {
      void* p = l.pop_top_if([](void* q) { return val(q) % 2 == 1; });
      if (!p) break;
      CHECK(val(p) % 2 == 1);
      out.push_back(val(p));
    }
    CHECK(std::is_sorted(out.begin(), out.end()));
    std::vector<uintptr_t> rest;
    while (void* p = (rest.size() % 2 ? l.pop_top() : l.pop_bottom())) rest.push_back(val(p));
    CHECK(std::is_sorted(rest.begin(), rest.end()));
    rest.insert(rest.end(), out.begin(), out.end());
    std::sort(rest.begin(), rest.end());
    std::sort(keys.begin(), keys.end());
    CHECK(rest == keys);
    CHECK(l.size() == 0);
  }
}

TEST_CASE("constrained pops") {
  TaskList l;
  l.push_ordered(item(5), 5);
  l.push_ordered(item(6), 6);
  l.push_bottom(item(100));
  // The owner's constrained pop takes the newest accepted item of the deque,
  // else the smallest accepted key.
  CHECK(val(l.pop_bottom_if([](void* p) { return val(p) != 100; })) == 5);
  l.push_bottom(item(101));
  l.push_bottom(item(102));
  l.push_bottom(item(103));
  // An accepted item under newer ones that are not: found, and the rest keep their order.
  CHECK(val(l.pop_bottom_if([](void* p) { return val(p) == 101; })) == 101);
  CHECK(l.pop_bottom_if([](void*) { return false; }) == nullptr);
  CHECK(val(l.pop_bottom_if([](void*) { return true; })) == 103);
  CHECK(val(l.pop_bottom_if([](void*) { return true; })) == 102);
  CHECK(val(l.pop_bottom_if([](void*) { return true; })) == 100);
  // Then at the smallest accepted key.
  CHECK(val(l.pop_bottom_if([](void* p) { return val(p) == 6; })) == 6);
  l.push_ordered(item(5), 5);
  CHECK(l.pop_top_if([](void*) { return false; }) == nullptr);
  CHECK(val(l.pop_top_if([](void*) { return true; })) == 5);
  CHECK(l.size() == 0);
}

TEST_CASE("steal_half: one item from the ordered part, else half the deque") {
  TaskList l;
  for (uintptr_t v = 1; v <= 4; ++v) l.push_bottom(item(v));
  l.push_ordered(item(50), 50);
  l.push_ordered(item(40), 40);
  std::vector<void*> got;
  CHECK(l.steal_half(got) == 1);
  CHECK(val(got[0]) == 40);
  got.clear();
  CHECK(val(l.pop_top()) == 50);
  CHECK(l.steal_half(got) == 2);
  CHECK(val(got[0]) == 1);
  CHECK(val(got[1]) == 2);
  CHECK(l.size() == 2);
}
