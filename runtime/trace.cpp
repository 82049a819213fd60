// The runtime's side of the trace: see trace.hpp. The fiber describer
// reads the OpenMP thread a fiber carries (its user pointer) when a worker
// switches to it: the fiber is not running then, so its descriptor holds
// still (it was last written by the fiber itself on this worker, or, for a
// member not started yet, by its master before queueing it), and its
// team's identity is read-only while the team has members.
#include "runtime/trace.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "config.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "scheduler/gang.hpp"
#include "ult/trace.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt {

namespace {

Atomic<uint32_t> g_next_team{1};  // the program's own teams (level 0) are 0

// Switch records keep: a[0] team, a[1] thread number, a[2] gang id (0: not
// a gang), a[3] nesting level.
void label(const ult::Fiber* f, uint32_t out[4]) {
  auto* t = static_cast<const Thread*>(f->user());
  if (!t || !t->team) return;
  const Team* team = t->team;
  out[0] = team->trace_id;
  out[1] = uint32_t(t->tid);
  out[2] = uint32_t(sched::gang_id(team->gang_key));
  out[3] = uint32_t(team->level);
}

void title(const ult::trace::Record& r, char* buf, std::size_t n) {
  if (r.a[3] == 0) snprintf(buf, n, "initial thread");
  else snprintf(buf, n, "team %u thread %u", r.a[0], r.a[1]);
}

void args(const ult::trace::Record& r, const uint32_t*, int, ult::trace::Json& o) {
  o.num("team", r.a[0]);
  o.num("thread", r.a[1]);
  o.num("gang", r.a[2]);
  o.num("level", r.a[3]);
}

}  // namespace

void trace_init() {
  std::string path = settings().trace_file;
  if (path.empty()) return;
  // "%p" stands for the process id: every process that loads Bobbin with the
  // variable set writes its own file (a program that starts others).
  for (std::size_t at; (at = path.find("%p")) != std::string::npos;) path.replace(at, 2, std::to_string(getpid()));
  if (!ult::trace::start(path.c_str(), "BOBBIN_TRACE")) return;
  ult::trace::describe_fibers({&label, &title, &args});
  ult::trace::add_meta("bobbin_version", BOBBIN_VERSION);
}

uint32_t next_team_trace_id() {
  return ult::trace::on() ? g_next_team.fetch_add(1, memory_order_relaxed) : 0;
}

void trace_thread_changed(const Thread* t) {
  if (!ult::trace::on()) return;
  ult::Fiber* f = ult::Worker::current_fiber();
  if (f && f->user() == t) ult::trace::relabel();
}

}  // namespace bobbin::rt
