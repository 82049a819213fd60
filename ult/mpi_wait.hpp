// Blocking MPI point-to-point calls on a fiber (mpi_wait.cpp).
#pragma once

namespace bobbin::ult {

// true (the default): a blocking call made on a worker waits as a fiber
// (lets the worker's other fibers run, gives the processor away while
// alone); false: every call is the MPI library's own (BOBBIN_MPI_WAIT=mpi).
void set_mpi_wait(bool fiber_waits);

}  // namespace bobbin::ult
