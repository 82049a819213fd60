// A symbol `name@node` that jumps to another function: the way this library
// answers a versioned name whose definition lives elsewhere under another
// name or node (abi/libgomp_versions.cpp: libgomp's nodes; ult/
// glibc_compat_linux.cpp: the C library's older nodes).
//
// Why a jump and not an alias. An alias must be defined in the translation
// unit that defines its target, and GNU ld folds `name@node` into `name` when
// both sit at the same address in one object, dropping `name@@default`. A
// jump keeps a table of such names in one place, needs no change where the
// functions are defined, and costs one direct or GOT-indirect jump per call.
// The caller's return address is untouched (the target sees its caller).
//
// BOBBIN_SYMVER_JUMP("label", "name@node", target) becomes, in .text:
//     .globl  label                 (local to the library: bobbin.map's `local: *`)
//     .symver label, name@node
//   label:
//     jmp     target                (through the GOT; ld relaxes it to a direct
//                                    jump when target is not preemptible)
// Each label must be unique in the library.
#pragma once

#define BOBBIN_SYMVER_STR2(x) #x
#define BOBBIN_SYMVER_STR(x) BOBBIN_SYMVER_STR2(x)

#if defined(__x86_64__)
#if defined(__CET__)
#define BOBBIN_SYMVER_LANDING "endbr64\n"  // an indirect-branch target under IBT (reached through the caller's PLT)
#else
#define BOBBIN_SYMVER_LANDING ""
#endif
#define BOBBIN_SYMVER_BRANCH(target) BOBBIN_SYMVER_LANDING "jmp *" #target "@GOTPCREL(%rip)\n"
#define BOBBIN_SYMVER_FUNCTION_TYPE "@function"
#elif defined(__aarch64__)
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define BOBBIN_SYMVER_LANDING "bti c\n"
#else
#define BOBBIN_SYMVER_LANDING ""
#endif
#define BOBBIN_SYMVER_BRANCH(target) BOBBIN_SYMVER_LANDING "b " #target "\n"
#define BOBBIN_SYMVER_FUNCTION_TYPE "%function"
#else
#error "ult/symver_jump.hpp: add this architecture's jump"
#endif

#define BOBBIN_SYMVER_JUMP(label, versioned, target) \
  __asm__(".pushsection .text\n"                     \
          ".p2align 4\n"                             \
          ".globl " label "\n"                       \
          ".type " label ", " BOBBIN_SYMVER_FUNCTION_TYPE "\n" \
          ".symver " label ", " versioned "\n"       \
          label ":\n"                                \
          BOBBIN_SYMVER_BRANCH(target)               \
          ".size " label ", . - " label "\n"         \
          ".popsection\n");
