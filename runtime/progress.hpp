// The runtime's side of the progress monitor (progress.cpp).
#pragma once

#include "runtime/team.hpp"

namespace bobbin::rt {

// Installs the monitor's rescue hook (at initialisation).
void progress_init();
// Starts the monitor if it is not running (at every fork of a real team).
void start_progress_monitor();
// Whether a region with this body needed a rescue before: its members then
// get a spare kernel thread each (ult::Worker::take_spare). Also sets
// team->probe (a remembered region forking as fibers again) and clears
// team->rescued.
bool wants_own_threads(const RegionBody& body, Team* team);
// At the join: a probe fork that needed no rescue makes its region's memory
// start over.
void forget_rescues_if_probe_passed(const Team* team);

}  // namespace bobbin::rt
