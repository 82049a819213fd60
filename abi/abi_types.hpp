// Layouts and constants fixed by the ABIs. Values are those LLVM's libomp
// (kmp.h) and clang-14's code generation use.
#pragma once

#include <cstdint>

#include "runtime/api.hpp"

#define BOBBIN_EXPORT extern "C" __attribute__((visibility("default")))

namespace bobbin::abi {

using kmp_int32 = int32_t;
using kmp_uint32 = uint32_t;
using kmp_int64 = int64_t;
using kmp_uint64 = uint64_t;

// Source location the compiler passes to every __kmpc_ call.
struct ident_t {
  kmp_int32 reserved_1;
  kmp_int32 flags;
  kmp_int32 reserved_2;
  kmp_int32 reserved_3;
  const char* psource;  // ";file;function;line;column;;"
};
static_assert(sizeof(ident_t) == 24, "ident_t layout");

using kmp_critical_name = kmp_int32[8];
static_assert(sizeof(kmp_critical_name) == 32, "kmp_critical_name layout");

struct kmp_dim {  // doacross loop dimension
  kmp_int64 lo, up, st;
};
static_assert(sizeof(kmp_dim) == 24, "kmp_dim layout");

// enum sched_type of kmp.h.
enum : kmp_int32 {
  kmp_sch_lower = 32,
  kmp_sch_static_chunked = 33,
  kmp_sch_static = 34,
  kmp_sch_dynamic_chunked = 35,
  kmp_sch_guided_chunked = 36,
  kmp_sch_runtime = 37,
  kmp_sch_auto = 38,
  kmp_sch_trapezoidal = 39,
  kmp_sch_static_greedy = 40,
  kmp_sch_static_balanced = 41,
  kmp_sch_guided_iterative_chunked = 42,
  kmp_sch_guided_analytical_chunked = 43,
  kmp_sch_static_steal = 44,
  kmp_sch_static_balanced_chunked = 45,
  kmp_sch_guided_simd = 46,
  kmp_sch_runtime_simd = 47,
  kmp_sch_upper = 48,
  kmp_ord_lower = 64,
  kmp_ord_upper = 72,
  kmp_distribute_static_chunked = 91,
  kmp_distribute_static = 92,
  kmp_nm_lower = 160,  // "nomerge" variants: kmp_sch_* + 128
  kmp_nm_upper = 200,
  kmp_sch_modifier_monotonic = 1 << 29,
  kmp_sch_modifier_nonmonotonic = 1 << 30,
};

struct DecodedSchedule {
  rt::LoopKind kind;
  bool ordered;
  bool known;
};

// Strips the monotonic/nonmonotonic modifier bits (from every kind: libomp 14
// misses them on static kinds), the nomerge offset and the ordered offset.
inline DecodedSchedule decode_schedule(kmp_int32 s) {
  s &= ~(kmp_sch_modifier_monotonic | kmp_sch_modifier_nonmonotonic);
  bool ordered = false;
  if (s >= kmp_nm_lower && s < kmp_nm_upper) s -= 128;
  if (s >= kmp_ord_lower && s < kmp_ord_upper) {
    s -= kmp_ord_lower - kmp_sch_lower;
    ordered = true;
  }
  switch (s) {
    case kmp_sch_static_chunked: return {rt::LoopKind::StaticChunked, ordered, true};
    case kmp_sch_static:
    case kmp_sch_static_greedy:
    case kmp_sch_static_balanced:
    case kmp_sch_static_steal: return {rt::LoopKind::Static, ordered, true};
    case kmp_distribute_static: return {rt::LoopKind::Distribute, ordered, true};
    case kmp_distribute_static_chunked: return {rt::LoopKind::DistributeChunked, ordered, true};
    case kmp_sch_static_balanced_chunked: return {rt::LoopKind::StaticBalancedChunked, ordered, true};
    case kmp_sch_dynamic_chunked: return {rt::LoopKind::Dynamic, ordered, true};
    case kmp_sch_guided_chunked:
    case kmp_sch_guided_iterative_chunked:
    case kmp_sch_guided_analytical_chunked: return {rt::LoopKind::Guided, ordered, true};
    case kmp_sch_guided_simd: return {rt::LoopKind::GuidedSimd, ordered, true};
    case kmp_sch_trapezoidal: return {rt::LoopKind::Trapezoidal, ordered, true};
    case kmp_sch_runtime: return {rt::LoopKind::Runtime, ordered, true};
    case kmp_sch_runtime_simd: return {rt::LoopKind::RuntimeSimd, ordered, true};
    case kmp_sch_auto: return {rt::LoopKind::Auto, ordered, true};
    default: return {rt::LoopKind::Static, ordered, false};
  }
}

}  // namespace bobbin::abi

namespace bobbin::abi {

// kmp.h's task as the compiler sees it; private data follows it.
using kmp_routine_entry_t = kmp_int32 (*)(kmp_int32 gtid, void* task);
union kmp_cmplrdata_t {
  kmp_int32 priority;
  kmp_routine_entry_t destructors;
};
struct kmp_task_t {
  void* shareds;
  kmp_routine_entry_t routine;
  kmp_int32 part_id;
  kmp_cmplrdata_t data1;  // destructors thunk
  kmp_cmplrdata_t data2;  // priority
};
static_assert(sizeof(kmp_task_t) == 40, "kmp_task_t layout");

// kmp_tasking_flags_t, compiler half (bit positions).
enum : kmp_int32 {
  kmp_task_tied = 1 << 0,
  kmp_task_final = 1 << 1,
  kmp_task_merged_if0 = 1 << 2,
  kmp_task_destructors_thunk = 1 << 3,
  kmp_task_proxy = 1 << 4,
  kmp_task_priority_specified = 1 << 5,
  kmp_task_detachable = 1 << 6,
  kmp_task_hidden_helper = 1 << 7,
};

struct kmp_depend_info_t {
  intptr_t base_addr;
  size_t len;
  uint8_t flags;  // 1 in, 2 out, 4 mutexinoutset, 8 inoutset, 0x80 omp_all_memory
};
static_assert(sizeof(kmp_depend_info_t) == 24, "kmp_depend_info_t layout");

struct kmp_task_affinity_info_t {
  intptr_t base_addr;
  size_t len;
  uint32_t flags;
};
static_assert(sizeof(kmp_task_affinity_info_t) == 24, "kmp_task_affinity_info_t layout");

// task_reduction items: the OpenMP 5.0 form (__kmpc_taskred_init) and the 4.5 one.
struct kmp_taskred_input_t {
  void* reduce_shar;
  void* reduce_orig;
  size_t reduce_size;
  void* reduce_init;  // void(void* priv, void* orig)
  void* reduce_fini;  // void(void* priv)
  void* reduce_comb;  // void(void* lhs, void* rhs)
  uint32_t flags;     // bit 0: lazy private copies
};
static_assert(sizeof(kmp_taskred_input_t) == 56, "kmp_taskred_input_t layout");
struct kmp_task_red_input_t {
  void* reduce_shar;
  size_t reduce_size;
  void* reduce_init;  // void(void* priv)
  void* reduce_fini;
  void* reduce_comb;
  uint32_t flags;
};
static_assert(sizeof(kmp_task_red_input_t) == 48, "kmp_task_red_input_t layout");

}  // namespace bobbin::abi
