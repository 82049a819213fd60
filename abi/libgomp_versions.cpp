// The symbols a gcc-built program asks libgomp.so.1 for: `name@node` for
// every row of libgomp_versions.inc, each a one-instruction jump to the
// Bobbin function that serves it (whose own symbol stays at node VERSION).
//
// Why a jump and not an alias: ult/symver_jump.hpp.
#include "abi/abi_types.hpp"
#include "ult/symver_jump.hpp"

#define BOBBIN_LIBGOMP_SYMBOL(name, node, target) \
  BOBBIN_SYMVER_JUMP("_bobbin_libgomp_" BOBBIN_SYMVER_STR(__LINE__), #name "@" #node, target)

#include "abi/libgomp_versions.inc"
