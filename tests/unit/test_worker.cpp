// Workers: cross-worker resume, the park/wake protocols under stress, pool growth.
#include <set>
#include <vector>

#include "tests/unit/ult_helpers.hpp"

using namespace bobbin;
using namespace bobbin::ult;
using bobbin::test::PoolScope;
using bobbin::test::wait_until;
using bobbin::test::Watchdog;

TEST_CASE("a fiber parked on worker 1 is resumed from worker 0 and stays on worker 1", "[ult][worker]") {
  PoolScope pool(2);
  static std::atomic<int> stage{0};
  static std::atomic<int> where_before{-1}, where_after{-1};
  stage = 0;
  Fiber f;
  f.prepare(
      [](Fiber*) {
        where_before = Worker::current()->id();
        stage = 1;
        while (stage.load() < 2) Worker::park();
        where_after = Worker::current()->id();
      },
      nullptr);
  Worker::at(1)->submit(&f);
  REQUIRE(wait_until([] { return stage.load() == 1; }));
  stage = 2;
  Worker::unpark(&f);
  REQUIRE(wait_until([&] { return f.reusable(); }));
  REQUIRE(where_before == 1);
  REQUIRE(where_after == 1);
}

TEST_CASE("a fiber's wait for work holds again when it resumes after another fiber noted and took back its own",
          "[ult][worker]") {
  PoolScope pool(2);
  static std::atomic<int> stage{0};
  stage = 0;
  static Fiber a, b;
  b.prepare(
      [](Fiber*) {
        Worker::note_waiting_for_work(true);  // as a gang member waiting at its join
        Worker::note_waiting_for_work(false);
        stage = 1;
      },
      nullptr);
  a.prepare(
      [](Fiber*) {
        Worker::note_waiting_for_work(true);  // as a thread at a barrier with no task to run
        Worker::current()->submit(&b);
        while (stage.load() < 1) Worker::yield();
        while (stage.load() < 2) cpu_relax();  // resumed, still waiting: the worker is available
        Worker::note_waiting_for_work(false);
        stage = 3;
        while (stage.load() < 4) cpu_relax();  // running, not waiting: it is not
      },
      nullptr);
  Worker::at(1)->submit(&a);
  REQUIRE(wait_until([] { return stage.load() == 1; }));
  REQUIRE(wait_until([&] { return b.reusable(); }));
  CHECK(Worker::at(1)->available());
  stage = 2;
  REQUIRE(wait_until([] { return stage.load() == 3; }));
  CHECK_FALSE(Worker::at(1)->available());
  stage = 4;
  REQUIRE(wait_until([&] { return a.reusable(); }));
}

namespace {
// Two fibers on two workers hand a token back and forth: each waits (parks)
// until the token is its own. Any lost wake-up stops the exchange for good,
// which the watchdog turns into a failure naming the handoff count.
struct PingPong {
  std::atomic<long> turn{0};  // even: fiber 0's turn, odd: fiber 1's
  long rounds = 0;
  Fiber fibers[2];
};
PingPong* g_pp;
std::atomic<long> g_progress;

void player(Fiber* self) {
  long me = reinterpret_cast<intptr_t>(self->user());
  PingPong& pp = *g_pp;
  Fiber* other = &pp.fibers[1 - me];
  for (long i = me; i < pp.rounds; i += 2) {
    while (pp.turn.load(std::memory_order_acquire) != i) Worker::park();
    pp.turn.store(i + 1, std::memory_order_release);
    g_progress.store(i + 1, std::memory_order_relaxed);
    Worker::unpark(other);
  }
}

const char* progress() {
  static char buf[64];
  snprintf(buf, sizeof buf, "%ld handoffs done", g_progress.load());
  return buf;
}

void run_ping_pong(long rounds, uint64_t spin_ns, double budget_s) {
  PoolScope pool(3, spin_ns);
  Watchdog dog("park/wake ping-pong", budget_s);
  dog.progress_ = &progress;
  PingPong pp;
  pp.rounds = rounds;
  g_pp = &pp;
  g_progress = 0;
  for (intptr_t i = 0; i < 2; ++i) pp.fibers[i].prepare(&player, reinterpret_cast<void*>(i));
  Worker::at(1)->submit(&pp.fibers[0]);
  Worker::at(2)->submit(&pp.fibers[1]);
  REQUIRE(wait_until([&] { return pp.fibers[0].reusable() && pp.fibers[1].reusable(); }, budget_s));
  REQUIRE(pp.turn.load() == rounds);
}
}  // namespace

TEST_CASE("1e6 handoffs between workers lose no wake-up (spinning workers)", "[ult][worker][stress]") {
  run_ping_pong(1'000'000, 1'000'000, 120);
}

TEST_CASE("handoffs between workers that sleep at once lose no wake-up", "[ult][worker][stress]") {
  // spin 0: every idle moment goes through the futex sleep protocol.
  run_ping_pong(100'000, 0, 120);
}

TEST_CASE("the pool grows at run time and every worker runs its fibers", "[ult][worker]") {
  PoolScope pool(2);
  REQUIRE(Worker::pool_size() == 2);
  Worker::ensure_pool(5, nullptr);
  REQUIRE(Worker::pool_size() == 5);
  static std::atomic<int> ran_on[5];
  std::vector<Fiber> fibers(5);
  for (int i = 0; i < 5; ++i) {
    ran_on[i] = -1;
    fibers[size_t(i)].prepare(
        [](Fiber* f) { ran_on[reinterpret_cast<intptr_t>(f->user())] = Worker::current()->id(); },
        reinterpret_cast<void*>(intptr_t(i)));
    Worker::at(i)->submit(&fibers[size_t(i)]);
  }
  REQUIRE(wait_until([&] {
    for (auto& f : fibers)
      if (!f.reusable()) return false;
    return true;
  }));
  for (int i = 0; i < 5; ++i) REQUIRE(ran_on[i] == i);
}

TEST_CASE("many fibers park and are woken from a plain thread", "[ult][worker][stress]") {
  PoolScope pool(2, 0);
  constexpr int kFibers = 64;
  static std::atomic<int> release{0}, done{0};
  release = 0;
  done = 0;
  std::vector<Fiber> fibers(kFibers);
  for (int i = 0; i < kFibers; ++i) {
    fibers[size_t(i)].prepare(
        [](Fiber*) {
          while (release.load(std::memory_order_acquire) == 0) Worker::park();
          done.fetch_add(1);
        },
        nullptr);
    Worker::at(i % 2)->submit(&fibers[size_t(i)]);
  }
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release.store(1, std::memory_order_release);
    for (auto& f : fibers) Worker::unpark(&f);
  });
  REQUIRE(wait_until([] { return done.load() == kFibers; }, 30));
  waker.join();
  REQUIRE(wait_until([&] {
    for (auto& f : fibers)
      if (!f.reusable()) return false;
    return true;
  }));
}

TEST_CASE("a pool can be shut down and started again", "[ult][worker]") {
  for (int round = 0; round < 3; ++round) {
    PoolScope pool(3);
    Fiber f;
    static std::atomic<int> ran;
    ran = 0;
    f.prepare([](Fiber*) { ran = 1; }, nullptr);
    Worker::at(2)->submit(&f);
    REQUIRE(wait_until([&] { return f.reusable(); }));
    REQUIRE(ran == 1);
  }
  REQUIRE(Worker::pool_size() == 0);
}
