// What the progress monitor asks the OS about a worker's kernel thread: its
// processor time, and whether it sleeps in a system call. A worker that
// waits for a processor must not look stuck; one blocked in a read must.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include "ult/thread_info.hpp"

using namespace bobbin::ult;

namespace {

struct Probe {
  std::atomic<long> tid{0};
  std::atomic<bool> stop{false};
};

long wait_for_tid(Probe& p) {
  while (p.tid.load() == 0) std::this_thread::yield();
  return p.tid.load();
}

}  // namespace

TEST_CASE("a thread blocked in read() sleeps and uses no processor time", "[ult][thread_info]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  Probe p;
  std::thread t([&] {
    p.tid = native_thread_id();
    char c;
    (void)!read(fds[0], &c, 1);
  });
  long tid = wait_for_tid(p);
  // Until it is in read(), it runs: wait (bounded) for it to be seen asleep.
  bool blocked = false;
  for (int i = 0; i < 2000 && !blocked; ++i) {
    blocked = thread_blocked(tid);
    if (!blocked) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(blocked);
  uint64_t a = 0, b = 0;
  REQUIRE(thread_cpu_ns(tid, &a));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(thread_cpu_ns(tid, &b));
  CHECK(b - a < 5'000'000);  // asleep: well under the 20 ms that passed
  REQUIRE(write(fds[1], "x", 1) == 1);
  t.join();
  close(fds[0]);
  close(fds[1]);
}

TEST_CASE("a spinning thread is not asleep and its processor time grows", "[ult][thread_info]") {
  Probe p;
  std::thread t([&] {
    p.tid = native_thread_id();
    while (!p.stop.load(std::memory_order_relaxed)) {
    }
  });
  long tid = wait_for_tid(p);
  uint64_t a = 0, b = 0;
  REQUIRE(thread_cpu_ns(tid, &a));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(thread_blocked(tid));
  REQUIRE(thread_cpu_ns(tid, &b));
  CHECK(b > a);
  p.stop = true;
  t.join();
  // Gone: an error, not a crash. The kernel releases the thread a moment
  // after join returns (join waits for the thread id to be cleared, which
  // comes first), so ask for up to 2 s.
  uint64_t c = 0;
  bool gone = false;
  for (int i = 0; i < 2000 && !gone; ++i) {
    gone = !thread_cpu_ns(tid, &c);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(gone);
}
