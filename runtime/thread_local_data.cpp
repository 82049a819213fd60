// A scan of the loaded modules' program headers for PT_TLS segments
// (dl_iterate_phdr). The result is kept with the loader's counts of loads
// and unloads, and recomputed when they change.
#include "runtime/thread_local_data.hpp"

#include <elf.h>
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <vector>

#include "ult/atomic.hpp"

namespace bobbin::rt {

namespace {

// Libraries whose thread-local data is their own business: set and read
// within one call (errno, the allocator's caches, exception state,
// sanitizer bookkeeping, OpenBLAS's per-thread buffers, libgfortran's I/O
// state), so OpenMP threads that share a kernel thread and switch only at
// the runtime's scheduling points never see each other's (the monitor does
// not preempt inside a BLAS library either: ult/preempt_linux.cpp).
// Matched on the file name up to the first dot (Debian's OpenBLAS is
// libopenblasp-r0.3.21.so behind its libopenblas.so.0 link). libOpenCL is
// the OpenCL ICD loader, whose one thread-local int guards its own
// initialisation: hwloc's OpenCL plugin loads it when an MPI library
// discovers the machine in MPI_Init, and counted as the program's it gave
// every nested team of every MPI program a kernel thread per member (and no
// gangs): mpilu 2048 at 1 rank x 2, 30.6 GFLOP/s against 37.3 as fibers.
constexpr const char* kOwnBusiness[] = {
    "libc",     "libm",       "libpthread", "libdl",       "librt",      "libresolv", "ld-linux-x86-64",
    "ld-linux-aarch64", "libstdc++", "libgcc_s", "libatomic", "libbobbin", "libomp", "libiomp5",
    "libgomp",  "libhwloc",   "libudev",    "libnuma",     "libboost_context", "libasan", "libtsan",
    "libubsan", "liblsan",    "libcap",     "libsystemd", "libz",       "libopenblas", "libopenblasp-r0",
    "libopenblaso-r0", "libgfortran", "libOpenCL",
};

bool own_business(const char* path) {
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  std::size_t len = strcspn(base, ".");
  // "ld-linux-x86-64.so.2" has no dot before ".so": strcspn stops at ".so".
  for (const char* name : kOwnBusiness) {
    if (strlen(name) == len && strncmp(base, name, len) == 0) return true;
  }
  return false;
}

// The modules loaded during the runtime's own start-up (begin/end_runtime_loads).
std::vector<std::string> g_before, g_runtime_loaded;  // guarded by g_mutex

int list_module(dl_phdr_info* info, std::size_t, void* arg) {
  if (info->dlpi_name && info->dlpi_name[0]) static_cast<std::vector<std::string>*>(arg)->push_back(info->dlpi_name);
  return 0;
}

bool runtime_loaded(const char* path) {
  return std::find(g_runtime_loaded.begin(), g_runtime_loaded.end(), path) != g_runtime_loaded.end();
}

// Whether path is this library itself, whatever its file is called (a copy
// named otherwise, found by name alone, counted as a module of the
// program's with thread-local data: its nested teams got kernel threads).
bool this_library(const char* path) {
  static const char* self = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<void*>(&own_business), &info) && info.dli_fname ? info.dli_fname : "";
  }();
  return self[0] && strcmp(path, self) == 0;
}

struct Scan {
  unsigned long long adds = 0, subs = 0;
  bool known = false;
  std::string module;
};

std::mutex g_mutex;
Scan g_scan;  // guarded by g_mutex

struct Walk {
  Scan* cached;
  bool unchanged = false;
  bool first = true;
  Scan fresh;
};

int visit(dl_phdr_info* info, std::size_t size, void* arg) {
  auto* walk = static_cast<Walk*>(arg);
  if (walk->first) {
    walk->first = false;
    if (size < offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) return 0;  // no counts: scan
    walk->fresh.adds = info->dlpi_adds;
    walk->fresh.subs = info->dlpi_subs;
    if (walk->cached->known && walk->cached->adds == info->dlpi_adds && walk->cached->subs == info->dlpi_subs) {
      walk->unchanged = true;
      return 1;
    }
  }
  if (!walk->fresh.module.empty()) return 1;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_TLS || ph.p_memsz == 0) continue;
    // The executable's name is empty in its entry.
    const char* name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "the executable";
    if (info->dlpi_name && info->dlpi_name[0] && (own_business(info->dlpi_name) || this_library(info->dlpi_name) || runtime_loaded(info->dlpi_name)))
      continue;
    walk->fresh.module = name;
    return 1;
  }
  return 0;
}

}  // namespace

void begin_runtime_loads() {
  std::lock_guard<std::mutex> g(g_mutex);
  g_before.clear();
  dl_iterate_phdr(&list_module, &g_before);
}

void end_runtime_loads() {
  std::lock_guard<std::mutex> g(g_mutex);
  std::vector<std::string> now;
  dl_iterate_phdr(&list_module, &now);
  for (const std::string& m : now)
    if (std::find(g_before.begin(), g_before.end(), m) == g_before.end()) g_runtime_loaded.push_back(m);
  g_before.clear();
  g_scan.known = false;  // scan again, without them
}

namespace {

using bobbin::Atomic;
using bobbin::memory_order_relaxed;

// The last answer and the loader's counts it holds for, in one word (adds
// << 33 | subs << 1 | answer; 0: none), for callers that need no module
// name: a nested fork asks at every region, and two outer threads forking
// at once met on g_mutex.
Atomic<uint64_t> g_last{0};

uint64_t pack(unsigned long long adds, unsigned long long subs, bool answer) {
  if (adds == 0 || adds >= (1ull << 31) || subs >= (1ull << 32)) return 0;  // 0: not kept
  return (uint64_t(adds) << 33) | (uint64_t(subs) << 1) | (answer ? 1u : 0u);
}

int read_counts(dl_phdr_info* info, std::size_t size, void* arg) {
  auto* counts = static_cast<unsigned long long*>(arg);
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
    counts[0] = info->dlpi_adds;
    counts[1] = info->dlpi_subs;
  }
  return 1;
}

}  // namespace

bool program_has_thread_local_data(std::string* module) {
  if (!module) {
    unsigned long long counts[2] = {0, 0};
    dl_iterate_phdr(&read_counts, counts);
    uint64_t last = g_last.load(memory_order_relaxed);  // one word: the answer comes with its counts
    uint64_t key = pack(counts[0], counts[1], false);
    if (last && key && (last >> 1) == (key >> 1)) return (last & 1) != 0;
  }
  std::lock_guard<std::mutex> g(g_mutex);
  Walk walk{&g_scan};
  dl_iterate_phdr(&visit, &walk);
  if (!walk.unchanged) {
    walk.fresh.known = true;
    g_scan = walk.fresh;
  }
  g_last.store(pack(g_scan.adds, g_scan.subs, !g_scan.module.empty()), memory_order_relaxed);
  if (module) *module = g_scan.module;
  return !g_scan.module.empty();
}

}  // namespace bobbin::rt
