// Places, bind-var and the place-assignment rules of the spec (places.cpp).
#pragma once

#include <string>

#include <vector>

#include "runtime/team.hpp"

namespace bobbin::sched {
class Topology;
}

namespace bobbin::rt {

// Builds the place list from OMP_PLACES (or KMP_AFFINITY, or one place per
// core) and the bind-var list from OMP_PROC_BIND. Called once at start-up.
void places_init(const sched::Topology& topo);
// The abstract name the place list came from ("cores" when OMP_PLACES is
// unset or invalid), or "" for an explicit list.
const std::string& places_name();
// Whether the user asked for binding (so the initial thread is pinned too).
bool binding_requested();
// bind-var of the initial task, and the element for nesting position `pos`.
int initial_bind();
int bind_list_length();
int bind_at(int pos, int fallback);
Binding initial_binding();
// The places of the n members of a new team, by the spec's rules for `bind`.
void assign_places(const Binding& master, int bind, int n, std::vector<Binding>& out);
// Binds the calling program thread (not the initial one) to a place chosen
// by its number, and pins it there; its binding (unchanged when binding was
// not requested or there are no places).
Binding bind_root_thread(int number);
// Pins the calling worker (a pool worker or a spare) to `place` unless it
// already is. Async-signal-safe.
void follow_place(int place);
// The pool worker for a nested member bound to `place`: its creator's
// worker when that is pinned there and the place has one processor (the
// members could only take turns on it: fiber switches are cheaper than the
// OS's); else, of the workers follow_place pinned there, the one with the
// fewest fibers to run before it (an idle one first); worker place % pool
// when none is.
ult::Worker* worker_on_place(int place, ult::Worker* creator);
// On a spare that follow_place pinned to a place: pins it anywhere the
// process may run again, for a member that is not bound.
void leave_place();
// follow_place for a bound thread: also marks the running fiber with the
// place, so that its worker is pinned there again each time the fiber
// resumes (the worker may follow other fibers' places meanwhile).
void take_place(int place);
// The core the calling OpenMP thread is bound to when each place is one
// core (the default places, OMP_PLACES=cores): its place, that core's index
// in tree order. -1 when it is not bound, or places are not cores.
int bound_core();
// At an outermost fork, binding off: moves a worker pinned where the initial
// thread runs now to a free place (places.cpp says why). Initial thread only.
// Unpins every worker once the pool's workers and `others` (program threads
// outside the pool, in regions of their own) outnumber the places (unbound
// runs only; places.cpp says why).
void unpin_oversubscribed_pool(int nworkers, int others = 0);
void keep_initial_thread_apart(int nworkers);
// A pool worker's own pin as it starts, binding off: its place in that table.
void pin_unbound_worker(int id);

}  // namespace bobbin::rt
