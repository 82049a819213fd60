// What an entry point does for a tool (runtime/ompt.hpp): with one attached,
// it calls the traced form of its operation, which makes the callbacks, and
// passes the return address into the program.
#pragma once

#include "runtime/ompt.hpp"

#define BOBBIN_RA __builtin_return_address(0)
#define BOBBIN_TRACED(call) \
  if (::bobbin::rt::ompt::on()) [[unlikely]] return ::bobbin::rt::ompt::call
