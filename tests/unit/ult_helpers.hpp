// Shared helpers for the ult/ unit tests.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "ult/fiber.hpp"
#include "ult/worker.hpp"

namespace bobbin::test {

// Runs the test body with a pool of n workers and tears it down afterwards.
struct PoolScope {
  explicit PoolScope(int n, uint64_t spin_ns = 1'000'000) {
    ult::Worker::set_spin_ns(spin_ns);
    ult::Worker::ensure_pool(n, nullptr);
  }
  ~PoolScope() { ult::Worker::shutdown_pool(); }
};

// Waits on the root fiber (worker 0) until pred holds, letting worker 0's other
// fibers run; fails the test (instead of hanging) after `seconds`.
template <class Pred>
bool wait_until(Pred pred, double seconds = 30.0) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!pred()) {
    ult::Worker::yield();
    cpu_relax();
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

// Aborts the process with a message if a test body outlives its budget, so a
// lost wake-up fails the suite with a name instead of hanging CI.
class Watchdog {
 public:
  Watchdog(const char* what, double seconds) : what_(what) {
    thread_ = std::thread([this, seconds] {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
      while (!done_.load(std::memory_order_acquire)) {
        if (std::chrono::steady_clock::now() > deadline) {
          std::fprintf(stderr, "watchdog: '%s' still running after %.0f s (%s)\n", what_, seconds,
                       progress_ ? progress_() : "");
          std::abort();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~Watchdog() {
    done_.store(true, std::memory_order_release);
    thread_.join();
  }
  const char* (*progress_)() = nullptr;

 private:
  const char* what_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace bobbin::test
