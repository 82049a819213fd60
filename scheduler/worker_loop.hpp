// What an idle worker does beyond its own run queue: the hooks the scheduler
// installs into ult/, and how movable fibers are spread.
#pragma once

#include "ult/fiber.hpp"
#include "ult/worker.hpp"

namespace bobbin::sched {

// Installs the find-work hooks into ult/ (once, at start-up).
void install_worker_loop();
// Queues a movable, not-started fiber near `origin` and wakes a worker that
// sleeps, so that an idle worker steals it if origin is busy.
void spread(ult::Fiber* f, ult::Worker* origin);

}  // namespace bobbin::sched
