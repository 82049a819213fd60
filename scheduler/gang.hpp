// Gang scheduling of nested parallel regions (see gang.cpp and README.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace bobbin::sched {

// A gang's key is an opaque handle (0: not a gang) to the gang's path: the
// ids of its enclosing gangs, outermost first, then its own id. The gang
// order ("precedes") is lexicographic on paths, an enclosing gang before
// the gangs inside it, so a sub-gang of B comes before every gang that B
// comes before. A key stays valid while its gang has a member not finished
// or its master has not left (gang_master_leave).
bool key_before(uint64_t a, uint64_t b);

struct GangReservation {
  uint64_t key = 0;
  std::vector<int> workers;  // workers[0] is the creator's own
};

// How near two workers are on the machine: a larger number for nearer (the
// depth of their cores' common ancestor in the topology tree). Set once
// at start-up (runtime/team.cpp), before any gang; without it, workers
// are near in id order.
using WorkerNearness = int (*)(int a, int b);
void set_worker_nearness(WorkerNearness nearness);
WorkerNearness worker_nearness();

// The order in which a gang takes the candidates `others` (given in id
// order after the creator's): least loaded first (load(w): the members and
// masters reserved on worker w), then nearest the creator, then as given.
// Nearest before next: on two packages of 8, a team opened on worker 7
// took workers 8, 9 and 10, across the packages, with 0-6 free beside it.
template <class Load>
void order_candidates(std::vector<int>& others, int creator, Load load) {
  WorkerNearness near = worker_nearness();
  std::stable_sort(others.begin(), others.end(), [&](int a, int b) {
    int la = load(a), lb = load(b);
    if (la != lb) return la < lb;
    return near && near(creator, a) > near(creator, b);
  });
}

// Takes the next gang id and reserves up to `want` distinct workers: the
// creator's, then the least loaded others, nearest on the machine first (a
// nested team kept together under the cache or package its creator is in,
// as a bubble), among equals the next ids after the creator's first,
// among those that G6 and G7 allow; then calls queue_members(reservation),
// which must queue every member on its reserved worker, before any other
// gang is reserved (G2: reservations and the queueing of members happen in
// gang-id order). `enclosing`: the key of the innermost gang the creator is
// a thread of (0 if none); the new gang's path extends its path.
// `pool_only`: its members may run only on dedicated workers
// (ult::Fiber::pool_only), so no other worker is reserved. `idle_only`:
// only available workers are reserved besides the creator's: in their idle
// loop or running a thread that waits for work (ult::Worker::available; a
// region opened by an explicit task, runtime/team.cpp says why).
template <class QueueMembers>
GangReservation reserve_gang(int creator_worker, int want, uint64_t enclosing, bool pool_only, bool idle_only,
                             QueueMembers queue_members);
// The master of a gang runs it on its own fiber: it marks its worker as
// running the gang while it does, and gives the reservation back after.
void gang_master_enter(uint64_t key);
void gang_master_leave(uint64_t key);
// The fork of a gang is a scheduling point: before the master enters its
// gang, its worker runs any earlier gang's members reserved on it, and waits
// for earlier gangs' fibers started there to finish, except the master's own
// enclosing gangs (G4).
void run_earlier_gangs(uint64_t key);
// Stealing (G5): whether worker `thief` may take the not-started gang fiber
// with this key queued on worker `victim` (it hosts no gang, and lies in
// the smallest subtree, of more than one core, holding the gang's workers); if so the fiber is recorded as
// started on the thief. Only from steal_unstarted's predicate (under the
// victim's run-queue lock): a true answer means the fiber is taken.
bool claim_for_steal(int thief, int victim, uint64_t key);
// Gives back a reservation whose gang will not be formed (the region falls
// back to steal mode). Only inside queue_members.
void cancel_reservation(const GangReservation& r);

// Implementation of reserve_gang (the lock is held during `queue`).
void lock_reservations();
void unlock_reservations();
GangReservation reserve_gang_locked(int creator_worker, int want, uint64_t enclosing, bool pool_only,
                                    bool idle_only);

template <class QueueMembers>
GangReservation reserve_gang(int creator_worker, int want, uint64_t enclosing, bool pool_only, bool idle_only,
                             QueueMembers queue_members) {
  lock_reservations();
  GangReservation r = reserve_gang_locked(creator_worker, want, enclosing, pool_only, idle_only);
  queue_members(r);
  unlock_reservations();
  return r;
}

// A gang's own id and its depth (1 for a gang in no other gang), while its
// key is valid; 0 for key 0.
uint64_t gang_id(uint64_t key);
int gang_depth(uint64_t key);
// Registers the gang scheduler's trace events (scheduler/worker_loop.cpp,
// when tracing is on).
void add_gang_trace_kinds();

// Every worker's gangs, for a watchdog report: one line per worker, the
// paths (ids joined by '.') of the gangs active there, then of those
// reserved there and not started.
std::vector<std::string> gang_stacks();

}  // namespace bobbin::sched
