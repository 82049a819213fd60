// GOMP_* device constructs and the omp_target_* memory routines, on a
// machine whose only device is the host. gcc compiles a target region into
// a host function and a call to GOMP_target_ext; with no offload device the
// region runs on the host (host fallback, spec 13.8): the map clauses
// describe storage the region already shares, so the data constructs do
// nothing, and only firstprivate data is copied (gcc passes it by address,
// and the region may write its copy). The region itself runs as the initial
// thread of a new contention group (rt::run_target_region).
//
// Map kinds and target arguments (gcc's encoding): a kind's low byte is the
// map type, its high byte log2 of the alignment; GOMP_MAP_FIRSTPRIVATE is
// 0x0c. `args` is a null-terminated list of ids, each with its value either
// in the bits above 16 or, with bit 7 set, in the next element; bits 8..15
// name the argument (2: thread_limit), bits 0..6 the device (0: all).
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "abi/gomp_types.hpp"
#include "runtime/api.hpp"
#include "ult/log.hpp"

using namespace bobbin;
using namespace bobbin::abi::gomp;

namespace {

constexpr int kDeviceIcv = -1;           // GOMP_DEVICE_ICV: default-device-var
constexpr int kDeviceHostFallback = -2;  // GOMP_DEVICE_HOST_FALLBACK: if(false)
constexpr unsigned kTargetNowait = 1;    // GOMP_TARGET_FLAG_NOWAIT
constexpr unsigned kMapFirstprivate = 0x0c;
constexpr intptr_t kArgDeviceMask = (1 << 7) - 1;
constexpr intptr_t kArgSubsequent = 1 << 7;
constexpr intptr_t kArgIdMask = ((1 << 8) - 1) << 8;
constexpr intptr_t kArgThreadLimit = 2 << 8;
constexpr int kArgValueShift = 16;

bool is_firstprivate(unsigned short kind) { return (kind & 0xff) == kMapFirstprivate; }
std::size_t align_of(unsigned short kind) { return std::size_t(1) << (kind >> 8); }

// OMP_TARGET_OFFLOAD=mandatory makes a device construct an error when its
// device is not available. The host is: the default device (0, which is
// the initial device's number when there is no other), the initial
// device's number, and if(false); another number names a device this
// machine does not have (libgomp draws the same line).
void check_device(int device) {
  if (device == kDeviceIcv) device = rt::default_device();
  if (device == kDeviceHostFallback || device == rt::initial_device()) return;
  if (rt::target_offload() == rt::TargetOffload::Mandatory)
    fatal("OMP_TARGET_OFFLOAD is MANDATORY, but device %d is not available (there is no offload device)", device);
}

int thread_limit_of(void** args) {
  if (!args) return 0;
  while (*args) {
    intptr_t id = intptr_t(*args++), val;
    if (id & kArgSubsequent) val = intptr_t(*args++);
    else val = id >> kArgValueShift;
    if ((id & kArgDeviceMask) != 0 || (id & kArgIdMask) != kArgThreadLimit) continue;
    return val > INT_MAX ? INT_MAX : val < 0 ? 0 : int(val);
  }
  return 0;
}

// The firstprivate copies of one region, laid out as gcc's alignments ask.
struct FirstprivateLayout {
  std::size_t size = 0, align = 1;
  std::vector<std::size_t> offset;  // per map entry; only firstprivate ones are meaningful
  FirstprivateLayout(std::size_t mapnum, const std::size_t* sizes, const unsigned short* kinds) : offset(mapnum, 0) {
    for (std::size_t i = 0; i < mapnum; ++i) {
      if (!is_firstprivate(kinds[i])) continue;
      std::size_t a = align_of(kinds[i]);
      if (a > align) align = a;
      size = (size + a - 1) / a * a;
      offset[i] = size;
      size += sizes[i];
    }
  }
};

// A deferred target region (nowait): the task's block holds the region's
// function, its thread limit, a copy of hostaddrs, and the firstprivate
// copies made when the construct was met; its entries for those are offsets
// into the block until the task runs.
struct TargetTaskHead {
  void (*fn)(void*);
  std::size_t mapnum;
  int thread_limit;
};

std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }

void run_target_task(void* block) {
  auto* h = static_cast<TargetTaskHead*>(block);
  auto* addrs = reinterpret_cast<void**>(h + 1);
  auto* is_copy = reinterpret_cast<unsigned char*>(addrs + h->mapnum);
  for (std::size_t i = 0; i < h->mapnum; ++i)
    if (is_copy[i]) addrs[i] = static_cast<char*>(block) + reinterpret_cast<uintptr_t>(addrs[i]);
  rt::run_target_region(h->fn, addrs, h->thread_limit);
}

// What the task's copy function reads when it builds the task's block.
struct TargetTaskSource {
  void (*fn)(void*);
  std::size_t mapnum;
  void** hostaddrs;
  const std::size_t* sizes;
  const unsigned short* kinds;
  int thread_limit;
  const FirstprivateLayout* fp;
  std::size_t data_at;  // where the firstprivate copies start in the block
};

// ClosureTask's copy function: builds the block in the task's own storage.
void build_target_task(void* dst, void* src) {
  auto* s = static_cast<const TargetTaskSource*>(src);
  auto* h = static_cast<TargetTaskHead*>(dst);
  h->fn = s->fn;
  h->mapnum = s->mapnum;
  h->thread_limit = s->thread_limit;
  auto* addrs = reinterpret_cast<void**>(h + 1);
  auto* is_copy = reinterpret_cast<unsigned char*>(addrs + s->mapnum);
  for (std::size_t i = 0; i < s->mapnum; ++i) {
    is_copy[i] = is_firstprivate(s->kinds[i]);
    if (!is_copy[i]) {
      addrs[i] = s->hostaddrs[i];
      continue;
    }
    std::size_t at = s->data_at + s->fp->offset[i];
    memcpy(static_cast<char*>(dst) + at, s->hostaddrs[i], s->sizes[i]);
    addrs[i] = reinterpret_cast<void*>(uintptr_t(at));
  }
}

void target_nowait(void (*fn)(void*), std::size_t mapnum, void** hostaddrs, const std::size_t* sizes,
                   const unsigned short* kinds, void** depend, int thread_limit) {
  FirstprivateLayout fp(mapnum, sizes, kinds);
  std::size_t align = fp.align > alignof(std::max_align_t) ? fp.align : alignof(std::max_align_t);
  std::size_t data_at = round_up(sizeof(TargetTaskHead) + mapnum * (sizeof(void*) + 1), align);
  TargetTaskSource src{fn, mapnum, hostaddrs, sizes, kinds, thread_limit, &fp, data_at};
  rt::ClosureTask t;
  t.fn = &run_target_task;
  t.data = &src;
  t.copy = &build_target_task;  // the block is built where the task keeps it
  t.size = data_at + fp.size;
  t.align = align;
  Depends deps(depend);
  t.deps = deps.items();
  t.ndeps = deps.size();
  rt::task_closure(t);
}

void target_now(void (*fn)(void*), std::size_t mapnum, void** hostaddrs, const std::size_t* sizes,
                const unsigned short* kinds, int thread_limit) {
  FirstprivateLayout fp(mapnum, sizes, kinds);
  if (fp.size == 0) {
    rt::run_target_region(fn, hostaddrs, thread_limit);
    return;
  }
  char* copies = static_cast<char*>(aligned_alloc(fp.align, round_up(fp.size, fp.align)));
  if (!copies) fatal("out of memory for a target region's firstprivate data (%zu bytes)", fp.size);
  for (std::size_t i = 0; i < mapnum; ++i) {
    if (!is_firstprivate(kinds[i])) continue;
    memcpy(copies + fp.offset[i], hostaddrs[i], sizes[i]);
    hostaddrs[i] = copies + fp.offset[i];  // gcc's array, built for this call
  }
  rt::run_target_region(fn, hostaddrs, thread_limit);
  free(copies);
}

// Dependences of a data construct with depend (target update, enter/exit
// data): nowait makes it a task with nothing to do but its dependences;
// without nowait the caller waits for them.
void data_construct_deps(unsigned flags, void** depend) {
  if (!depend) return;
  Depends deps(depend);
  if (!(flags & kTargetNowait)) {
    rt::task_wait_deps(deps.items(), deps.size());
    return;
  }
  rt::ClosureTask t;
  t.fn = [](void*) {};
  t.deps = deps.items();
  t.ndeps = deps.size();
  rt::task_closure(t);
}

// omp_target_memcpy_rect on the host: the innermost dimension is one copy.
void copy_rect(char* dst, const char* src, std::size_t esize, int dims, const std::size_t* volume,
               const std::size_t* dst_off, const std::size_t* src_off, const std::size_t* dst_dim,
               const std::size_t* src_dim) {
  if (dims == 1) {
    memcpy(dst + dst_off[0] * esize, src + src_off[0] * esize, volume[0] * esize);
    return;
  }
  std::size_t dst_slice = esize, src_slice = esize;
  for (int d = 1; d < dims; ++d) {
    dst_slice *= dst_dim[d];
    src_slice *= src_dim[d];
  }
  for (std::size_t j = 0; j < volume[0]; ++j)
    copy_rect(dst + (dst_off[0] + j) * dst_slice, src + (src_off[0] + j) * src_slice, esize, dims - 1, volume + 1,
              dst_off + 1, src_off + 1, dst_dim + 1, src_dim + 1);
}

// The host: its device number, or omp_initial_device (-1, OpenMP 5.1).
bool host_device(int device) { return device == rt::initial_device() || device == -1; }

}  // namespace

BOBBIN_EXPORT void GOMP_target_ext(int device, void (*fn)(void*), size_t mapnum, void** hostaddrs, size_t* sizes,
                                   unsigned short* kinds, unsigned int flags, void** depend, void** args) {
  check_device(device);
  int limit = thread_limit_of(args);
  if (flags & kTargetNowait) {
    target_nowait(fn, mapnum, hostaddrs, sizes, kinds, depend, limit);
    return;
  }
  if (depend) {
    Depends deps(depend);
    rt::task_wait_deps(deps.items(), deps.size());
  }
  target_now(fn, mapnum, hostaddrs, sizes, kinds, limit);
}

// gcc 4.9 and 5: no firstprivate, no nowait.
BOBBIN_EXPORT void GOMP_target(int device, void (*fn)(void*), const void* /*unused*/, size_t /*mapnum*/,
                               void** hostaddrs, size_t* /*sizes*/, unsigned char* /*kinds*/) {
  check_device(device);
  rt::run_target_region(fn, hostaddrs, 0);
}

BOBBIN_EXPORT void GOMP_target_data_ext(int device, size_t, void**, size_t*, unsigned short*) { check_device(device); }
BOBBIN_EXPORT void GOMP_target_data(int device, const void*, size_t, void**, size_t*, unsigned char*) {
  check_device(device);
}
BOBBIN_EXPORT void GOMP_target_end_data(void) {}
BOBBIN_EXPORT void GOMP_target_update_ext(int device, size_t, void**, size_t*, unsigned short*, unsigned int flags,
                                          void** depend) {
  check_device(device);
  data_construct_deps(flags, depend);
}
BOBBIN_EXPORT void GOMP_target_update(int device, const void*, size_t, void**, size_t*, unsigned char*) {
  check_device(device);
}
BOBBIN_EXPORT void GOMP_target_enter_exit_data(int device, size_t, void**, size_t*, unsigned short*,
                                               unsigned int flags, void** depend) {
  check_device(device);
  data_construct_deps(flags, depend);
}

// teams inside a target region: gcc 12 calls GOMP_teams4 in a loop, running
// the teams body once per true answer; older gcc called GOMP_teams once and
// ran the body once (a league of one team).
BOBBIN_EXPORT bool GOMP_teams4(unsigned int num_teams_lower, unsigned int /*num_teams_upper*/,
                               unsigned int thread_limit, bool first) {
  int lower = num_teams_lower > unsigned(INT_MAX) ? INT_MAX : int(num_teams_lower);
  int limit = thread_limit > unsigned(INT_MAX) ? INT_MAX : int(thread_limit);
  return rt::target_teams_next(lower, limit, first);
}
BOBBIN_EXPORT void GOMP_teams(unsigned int /*num_teams*/, unsigned int thread_limit) {
  rt::target_teams_next(1, thread_limit > unsigned(INT_MAX) ? INT_MAX : int(thread_limit), true);
}

// Device memory routines of the host device (gcc's libgomp has them; in
// LLVM they belong to libomptarget, so Bobbin exports them only at their
// libgomp version node, see libgomp_versions.inc).
extern "C" {
void* gcc_only_omp_target_alloc(size_t size, int device) {
  return host_device(device) ? malloc(size) : nullptr;
}
void gcc_only_omp_target_free(void* ptr, int device) {
  if (host_device(device)) free(ptr);
}
int gcc_only_omp_target_is_present(const void* /*ptr*/, int device) {
  return host_device(device) ? 1 : 0;
}
int gcc_only_omp_target_memcpy(void* dst, const void* src, size_t length, size_t dst_offset,
                                                    size_t src_offset, int dst_device, int src_device) {
  if (!host_device(dst_device) || !host_device(src_device)) return EINVAL;
  memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, length);
  return 0;
}
int gcc_only_omp_target_memcpy_rect(void* dst, const void* src, size_t element_size,
                                                         int num_dims, const size_t* volume,
                                                         const size_t* dst_offsets, const size_t* src_offsets,
                                                         const size_t* dst_dimensions,
                                                         const size_t* src_dimensions, int dst_device,
                                                         int src_device) {
  if (!dst && !src) return INT_MAX;  // the number of dimensions supported
  if (!dst || !src || num_dims < 1 || !host_device(dst_device) || !host_device(src_device)) return EINVAL;
  copy_rect(static_cast<char*>(dst), static_cast<const char*>(src), element_size, num_dims, volume, dst_offsets,
            src_offsets, dst_dimensions, src_dimensions);
  return 0;
}
// Associating host storage with device storage means nothing on the host
// device; libgomp answers EINVAL there too.
int gcc_only_omp_target_associate_ptr(const void*, const void*, size_t, size_t, int) {
  return EINVAL;
}
int gcc_only_omp_target_disassociate_ptr(const void*, int) { return EINVAL; }
}
