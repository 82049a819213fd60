// libomp's kmp_* extensions declared in LLVM's omp.h: stack size, block
// time, library mode, deferred settings, warnings, affinity masks,
// cancellation status. Thin: runtime/kmp_ext.cpp does the work.
#include <climits>
#include <string>

#include "abi/abi_types.hpp"
#include "omp.h"
#include "runtime/api.hpp"
#include "ult/log.hpp"

using namespace bobbin;

BOBBIN_EXPORT void kmp_set_stacksize(int bytes) {
  if (bytes > 0) rt::kmp_set_stacksize(std::size_t(bytes));
}
BOBBIN_EXPORT void kmp_set_stacksize_s(size_t bytes) { rt::kmp_set_stacksize(bytes); }
BOBBIN_EXPORT int kmp_get_stacksize(void) {
  std::size_t s = rt::kmp_stacksize();
  return s > std::size_t(INT_MAX) ? INT_MAX : int(s);
}
BOBBIN_EXPORT size_t kmp_get_stacksize_s(void) { return rt::kmp_stacksize(); }

BOBBIN_EXPORT void kmp_set_blocktime(int ms) { rt::kmp_set_blocktime(ms); }
BOBBIN_EXPORT int kmp_get_blocktime(void) { return rt::kmp_blocktime(); }

BOBBIN_EXPORT void kmp_set_library(int mode) { rt::kmp_set_library(mode); }
BOBBIN_EXPORT void kmp_set_library_serial(void) { rt::kmp_set_library(1); }
BOBBIN_EXPORT void kmp_set_library_turnaround(void) { rt::kmp_set_library(2); }
BOBBIN_EXPORT void kmp_set_library_throughput(void) { rt::kmp_set_library(3); }
BOBBIN_EXPORT int kmp_get_library(void) { return rt::kmp_library(); }

BOBBIN_EXPORT void kmp_set_defaults(char const* text) { rt::kmp_set_defaults(text); }
BOBBIN_EXPORT void kmp_set_disp_num_buffers(int n) { rt::kmp_set_disp_num_buffers(n); }

BOBBIN_EXPORT void kmp_set_warnings_on(void) { set_warnings(true); }
BOBBIN_EXPORT void kmp_set_warnings_off(void) { set_warnings(false); }

BOBBIN_EXPORT int kmp_get_affinity_max_proc(void) { return rt::kmp_affinity_max_proc(); }
BOBBIN_EXPORT void kmp_create_affinity_mask(kmp_affinity_mask_t* mask) { rt::kmp_create_mask(mask); }
BOBBIN_EXPORT void kmp_destroy_affinity_mask(kmp_affinity_mask_t* mask) { rt::kmp_destroy_mask(mask); }
BOBBIN_EXPORT int kmp_set_affinity_mask_proc(int proc, kmp_affinity_mask_t* mask) {
  return rt::kmp_mask_proc(proc, mask, 1);
}
BOBBIN_EXPORT int kmp_unset_affinity_mask_proc(int proc, kmp_affinity_mask_t* mask) {
  return rt::kmp_mask_proc(proc, mask, -1);
}
BOBBIN_EXPORT int kmp_get_affinity_mask_proc(int proc, kmp_affinity_mask_t* mask) {
  return rt::kmp_mask_proc(proc, mask, 0);
}
BOBBIN_EXPORT int kmp_get_affinity(kmp_affinity_mask_t* mask) { return rt::kmp_get_affinity(mask); }
BOBBIN_EXPORT int kmp_set_affinity(kmp_affinity_mask_t* mask) { return rt::kmp_set_affinity(mask); }

BOBBIN_EXPORT int kmp_get_cancellation_status(int kind) {  // libomp: 1 parallel, 2 loop, 3 sections, 4 taskgroup
  return rt::kmp_cancellation_status(kind);
}
BOBBIN_EXPORT int kmp_get_num_known_threads(void) { return rt::kmp_known_threads(); }

// libomp binds an OpenMP thread back to the whole machine here (its offload
// helper threads ask); Bobbin's threads are fibers bound by places: refused.
BOBBIN_EXPORT int kmp_set_thread_affinity_mask_initial(void) { return rt::kmp_unbind_thread(); }

// ---- the kmpc_* spellings Intel's compilers call (same meaning) ---------------

BOBBIN_EXPORT void kmpc_set_stacksize(int bytes) { kmp_set_stacksize(bytes); }
BOBBIN_EXPORT void kmpc_set_stacksize_s(size_t bytes) { rt::kmp_set_stacksize(bytes); }
BOBBIN_EXPORT void kmpc_set_blocktime(int ms) { rt::kmp_set_blocktime(ms); }
BOBBIN_EXPORT void kmpc_set_library(int mode) { rt::kmp_set_library(mode); }
BOBBIN_EXPORT void kmpc_set_defaults(char const* text) { rt::kmp_set_defaults(text); }
BOBBIN_EXPORT void kmpc_set_disp_num_buffers(int n) { rt::kmp_set_disp_num_buffers(n); }
BOBBIN_EXPORT int kmpc_set_affinity_mask_proc(int proc, void** mask) { return rt::kmp_mask_proc(proc, mask, 1); }
BOBBIN_EXPORT int kmpc_unset_affinity_mask_proc(int proc, void** mask) { return rt::kmp_mask_proc(proc, mask, -1); }
BOBBIN_EXPORT int kmpc_get_affinity_mask_proc(int proc, void** mask) { return rt::kmp_mask_proc(proc, mask, 0); }

// ---- Fortran spellings (ifort, flang and gfortran with LLVM's omp_lib):
// arguments by reference, strings with a hidden length -------------------------

BOBBIN_EXPORT void kmp_set_stacksize_(const int* bytes) { kmp_set_stacksize(*bytes); }
BOBBIN_EXPORT void kmp_set_stacksize_s_(const size_t* bytes) { rt::kmp_set_stacksize(*bytes); }
BOBBIN_EXPORT int kmp_get_stacksize_(void) { return kmp_get_stacksize(); }
BOBBIN_EXPORT size_t kmp_get_stacksize_s_(void) { return rt::kmp_stacksize(); }
BOBBIN_EXPORT void kmp_set_blocktime_(const int* ms) { rt::kmp_set_blocktime(*ms); }
BOBBIN_EXPORT int kmp_get_blocktime_(void) { return rt::kmp_blocktime(); }
BOBBIN_EXPORT void kmp_set_library_(const int* mode) { rt::kmp_set_library(*mode); }
BOBBIN_EXPORT void kmp_set_library_serial_(void) { rt::kmp_set_library(1); }
BOBBIN_EXPORT void kmp_set_library_turnaround_(void) { rt::kmp_set_library(2); }
BOBBIN_EXPORT void kmp_set_library_throughput_(void) { rt::kmp_set_library(3); }
BOBBIN_EXPORT int kmp_get_library_(void) { return rt::kmp_library(); }
BOBBIN_EXPORT void kmp_set_defaults_(char const* text, int len) {
  std::string s(text, len > 0 ? std::size_t(len) : 0);
  rt::kmp_set_defaults(s.c_str());
}
BOBBIN_EXPORT void kmp_set_disp_num_buffers_(const int* n) { rt::kmp_set_disp_num_buffers(*n); }
BOBBIN_EXPORT void kmp_set_warnings_on_(void) { set_warnings(true); }
BOBBIN_EXPORT void kmp_set_warnings_off_(void) { set_warnings(false); }
BOBBIN_EXPORT int kmp_get_affinity_max_proc_(void) { return rt::kmp_affinity_max_proc(); }
BOBBIN_EXPORT void kmp_create_affinity_mask_(void** mask) { rt::kmp_create_mask(mask); }
BOBBIN_EXPORT void kmp_destroy_affinity_mask_(void** mask) { rt::kmp_destroy_mask(mask); }
BOBBIN_EXPORT int kmp_set_affinity_mask_proc_(const int* proc, void** mask) { return rt::kmp_mask_proc(*proc, mask, 1); }
BOBBIN_EXPORT int kmp_unset_affinity_mask_proc_(const int* proc, void** mask) {
  return rt::kmp_mask_proc(*proc, mask, -1);
}
BOBBIN_EXPORT int kmp_get_affinity_mask_proc_(const int* proc, void** mask) { return rt::kmp_mask_proc(*proc, mask, 0); }
BOBBIN_EXPORT int kmp_get_affinity_(void** mask) { return rt::kmp_get_affinity(mask); }
BOBBIN_EXPORT int kmp_set_affinity_(void** mask) { return rt::kmp_set_affinity(mask); }
BOBBIN_EXPORT int kmp_get_cancellation_status_(const int* kind) { return rt::kmp_cancellation_status(*kind); }
BOBBIN_EXPORT int kmp_get_num_known_threads_(void) { return rt::kmp_known_threads(); }
BOBBIN_EXPORT void* kmp_malloc_(const size_t* size) { return kmp_malloc(*size); }
BOBBIN_EXPORT void* kmp_aligned_malloc_(const size_t* size, const size_t* align) {
  return kmp_aligned_malloc(*size, *align);
}
BOBBIN_EXPORT void* kmp_calloc_(const size_t* n, const size_t* size) { return kmp_calloc(*n, *size); }
BOBBIN_EXPORT void* kmp_realloc_(void** p, const size_t* size) { return kmp_realloc(*p, *size); }
BOBBIN_EXPORT void kmp_free_(void** p) { kmp_free(*p); }
