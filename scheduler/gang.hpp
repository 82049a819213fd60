// Gang scheduling of nested parallel regions (see gang.cpp and README.md).
#pragma once

#include <cstdint>
#include <vector>

namespace bobbin::sched {

// The gang order: lower nest level first, then lower (earlier) gang id. The
// key packs both so that "precedes" is "<"; 0 means "not a gang fiber".
inline uint64_t gang_key(int level, uint64_t id) {
  return (uint64_t(level) << 48) | (id & ((uint64_t(1) << 48) - 1));
}

struct GangReservation {
  uint64_t key = 0;
  std::vector<int> workers;  // workers[0] is the creator's own
};

// Takes the next gang id and reserves up to `want` distinct workers: the
// creator's, then the least loaded others, nearest (in id order) first; then
// calls queue_members(reservation), which must queue every member on its
// reserved worker, before any other gang is reserved (G2: reservations and
// the queueing of members happen in gang-id order).
// `ancestors`: the keys of the gangs the creator is (transitively) a member
// of; workers hosting an unfinished fiber of one of them are not reserved
// (G6), since that fiber may be waiting for the creator.
template <class QueueMembers>
GangReservation reserve_gang(int creator_worker, int want, int level, const std::vector<uint64_t>& ancestors,
                             QueueMembers queue_members);
// The master of a gang runs it on its own fiber: it marks its worker as
// running the gang while it does, and gives the reservation back after.
void gang_master_enter(uint64_t key);
void gang_master_leave(uint64_t key);
// The fork of a gang is a scheduling point: before the master enters its
// gang, its worker runs any earlier gang's members reserved on it, and waits
// for earlier gangs' fibers started there to finish, except the master's own
// enclosing gangs (G4).
void run_earlier_gangs(uint64_t key, const std::vector<uint64_t>& ancestors);
// Whether worker w may start a not-started gang fiber with this key: none of
// the gang fibers started and unfinished on w precedes it or is of its gang.
bool is_eligible(int w, uint64_t key);
// Gives back a reservation whose gang will not be formed (the region falls
// back to steal mode). Only inside queue_members.
void cancel_reservation(const GangReservation& r);

// Implementation of reserve_gang (the lock is held during `queue`).
void lock_reservations();
void unlock_reservations();
GangReservation reserve_gang_locked(int creator_worker, int want, int level, const std::vector<uint64_t>& ancestors);

template <class QueueMembers>
GangReservation reserve_gang(int creator_worker, int want, int level, const std::vector<uint64_t>& ancestors,
                             QueueMembers queue_members) {
  lock_reservations();
  GangReservation r = reserve_gang_locked(creator_worker, want, level, ancestors);
  queue_members(r);
  unlock_reservations();
  return r;
}

// The (gang id, level) stack of every worker, for a watchdog report.
std::vector<std::vector<uint64_t>> gang_stacks();

}  // namespace bobbin::sched
