// Reductions: a tree gather over the team's threads.
//
// Each thread's private copies live on its own stack, and the compiler hands
// us an array of pointers to them plus a combine(lhs, rhs) function. Thread i
// combines its children 2i+1 and 2i+2 into its own copies, then announces
// arrival; thread 0 ends up holding the team's result and is the one thread
// told to combine it into the original variables. O(log n) depth, no lock.
//
// Invariant: a thread returns from reduce_begin only after its private data
// can no longer be read — i.e. after the release, which thread 0 gives once
// the whole tree is combined (nowait) or when the construct ends (blocking,
// which doubles as the construct's barrier).
//   thread i: 1. data[i] = its copies;  2. for each child c: wait arrived[c] == seq, combine(data[i], data[c]);
//             3. i != 0: arrived[i] = seq (release), wait released >= seq, return false;
//             4. i == 0: nowait: release now; return true (blocking: release at reduce_end).
// seq counts reductions met in this team, so the flags need no resetting.
#include "runtime/api.hpp"
#include "runtime/team.hpp"

namespace bobbin::rt {

// The teams of a league (host teams) each combine their team's result into
// the same original variables, one after another: a team of one is told to
// combine (1), and without this lock two teams' initial threads did so at
// once and one team's part was lost (a conformance run of teams distribute
// parallel for reduction: 2 in 400 runs). The word of a critical section
// (sync.cpp), for every league: they meet here only at a reduction's end.
alignas(8) static uint32_t g_league_combine = 0;

static bool combines_for_a_league(const Team* team) { return team->nthreads == 1 && team->league_size > 1; }

static void release_reduction(Team* team, uint32_t seq) {
  team->red_released.store(seq, memory_order_release);  // pairs with the acquire in step 3
  team->red_ww.notify_all();
}

int reduce_begin(void* data, void (*combine)(void* lhs, void* rhs), bool blocking, bool atomic_ok) {
  Thread* t = current_thread_fast();
  Team* team = t->team;
  int n = team->nthreads;
  if (combines_for_a_league(team)) critical_begin(&g_league_combine);  // critical_end: reduce_end
  if (n == 1) return 1;
  // nowait with an atomic form: no gather at all; what follows the construct
  // (a barrier, or the region's join) is the only wait, as the spec asks.
  // Every thread decides alike (same team, same call site), so red_seq stays
  // in step. A blocking reduction keeps the tree, which is its barrier too.
  if (atomic_ok && !blocking) return 2;
  uint32_t seq = ++t->red_seq;
  int i = t->tid;
  team->red_data[std::size_t(i)] = data;
  for (int c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c) {
    Atomic<uint32_t>* flag = &team->red_arrived[std::size_t(c)];
    // acquire: pairs with the child's release in step 3, so its data is complete.
    team->red_ww.wait([&] { return flag->load(memory_order_acquire) == seq; });
    combine(data, team->red_data[std::size_t(c)]);
  }
  if (i != 0) {
    team->red_arrived[std::size_t(i)].store(seq, memory_order_release);
    team->red_ww.notify_all();
    team->red_ww.wait([&] { return int32_t(team->red_released.load(memory_order_acquire) - seq) >= 0; });
    return 0;
  }
  return 1;
}

void reduce_end(bool blocking) {
  (void)blocking;
  Thread* t = current_thread_fast();
  if (combines_for_a_league(t->team)) critical_end(&g_league_combine);
  if (t->team->nthreads == 1 || t->tid != 0) return;
  release_reduction(t->team, t->red_seq);
}

}  // namespace bobbin::rt
