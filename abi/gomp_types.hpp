// Layouts and constants fixed by gcc's code generation and libgomp's ABI
// (values as gcc 12 and libgomp.so.1 use them: gomp-constants.h, libgomp.h,
// libgomp_g.h, task.c), and the translations into runtime types that the
// gomp_*.cpp entry points share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "abi/abi_types.hpp"
#include "runtime/api.hpp"

namespace bobbin::abi::gomp {

using ull = unsigned long long;

// ---- constants -----------------------------------------------------------------

// GOMP_task / GOMP_taskloop `flags` (gomp-constants.h GOMP_TASK_FLAG_*).
enum : unsigned {
  kTaskUntied = 1u << 0,
  kTaskFinal = 1u << 1,
  kTaskMergeable = 1u << 2,
  kTaskDepend = 1u << 3,
  kTaskPriority = 1u << 4,
  kTaskUp = 1u << 8,          // taskloop_ull: the loop counts up
  kTaskGrainsize = 1u << 9,   // taskloop: num_tasks is a grainsize
  kTaskIf = 1u << 10,         // taskloop: the if clause (true when absent)
  kTaskNogroup = 1u << 11,
  kTaskReduction = 1u << 12,  // taskloop: data starts {start, end, reduction descriptor*}
  kTaskDetach = 1u << 13,
  kTaskStrict = 1u << 14,     // taskloop: grainsize(strict: ...)
};

// GOMP_loop_start & co. `sched` (libgomp.h enum gomp_schedule_type). gcc
// passes runtime with the nonmonotonic modifier as auto, and ORs the
// monotonic modifier in bit 31.
enum : long { kSchedRuntime = 0, kSchedStatic = 1, kSchedDynamic = 2, kSchedGuided = 3, kSchedAuto = 4 };
constexpr long kSchedMonotonic = 0x80000000L;

// GOMP_cancel / GOMP_cancellation_point `which` (libgomp.h GOMP_CANCEL_*).
enum : int { kCancelParallel = 1, kCancelLoop = 2, kCancelSections = 4, kCancelTaskgroup = 8 };

// GOMP_parallel & co. `flags`: the proc_bind clause (omp_proc_bind_t), 0 if absent.
constexpr unsigned kProcBindMask = 7;

// The dependence kind inside an omp_depend_t {address, kind} (gomp-constants.h
// GOMP_DEPEND_*). gcc 12 never emits inoutset; libgomp 12 already reads it.
enum : uintptr_t { kDependIn = 1, kDependOut = 2, kDependInout = 3, kDependMutexinoutset = 4, kDependInoutset = 5 };

// GOMP_error / GOMP_warning: msglen for a NUL-terminated message (C, C++).
constexpr std::size_t kMsgNulTerminated = std::size_t(-1);

// A task reduction descriptor: an array of uintptr_t the compiler fills
// (task.c, "The format of data is"); descriptors chain through [kRedNext].
enum : std::size_t {
  kRedCount = 0,      // items in this descriptor
  kRedSize = 1,       // bytes of one thread's copies
  kRedAlign = 2,      // in: their alignment; out: the storage (thread i's copies at + i * size)
  kRedAllocator = 3,  // omp_allocator_handle_t, -1 for malloc (libgomp ignores it too)
  kRedNext = 4,       // the next descriptor, or 0
  kRedHandle = 5,     // the library's own word: Bobbin keeps its handle here
  kRedEnd = 6,        // the library's own word (libgomp: end of the storage); unused
  kRedItems = 7,      // then kRedCount items of kRedItemWords words:
  kRedItemWords = 3,  //   {address of the original, offset in a thread's copies, library word}
};

// The data block of a taskloop with a reduction clause starts with this.
template <class T>
struct TaskloopReductionHead {
  T start, end;
  uintptr_t* reductions;
};

// ---- loops -----------------------------------------------------------------------

inline rt::LoopKind loop_kind(long sched, int64_t chunk) {
  switch (sched & ~kSchedMonotonic) {
    case kSchedStatic: return chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static;
    case kSchedDynamic: return rt::LoopKind::Dynamic;
    case kSchedGuided: return rt::LoopKind::Guided;
    case kSchedRuntime:
    case kSchedAuto: return rt::LoopKind::Runtime;
    default: rt::unsupported("this GOMP loop schedule kind");
  }
}

// gcc's loops run over [start, end) by incr; the runtime's over [lower, upper].
inline rt::LoopBounds open_bounds(long start, long end, long incr) {
  if (incr > 0 ? start >= end : start <= end) return rt::LoopBounds{0, -1, 1, false, 8};  // no iteration
  return rt::LoopBounds{start, incr > 0 ? end - 1 : end + 1, incr, false, 8};
}
inline rt::LoopBounds open_bounds(bool up, ull start, ull end, ull incr) {
  if (up ? start >= end : start <= end) return rt::LoopBounds{0, -1, 1, false, 8};
  return rt::LoopBounds{int64_t(start), int64_t(up ? end - 1 : end + 1), int64_t(incr), true, 8, up ? 1 : -1};
}

// A chunk [lower, upper] back as gcc's [*istart, *iend): the end is the
// value after the chunk's last iteration (upper + stride, wrapping), as
// libgomp gives it: gcc's code steps its variable by the increment until it
// reaches the end. One past the last iteration (upper +- 1) said nothing
// of the direction, which an unsigned long long loop whose increment is
// 2^63 or more cannot take from the increment's sign.
template <class T>
bool chunk_out(int64_t lower, int64_t upper, int64_t stride, T* istart, T* iend) {
  *istart = T(lower);
  *iend = T(uint64_t(upper) + uint64_t(stride));
  return true;
}

// ordered(n) loops: the dependence space is counts[i] iterations per
// dimension, numbered from 0; the worksharing loop runs the first dimension.
// gcc leaves the counts after a zero one unwritten (the space is empty, and
// libgomp reads no further): they are not read, and their dimensions are
// empty too. Read, stack garbage made a flag array of 2^63 entries
// (libgomp's doacross-1 at 8 threads: std::bad_array_new_length in 1 run
// of 6).
template <class T>
struct DoacrossSpace {
  std::vector<rt::DoacrossDim> space;
  const rt::DoacrossDim* dims;
  int n;
  DoacrossSpace(unsigned ncounts, const T* counts)
      : space(ncounts, rt::DoacrossDim{0, -1, 1}), dims(space.data()), n(int(ncounts)) {
    for (unsigned i = 0; i < ncounts && counts[i] != 0; ++i) space[i] = rt::DoacrossDim{0, int64_t(counts[i]) - 1, 1};
  }
};

// ---- tasks -----------------------------------------------------------------------

// A GOMP depend array, either layout (task.c, GOMP_task's comment):
//   depend[0] != 0: {n, n_out_or_inout, addresses: out/inout first, then in};
//   depend[0] == 0: {0, n, n_out_or_inout, n_mutexinoutset, n_in, addresses in
//                    that order, then omp_depend_t* for the rest}.
// A null out/inout address is omp_all_memory.
class Depends {
 public:
  explicit Depends(void** depend);
  const rt::DepItem* items() const { return items_; }
  int size() const { return n_; }

 private:
  void add(const void* addr, uint8_t kind);
  rt::DepItem inline_[16];
  std::vector<rt::DepItem> more_;
  rt::DepItem* items_ = inline_;
  int n_ = 0;
};

// A chain of task reduction descriptors as runtime blocks; write_back()
// stores the storage (and the handle, in the first descriptor) where the
// compiler and the matching unregister look.
class Reductions {
 public:
  explicit Reductions(uintptr_t* data);
  rt::ReductionBlock* blocks() { return blocks_.empty() ? nullptr : blocks_.data(); }
  int size() const { return int(blocks_.size()); }
  void write_back(void* handle);

 private:
  uintptr_t* head_;
  std::vector<uintptr_t*> descriptors_;
  std::vector<std::vector<rt::BlockReductionItem>> items_;
  std::vector<rt::ReductionBlock> blocks_;
};

}  // namespace bobbin::abi::gomp
