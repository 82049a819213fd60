// Exports every libomp entry point that Bobbin does not implement yet (the
// list is unsupported.inc); calling one prints its name and aborts. These
// definitions never read their arguments, so one signature serves all.
#include "abi/abi_types.hpp"
#include "runtime/api.hpp"

#define BOBBIN_UNSUPPORTED(name) \
  BOBBIN_EXPORT void name() { bobbin::rt::unsupported(#name); }
#include "abi/unsupported.inc"
