// The symbols a gcc-built program asks libgomp.so.1 for: `name@node` for
// every row of libgomp_versions.inc, each a one-instruction jump to the
// Bobbin function that serves it (whose own symbol stays at node VERSION).
//
// Why a jump and not an alias. An alias must be defined in the translation
// unit that defines its target, and GNU ld folds `name@node` into `name` when
// both sit at the same address in one object, dropping `name@@VERSION` (so
// libomp, which uses aliases, renames every definition). A jump keeps the
// table in one place, needs no change where the entry points are defined,
// and costs one direct or GOT-indirect jump per call.
//
// Each row becomes, in .text:
//     .globl  _bobbin_libgomp_<row>          (local to the library: bobbin.map's `local: *`)
//     .symver _bobbin_libgomp_<row>, name@node
//   _bobbin_libgomp_<row>:
//     jmp     target                          (through the GOT; ld relaxes it to a
//                                              direct jump when target is not preemptible)
#include "abi/abi_types.hpp"

#define BOBBIN_STR2(x) #x
#define BOBBIN_STR(x) BOBBIN_STR2(x)

#if defined(__x86_64__)
#if defined(__CET__)
#define BOBBIN_LANDING "endbr64\n"  // an indirect-branch target under IBT (reached through the caller's PLT)
#else
#define BOBBIN_LANDING ""
#endif
#define BOBBIN_JUMP(target) BOBBIN_LANDING "jmp *" #target "@GOTPCREL(%rip)\n"
#define BOBBIN_FUNCTION_TYPE "@function"
#elif defined(__aarch64__)
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define BOBBIN_LANDING "bti c\n"
#else
#define BOBBIN_LANDING ""
#endif
#define BOBBIN_JUMP(target) BOBBIN_LANDING "b " #target "\n"
#define BOBBIN_FUNCTION_TYPE "%function"
#else
#error "abi/libgomp_versions.cpp: add this architecture's jump"
#endif

#define BOBBIN_ROW_SYMBOL "_bobbin_libgomp_" BOBBIN_STR(__LINE__)

#define BOBBIN_LIBGOMP_SYMBOL(name, node, target)                              \
  __asm__(".pushsection .text\n"                                              \
          ".p2align 4\n"                                                      \
          ".globl " BOBBIN_ROW_SYMBOL "\n"                                    \
          ".type " BOBBIN_ROW_SYMBOL ", " BOBBIN_FUNCTION_TYPE "\n"           \
          ".symver " BOBBIN_ROW_SYMBOL ", " #name "@" #node "\n"              \
          BOBBIN_ROW_SYMBOL ":\n"                                             \
          BOBBIN_JUMP(target)                                                 \
          ".size " BOBBIN_ROW_SYMBOL ", . - " BOBBIN_ROW_SYMBOL "\n"          \
          ".popsection\n");

#include "abi/libgomp_versions.inc"
