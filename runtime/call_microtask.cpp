// bobbin_call_microtask_n (call_microtask.hpp): the System V x86-64 calling
// convention spelled out. The first four captured variables go in rdx, rcx,
// r8 and r9 (after gtid and tid in rdi and rsi), the others on the stack,
// the fifth at the lowest address, the stack 16-byte aligned at the call.
// rbp anchors the frame, so the variable-sized argument area needs nothing
// more for an unwinder than the frame-pointer rule below.
#include "runtime/call_microtask.hpp"

#if defined(__x86_64__)
__asm__(
    ".text\n"
    ".globl bobbin_call_microtask_n\n"
    ".hidden bobbin_call_microtask_n\n"
    ".type bobbin_call_microtask_n, @function\n"
    "bobbin_call_microtask_n:\n"
    "  .cfi_startproc\n"
    "  pushq %rbp\n"
    "  .cfi_def_cfa_offset 16\n"
    "  .cfi_offset %rbp, -16\n"
    "  movq %rsp, %rbp\n"
    "  .cfi_def_cfa_register %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  .cfi_offset %rbx, -24\n"
    "  .cfi_offset %r12, -32\n"
    "  .cfi_offset %r13, -40\n"
    "  .cfi_offset %r14, -48\n"
    "  .cfi_offset %r15, -56\n"
    "  subq $8, %rsp\n"  // five pushes after rbp's: back to a multiple of 16
    "  movq %rdi, %rbx\n"    // fn
    "  movq %rsi, %r12\n"    // gtid
    "  movq %rdx, %r13\n"    // tid
    "  movslq %ecx, %r15\n"  // argc
    "  movq %r8, %r14\n"     // argv
    "  testq %r9, %r9\n"
    "  jz 1f\n"
    "  movq %rbp, %rdi\n"
    "  callq *%r9\n"
    "1:\n"
    // argv[argc - 1] down to argv[4], after a pad when their count is odd.
    "  movq %r15, %rcx\n"
    "  cmpq $4, %rcx\n"
    "  jle 3f\n"
    "  testq $1, %rcx\n"
    "  jz 2f\n"
    "  subq $8, %rsp\n"
    "2:\n"
    "  decq %rcx\n"
    "  pushq (%r14,%rcx,8)\n"
    "  cmpq $4, %rcx\n"
    "  jg 2b\n"
    "3:\n"
    "  movq %r12, %rdi\n"
    "  movq %r13, %rsi\n"
    "  cmpq $1, %r15\n"
    "  jl 4f\n"
    "  movq (%r14), %rdx\n"
    "  cmpq $2, %r15\n"
    "  jl 4f\n"
    "  movq 8(%r14), %rcx\n"
    "  cmpq $3, %r15\n"
    "  jl 4f\n"
    "  movq 16(%r14), %r8\n"
    "  cmpq $4, %r15\n"
    "  jl 4f\n"
    "  movq 24(%r14), %r9\n"
    "4:\n"
    "  xorl %eax, %eax\n"  // no vector registers: the microtask type is variadic
    "  callq *%rbx\n"
    "  leaq -40(%rbp), %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  .cfi_def_cfa %rsp, 8\n"
    "  ret\n"
    "  .cfi_endproc\n"
    ".size bobbin_call_microtask_n, .-bobbin_call_microtask_n\n");
#endif
