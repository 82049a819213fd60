// Shared helpers of the policy files and their factories.
#pragma once

#include <memory>
#include <vector>

#include "scheduler/steal_policy.hpp"
#include "ult/atomic.hpp"

namespace bobbin::sched {

template <class T>
struct alignas(kCacheLine) Padded {
  T value{};
};

// Per-thief state, one cache line each so thieves never share a line.
template <class T>
class PerThief {
 public:
  PerThief() : v_(StealPolicy::kMaxThieves) {}
  explicit PerThief(std::vector<Padded<T>>&& init) : v_(std::move(init)) {}
  T& operator[](int i) { return v_[std::size_t(i)].value; }

 private:
  std::vector<Padded<T>> v_;
};

inline std::vector<Padded<Rng>> seeded_rngs() {
  std::vector<Padded<Rng>> v(StealPolicy::kMaxThieves);
  for (std::size_t i = 0; i < v.size(); ++i) v[i].value.s = 0x9E3779B97F4A7C15ull * (i + 1) | 1;
  return v;
}

std::unique_ptr<StealPolicy> make_hybrid();
std::unique_ptr<StealPolicy> make_random();
std::unique_ptr<StealPolicy> make_hierarchical();
std::unique_ptr<StealPolicy> make_round_robin();
std::unique_ptr<StealPolicy> make_random_order();
std::unique_ptr<StealPolicy> make_producer();
std::unique_ptr<StealPolicy> make_producer_order();

}  // namespace bobbin::sched
