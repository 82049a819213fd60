// Whether the program keeps data of its own per kernel thread (thread_local_data.cpp).
#pragma once

#include <string>

namespace bobbin::rt {

// Whether some loaded module has a thread-local storage segment that is not
// one of the system and runtime libraries whose thread-local data is only
// used within one of their calls (the C and C++ runtimes, the OpenMP
// runtimes, hwloc's dependencies, the sanitizers): the executable when it
// has `__thread`, `thread_local` or `threadprivate` data (clang and gcc
// lower threadprivate to native TLS), or a library that does. Empty when
// there is none. Cheap after the first call while no module is loaded or
// unloaded; `module` (if not null) gets the module's name.
bool program_has_thread_local_data(std::string* module = nullptr);

// Around the runtime's own start-up (topology discovery): every module
// loaded between the two calls is the runtime's (hwloc's plugins and the
// libraries they need, such as an OpenCL loader with thread-local data
// that Open MPI's packages bring), and the scan above passes over it.
void begin_runtime_loads();
void end_runtime_loads();

}  // namespace bobbin::rt
