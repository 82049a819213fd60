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
// A fiber that names `self` as its helper (ult::Fiber::helper), that no
// pool worker has started yet and for which pred(fiber, arg) holds, taken
// from the pool worker whose queue holds it; null if there is none.
ult::Fiber* take_helped(ult::Worker& self, bool (*pred)(const ult::Fiber*, const void*), const void* arg);

}  // namespace bobbin::sched
