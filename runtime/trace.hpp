// The runtime's side of the trace (the recorder is ult/trace.hpp): turning
// it on from BOBBIN_TRACE, numbering teams, and describing each fiber as
// the OpenMP thread it runs (team, thread number, gang, nesting level).
// Tasks and steals are recorded by task.cpp.
#pragma once

#include <cstdint>

namespace bobbin::rt {

struct Thread;

// At initialisation, after the settings are read and before the pool
// starts: if BOBBIN_TRACE names a file, opens it and turns tracing on.
void trace_init();
// A number for a team's new region (when tracing is on; 0 otherwise).
uint32_t next_team_trace_id();
// t's team or thread number changed (a fork, a join): if t runs on the
// calling thread, its fiber's description in the trace changes from now.
void trace_thread_changed(const Thread* t);

}  // namespace bobbin::rt
