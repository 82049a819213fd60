// Memory allocators (OpenMP 5.2 section 6.2): omp_alloc and friends, the
// allocate clause and directive, OMP_ALLOCATOR.
//
// The problem. An allocator is a memory space plus traits, and a failed
// allocation must do exactly what the fallback trait says: return null, retry
// with the default allocator or with another allocator, or abort. "Failed"
// includes running past the allocator's pool_size. omp_free gets no size and
// may get omp_null_allocator, so a block must say who made it.
//
// The design.
// - Every block is [padding][Header][user bytes]: the header sits right before
//   the pointer the user gets and names the allocator, the base to release,
//   the size asked for and how the memory was obtained. omp_free and
//   omp_realloc read it; the allocator argument they get is not needed.
// - Memory comes from malloc, except when a trait needs whole pages: pinned
//   (mlock) or a partition other than `environment` on a machine with more
//   than one NUMA node (mbind before the first touch). Those blocks are their
//   own mappings, so unlocking or freeing one never affects another.
// - Every memory space Bobbin knows is host memory: default, large_cap,
//   const, high_bw and low_lat all map to it (spec 6.1 lets an implementation
//   map a space onto another). Device spaces (llvm_omp_target_*) are not
//   supported.
// - Predefined allocators are the small integers of LLVM's omp.h, indexes
//   into a static table; a user allocator's handle is its descriptor's
//   address. The descriptor of a destroyed allocator lives until its last
//   block is freed (a reference count), so a late omp_free is still safe.
//
// Rejected: a size-class pool per allocator (as libomp's bget). malloc is
// already a good general allocator; pool_size is a budget, which one counter
// enforces. Each block's header counts against the pool with the block (not
// the alignment padding): both libomp and libgomp charge their overhead, and
// their tests pin it down (LLVM's omp_alloc_null_fb: two 1 MiB blocks do not
// both fit in a 2 MiB pool). Counting the bytes asked for alone was tried
// first; a pool of N bytes then held blocks totalling exactly N.
//
// Invariant P: an allocator's pool_used is the sum over its live blocks of
// their sizes plus kPoolOverhead each, and never exceeds pool_size (reserved
// by CAS before the memory is obtained, returned on failure and on free;
// omp_realloc may pass it for a moment, see mem_realloc).

#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "omp.h"
#include "runtime/alloc.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"
#include "ult/atomic.hpp"
#include "ult/log.hpp"
#include "ult/memory.hpp"

namespace bobbin::rt {

namespace {

// Every block is aligned to at least what malloc guarantees (max_align_t).
constexpr std::size_t kMinAlign = 16;
constexpr std::size_t kNoPool = SIZE_MAX;
// A chain of allocator_fb fallbacks longer than this is a cycle (each step
// needs a distinct allocator; no program makes 256 of them in a chain).
constexpr int kMaxFallbackChain = 256;
constexpr uint64_t kLiveAllocator = 0x626f62616c6c6f63;  // "boballoc"
constexpr uint64_t kDeadAllocator = 0x64656164616c6c6f;  // "deadallo"
constexpr uint64_t kLiveBlock = 0x626f62626c6f636b;      // "bobblock"
constexpr uint64_t kFreedBlock = 0x66726565626c6f63;     // "freebloc"

struct Allocator {
  // kLiveAllocator until omp_destroy_allocator. Relaxed: only a guard against
  // using a destroyed handle (itself a program error), it orders nothing.
  Atomic<uint64_t> magic{kLiveAllocator};
  const char* name = nullptr;  // for messages
  MemspaceHandle space = omp_default_mem_space;
  int sync_hint = omp_atv_contended;
  std::size_t alignment = 1;
  int access = omp_atv_all;
  std::size_t pool_size = kNoPool;
  int fallback = omp_atv_default_mem_fb;
  AllocatorHandle fb_data = 0;
  bool pinned = false;
  int partition = omp_atv_environment;
  bool predefined = false;
  // Invariant P. Relaxed: a budget, it publishes no data.
  Atomic<std::size_t> pool_used{0};
  // User allocators: 1 for the handle plus 1 per live block; the descriptor is
  // deleted when it reaches 0. acq_rel on decrements, so the deleting thread
  // sees every other user's last accesses.
  Atomic<int64_t> refs{1};
};

struct alignas(16) Header {
  uint64_t magic;         // kLiveBlock while the block is live
  Allocator* owner;       // the allocator that made it (after any fallback)
  void* base;             // what malloc or map_pages returned
  std::size_t size;       // bytes asked for (and charged to owner's pool)
  std::size_t mapped;     // length of the mapping at base; 0: from malloc
  std::size_t reserved_;  // keeps the header a multiple of 16 bytes
};
static_assert(sizeof(Header) % kMinAlign == 0, "the header must keep user pointers aligned");

// Predefined allocators, indexed by handle (spec 6.2 table 6.3; 5.1 gave
// omp_default_mem_alloc the null_fb fallback so that default_mem_fb ends).
constinit Allocator g_predefined[9];  // constant-initialised: see ult/eternal.hpp
std::once_flag g_predefined_once;

void init_predefined() {
  static const char* const names[9] = {"omp_null_allocator",    "omp_default_mem_alloc", "omp_large_cap_mem_alloc",
                                       "omp_const_mem_alloc",   "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",
                                       "omp_cgroup_mem_alloc",  "omp_pteam_mem_alloc",   "omp_thread_mem_alloc"};
  static const MemspaceHandle spaces[9] = {omp_default_mem_space, omp_default_mem_space,   omp_large_cap_mem_space,
                                           omp_const_mem_space,   omp_high_bw_mem_space,   omp_low_lat_mem_space,
                                           omp_default_mem_space, omp_default_mem_space,   omp_default_mem_space};
  for (int i = 1; i <= 8; ++i) {
    Allocator& a = g_predefined[i];
    a.name = names[i];
    a.space = spaces[i];
    a.predefined = true;
  }
  g_predefined[omp_default_mem_alloc].fallback = omp_atv_null_fb;
  g_predefined[omp_cgroup_mem_alloc].access = omp_atv_cgroup;
  g_predefined[omp_pteam_mem_alloc].access = omp_atv_pteam;
  g_predefined[omp_thread_mem_alloc].access = omp_atv_thread;
}

Allocator* predefined(AllocatorHandle h) {
  std::call_once(g_predefined_once, init_predefined);
  return &g_predefined[h];
}

bool is_power_of_two(uintptr_t v) { return v != 0 && (v & (v - 1)) == 0; }

bool host_memspace(MemspaceHandle m) { return m <= omp_low_lat_mem_space; }

const char* device_name(uintptr_t h) {
  switch (h) {
    case llvm_omp_target_host_mem_alloc: return "llvm_omp_target_host_mem_alloc (device memory)";
    case llvm_omp_target_shared_mem_alloc: return "llvm_omp_target_shared_mem_alloc (device memory)";
    default: return "llvm_omp_target_device_mem_alloc (device memory)";
  }
}

// Applies one trait to `a`; false (and why) if the key or value is invalid.
bool apply_trait(Allocator* a, int key, uintptr_t value, std::string* why) {
  const bool dflt = value == omp_atv_default;
  auto bad = [&](const char* what) {
    *why = what;
    return false;
  };
  switch (key) {
    case omp_atk_sync_hint:
      if (dflt) value = omp_atv_contended;
      if (value != omp_atv_contended && value != omp_atv_uncontended && value != omp_atv_serialized &&
          value != omp_atv_private)
        return bad("sync_hint must be contended, uncontended, serialized or private");
      a->sync_hint = int(value);
      return true;
    case omp_atk_alignment:
      if (dflt) value = 1;
      if (!is_power_of_two(value)) return bad("alignment must be a power of two");
      a->alignment = value;
      return true;
    case omp_atk_access:
      if (dflt) value = omp_atv_all;
      if (value != omp_atv_all && value != omp_atv_cgroup && value != omp_atv_pteam && value != omp_atv_thread)
        return bad("access must be all, cgroup, pteam or thread");
      a->access = int(value);
      return true;
    case omp_atk_pool_size:
      if (dflt) value = kNoPool;
      if (value == 0) return bad("pool_size must be positive");
      a->pool_size = value;
      return true;
    case omp_atk_fallback:
      if (dflt) value = omp_atv_default_mem_fb;
      if (value != omp_atv_default_mem_fb && value != omp_atv_null_fb && value != omp_atv_abort_fb &&
          value != omp_atv_allocator_fb)
        return bad("fallback must be default_mem_fb, null_fb, abort_fb or allocator_fb");
      a->fallback = int(value);
      return true;
    case omp_atk_fb_data:
      a->fb_data = dflt ? 0 : value;
      return true;
    case omp_atk_pinned:
      if (dflt) value = omp_atv_false;
      if (value != omp_atv_true && value != omp_atv_false) return bad("pinned must be true or false");
      a->pinned = value == omp_atv_true;
      return true;
    case omp_atk_partition:
      if (dflt) value = omp_atv_environment;
      if (value != omp_atv_environment && value != omp_atv_nearest && value != omp_atv_blocked &&
          value != omp_atv_interleaved)
        return bad("partition must be environment, nearest, blocked or interleaved");
      a->partition = int(value);
      return true;
    default:
      return bad("not an allocator trait");
  }
}

bool valid_handle(AllocatorHandle h) {
  if (h >= 1 && h <= 8) return true;
  if (h < 4096) return false;  // not a predefined handle, not an address either
  auto* a = reinterpret_cast<Allocator*>(h);
  return a->magic.load(memory_order_relaxed) == kLiveAllocator;
}

// The descriptor of a handle the caller gave; 0 means def-allocator-var.
Allocator* resolve(AllocatorHandle h, const char* routine) {
  if (h == omp_null_allocator) h = default_allocator();
  if (h >= 1 && h <= 8) return predefined(h);
  if (h >= llvm_omp_target_host_mem_alloc && h <= llvm_omp_target_device_mem_alloc) unsupported(device_name(h));
  auto* a = reinterpret_cast<Allocator*>(h);
  if (h < 4096 || a->magic.load(memory_order_relaxed) != kLiveAllocator) {
    fatal("%s: %#" PRIxPTR " is not an allocator handle (or it was destroyed)", routine, h);
  }
  return a;
}

bool needs_pages(const Allocator* a) {
  if (a->pinned) return true;
  if (a->partition == omp_atv_environment) return false;
  return ult::memory_nodes().size() > 1 || modelled_memory_nodes() > 1;
}

// The pages a partition trait placed on a modelled machine (see alloc.hpp):
// [begin, end) on `node`, or, interleaved, page k on node (k mod nodes).
struct ModelledPages {
  uintptr_t begin, end;
  int node;  // -1: interleaved
};
std::mutex g_modelled_mu;
std::vector<ModelledPages> g_modelled;  // guarded by g_modelled_mu
Atomic<bool> g_any_modelled{false};  // a hint: skip the lock while nothing is recorded

void note_modelled(void* base, std::size_t len, int node) {
  uintptr_t b = reinterpret_cast<uintptr_t>(base);
  std::lock_guard<std::mutex> g(g_modelled_mu);
  g_modelled.push_back(ModelledPages{b, b + len, node});
  g_any_modelled.store(true, memory_order_relaxed);
}

void forget_modelled(void* base, std::size_t len) {
  if (!g_any_modelled.load(memory_order_relaxed)) return;
  uintptr_t b = reinterpret_cast<uintptr_t>(base), e = b + len;
  std::lock_guard<std::mutex> g(g_modelled_mu);
  std::erase_if(g_modelled, [&](const ModelledPages& m) { return m.begin >= b && m.end <= e; });
}

// partition_pages on a modelled machine of `nodes` NUMA nodes.
void place_modelled(int partition, void* base, std::size_t len, int nodes) {
  switch (partition) {
    case omp_atv_nearest:
      note_modelled(base, len, modelled_memory_node_here());
      break;
    case omp_atv_interleaved:
      note_modelled(base, len, -1);
      break;
    case omp_atv_blocked: {
      std::size_t page = ult::page_size(), pages = len / page, k = std::size_t(nodes);
      std::size_t per = (pages + k - 1) / k;
      for (std::size_t i = 0; i < k && i * per < pages; ++i)
        note_modelled(static_cast<char*>(base) + i * per * page, std::min(per, pages - i * per) * page, int(i));
      break;
    }
    default:
      break;
  }
}

std::once_flag g_partition_warned;

// Places the pages of a fresh mapping as the partition trait says.
void partition_pages(const Allocator* a, void* base, std::size_t len) {
  const std::vector<int>& nodes = ult::memory_nodes();
  if (a->partition == omp_atv_environment) return;
  if (nodes.size() < 2) {
    if (int k = modelled_memory_nodes(); k > 1) place_modelled(a->partition, base, len, k);
    return;
  }
  bool ok = true;
  switch (a->partition) {
    case omp_atv_nearest: {
      int node = ult::current_memory_node();
      ok = node < 0 || ult::place_pages(base, len, ult::PagePolicy::Prefer, {node});
      break;
    }
    case omp_atv_interleaved:
      ok = ult::place_pages(base, len, ult::PagePolicy::Interleave, nodes);
      break;
    case omp_atv_blocked: {
      // One contiguous run of pages per node, in node order.
      std::size_t page = ult::page_size(), pages = len / page, k = nodes.size();
      std::size_t per = (pages + k - 1) / k;
      for (std::size_t i = 0; i < k && i * per < pages; ++i) {
        std::size_t first = i * per, n = std::min(per, pages - first);
        ok = ult::place_pages(static_cast<char*>(base) + first * page, n * page, ult::PagePolicy::Prefer, {nodes[i]}) && ok;
      }
      break;
    }
    default:
      break;
  }
  if (!ok) {
    int err = errno;
    std::call_once(g_partition_warned, [err] {
      warn("the partition allocator trait could not be applied (mbind: %s); pages go where the OS puts them",
           strerror(err));
    });
  }
}

enum class Failure { None, Pool, Memory, Pin, Overflow };

// What a block of `size` bytes takes from its allocator's pool: the header too.
constexpr std::size_t kPoolOverhead = sizeof(Header);

bool reserve_pool(Allocator* a, std::size_t size) {
  if (a->pool_size == kNoPool) return true;
  if (size > SIZE_MAX - kPoolOverhead) return false;
  size += kPoolOverhead;
  std::size_t used = a->pool_used.load(memory_order_relaxed);
  do {
    // used can exceed the pool for a moment while omp_realloc gives its
    // block's share back (mem_realloc).
    if (used > a->pool_size || size > a->pool_size - used) return false;
  } while (!a->pool_used.compare_exchange_weak(used, used + size, memory_order_relaxed, memory_order_relaxed));
  return true;
}

void release_pool(Allocator* a, std::size_t size) {
  if (a->pool_size != kNoPool) a->pool_used.fetch_sub(size + kPoolOverhead, memory_order_relaxed);
}

void release_ref(Allocator* a) {
  if (a->predefined) return;
  if (a->refs.fetch_sub(1, memory_order_acq_rel) == 1) delete a;
}

// One attempt with one allocator, no fallback.
void* allocate_from(Allocator* a, std::size_t size, std::size_t align, Failure* why) {
  if (a->alignment > align) align = a->alignment;
  if (align < kMinAlign) align = kMinAlign;
  if (size > SIZE_MAX - sizeof(Header) - align) {
    *why = Failure::Overflow;
    return nullptr;
  }
  if (!reserve_pool(a, size)) {
    *why = Failure::Pool;
    return nullptr;
  }
  std::size_t total = size + sizeof(Header) + (align - 1);
  void* base;
  std::size_t mapped = 0;
  if (!needs_pages(a)) {
    base = malloc(total);
    if (!base) *why = Failure::Memory;
  } else {
    std::size_t page = ult::page_size();
    mapped = (total + page - 1) / page * page;
    base = ult::map_pages(mapped);
    if (!base) {
      *why = Failure::Memory;
    } else {
      partition_pages(a, base, mapped);  // before anything touches the pages
      if (a->pinned && !ult::lock_pages(base, mapped)) {
        ult::unmap_pages(base, mapped);
        base = nullptr;
        *why = Failure::Pin;
      }
    }
  }
  if (!base) {
    release_pool(a, size);
    return nullptr;
  }
  uintptr_t user = (reinterpret_cast<uintptr_t>(base) + sizeof(Header) + align - 1) & ~uintptr_t(align - 1);
  auto* h = reinterpret_cast<Header*>(user) - 1;
  *h = Header{kLiveBlock, a, base, size, mapped, 0};
  // Relaxed: the caller holds a reference (the handle), so this cannot race
  // with the decrement that deletes the descriptor.
  if (!a->predefined) a->refs.fetch_add(1, memory_order_relaxed);
  return reinterpret_cast<void*>(user);
}

std::string failure_reason(const Allocator* a, Failure why, std::size_t size) {
  char buf[160];
  switch (why) {
    case Failure::Pool:
      snprintf(buf, sizeof buf, "its pool_size of %zu bytes has %zu in use", a->pool_size,
               a->pool_used.load(memory_order_relaxed));
      break;
    case Failure::Pin:
      snprintf(buf, sizeof buf, "the OS refused to pin %zu bytes: raise the locked-memory limit (ulimit -l)", size);
      break;
    case Failure::Overflow:
      snprintf(buf, sizeof buf, "the size is too large");
      break;
    default:
      snprintf(buf, sizeof buf, "out of memory");
      break;
  }
  return buf;
}

// One allocation with the fallback chain of spec 6.2 table 6.2.
void* allocate(std::size_t size, std::size_t align, AllocatorHandle h, const char* routine) {
  if (align != 0 && !is_power_of_two(align)) fatal("%s: alignment %zu is not a power of two", routine, align);
  Allocator* a = resolve(h, routine);
  for (int step = 0;; ++step) {
    Failure why = Failure::None;
    if (void* p = allocate_from(a, size, align, &why)) return p;
    switch (a->fallback) {
      case omp_atv_null_fb:
        return nullptr;
      case omp_atv_abort_fb:
        fatal("%s: %s could not allocate %zu bytes (%s), and its fallback trait is abort_fb", routine,
              a->name, size, failure_reason(a, why, size).c_str());
      case omp_atv_allocator_fb:
        a = resolve(a->fb_data, routine);
        break;
      default:  // default_mem_fb
        a = predefined(omp_default_mem_alloc);
        break;
    }
    if (step == kMaxFallbackChain) fatal("%s: the allocator_fb fallbacks of %s form a cycle", routine, a->name);
  }
}

Header* header_of(void* p, const char* routine) {
  auto* h = static_cast<Header*>(p) - 1;
  if (h->magic != kLiveBlock) {
    fatal("%s: %p was %s", routine, p,
          h->magic == kFreedBlock ? "already freed" : "not allocated by an OpenMP memory allocator");
  }
  return h;
}

// ---- OMP_ALLOCATOR -------------------------------------------------------------

struct Name {
  const char* name;
  uintptr_t value;
};
const Name kAllocatorNames[] = {
    {"omp_default_mem_alloc", omp_default_mem_alloc}, {"omp_large_cap_mem_alloc", omp_large_cap_mem_alloc},
    {"omp_const_mem_alloc", omp_const_mem_alloc},     {"omp_high_bw_mem_alloc", omp_high_bw_mem_alloc},
    {"omp_low_lat_mem_alloc", omp_low_lat_mem_alloc}, {"omp_cgroup_mem_alloc", omp_cgroup_mem_alloc},
    {"omp_pteam_mem_alloc", omp_pteam_mem_alloc},     {"omp_thread_mem_alloc", omp_thread_mem_alloc},
};
const Name kSpaceNames[] = {
    {"omp_default_mem_space", omp_default_mem_space}, {"omp_large_cap_mem_space", omp_large_cap_mem_space},
    {"omp_const_mem_space", omp_const_mem_space},     {"omp_high_bw_mem_space", omp_high_bw_mem_space},
    {"omp_low_lat_mem_space", omp_low_lat_mem_space},
};
const Name kTraitNames[] = {
    {"sync_hint", omp_atk_sync_hint}, {"alignment", omp_atk_alignment}, {"access", omp_atk_access},
    {"pool_size", omp_atk_pool_size}, {"fallback", omp_atk_fallback},   {"fb_data", omp_atk_fb_data},
    {"pinned", omp_atk_pinned},       {"partition", omp_atk_partition},
};
const Name kValueNames[] = {
    {"false", omp_atv_false},
    {"true", omp_atv_true},
    {"contended", omp_atv_contended},
    {"uncontended", omp_atv_uncontended},
    {"serialized", omp_atv_serialized},
    {"sequential", omp_atv_sequential},
    {"private", omp_atv_private},
    {"all", omp_atv_all},
    {"thread", omp_atv_thread},
    {"pteam", omp_atv_pteam},
    {"cgroup", omp_atv_cgroup},
    {"default_mem_fb", omp_atv_default_mem_fb},
    {"null_fb", omp_atv_null_fb},
    {"abort_fb", omp_atv_abort_fb},
    {"allocator_fb", omp_atv_allocator_fb},
    {"environment", omp_atv_environment},
    {"nearest", omp_atv_nearest},
    {"blocked", omp_atv_blocked},
    {"interleaved", omp_atv_interleaved},
    {"default", omp_atv_default},
};

template <std::size_t N>
bool lookup(const Name (&table)[N], const std::string& s, uintptr_t* out) {
  for (const Name& n : table)
    if (s == n.name) {
      *out = n.value;
      return true;
    }
  return false;
}

std::string strip_spaces(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t') out += c;
  return out;
}

// Bytes, with an optional K/M/G suffix (KiB, MiB, GiB).
bool parse_bytes(const std::string& s, uintptr_t* out) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  errno = 0;
  char* end;
  unsigned long long v = strtoull(s.c_str(), &end, 10);
  if (errno) return false;
  unsigned shift = 0;
  switch (*end) {
    case 0: break;
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    default: return false;
  }
  if (*end || v > (UINTPTR_MAX >> shift)) return false;
  *out = uintptr_t(v) << shift;
  return true;
}

std::once_flag g_initial_once;
AllocatorHandle g_initial_allocator = omp_default_mem_alloc;

AllocatorHandle initial_allocator() {
  std::call_once(g_initial_once, [] {
    const AllocatorSetting& s = settings().allocator;
    if (s.predefined) {
      g_initial_allocator = s.predefined;
      return;
    }
    std::vector<AllocTrait> traits;
    for (const auto& [k, v] : s.traits) traits.push_back(AllocTrait{k, v});
    AllocatorHandle h = init_allocator(s.memspace, int(traits.size()), traits.data());
    if (h == omp_null_allocator) {
      warn_setting("OMP_ALLOCATOR", SettingWarning::Invalid,
                   "ignoring OMP_ALLOCATOR='%s' (no allocator has those traits); using omp_default_mem_alloc",
                   s.text.c_str());
      h = omp_default_mem_alloc;
    }
    g_initial_allocator = h;
  });
  return g_initial_allocator;
}

}  // namespace

bool parse_allocator_setting(const std::string& text, AllocatorSetting* out, std::string* why) {
  std::string s = strip_spaces(text);
  AllocatorSetting r;
  r.text = s;
  uintptr_t v;
  if (lookup(kAllocatorNames, s, &v)) {
    r.predefined = v;
    *out = r;
    return true;
  }
  std::size_t colon = s.find(':');
  std::string space = s.substr(0, colon);
  if (!lookup(kSpaceNames, space, &r.memspace)) {
    *why = "'" + space + "' is neither a predefined allocator nor a predefined memory space";
    return false;
  }
  r.predefined = 0;
  Allocator probe;  // checks each trait as omp_init_allocator will
  probe.name = "OMP_ALLOCATOR";
  std::size_t pos = colon == std::string::npos ? s.size() : colon + 1;
  while (pos < s.size()) {
    std::size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? s.size() : comma + 1;
    std::size_t eq = item.find('=');
    uintptr_t key;
    if (eq == std::string::npos || !lookup(kTraitNames, item.substr(0, eq), &key)) {
      *why = "'" + item + "' is not trait=value with a known trait";
      return false;
    }
    std::string val = item.substr(eq + 1);
    uintptr_t value;
    bool ok;
    if (key == omp_atk_alignment || key == omp_atk_pool_size) {
      ok = parse_bytes(val, &value) || (val == "default" && (value = omp_atv_default, true));
    } else if (key == omp_atk_fb_data) {
      ok = lookup(kAllocatorNames, val, &value);
    } else {
      ok = lookup(kValueNames, val, &value);
    }
    if (!ok) {
      *why = "'" + val + "' is not a value of " + item.substr(0, eq);
      return false;
    }
    std::string bad;
    if (!apply_trait(&probe, int(key), value, &bad)) {
      *why = bad;
      return false;
    }
    r.traits.emplace_back(int(key), value);
  }
  if (probe.fallback == omp_atv_allocator_fb && probe.fb_data == 0) {
    *why = "fallback=allocator_fb needs fb_data";
    return false;
  }
  *out = r;
  return true;
}

AllocatorHandle init_allocator(MemspaceHandle space, int ntraits, const AllocTrait* traits) {
  if (space >= llvm_omp_target_host_mem_space && space <= llvm_omp_target_device_mem_space) {
    unsupported("memory spaces of offload devices (llvm_omp_target_*_mem_space)");
  }
  if (!host_memspace(space)) {
    warn("omp_init_allocator: %#" PRIxPTR " is not a memory space; returning omp_null_allocator", space);
    return omp_null_allocator;
  }
  auto* a = new Allocator;
  a->name = "an allocator from omp_init_allocator";
  a->space = space;
  for (int i = 0; i < ntraits; ++i) {
    std::string why;
    if (!apply_trait(a, traits[i].key, traits[i].value, &why)) {
      warn("omp_init_allocator: trait %d = %#" PRIxPTR ": %s; returning omp_null_allocator", traits[i].key,
           traits[i].value, why.c_str());
      delete a;
      return omp_null_allocator;
    }
  }
  if (a->fallback == omp_atv_allocator_fb && !valid_handle(a->fb_data)) {
    warn("omp_init_allocator: fallback allocator_fb needs fb_data to be an allocator; returning omp_null_allocator");
    delete a;
    return omp_null_allocator;
  }
  return reinterpret_cast<AllocatorHandle>(a);
}

void destroy_allocator(AllocatorHandle h) {
  if (h == omp_null_allocator) return;  // allowed, no effect
  if (h <= 8) fatal("omp_destroy_allocator: %#" PRIxPTR " is a predefined allocator", h);
  Allocator* a = resolve(h, "omp_destroy_allocator");
  a->magic.store(kDeadAllocator, memory_order_relaxed);
  release_ref(a);
}

void set_default_allocator(AllocatorHandle h) {
  if (h != omp_null_allocator) resolve(h, "omp_set_default_allocator");  // reject a bad handle now
  writable_icvs(current_thread_fast()).def_allocator = h;
}

AllocatorHandle default_allocator() {
  AllocatorHandle h = current_thread_fast()->icv.def_allocator;
  return h != omp_null_allocator ? h : initial_allocator();
}

void* mem_alloc(std::size_t size, std::size_t align, AllocatorHandle a) {
  if (size == 0) return nullptr;
  return allocate(size, align, a, align ? "omp_aligned_alloc" : "omp_alloc");
}

void* mem_aligned_malloc(std::size_t size, std::size_t align) {
  if (align != 0 && !is_power_of_two(align)) {
    errno = EINVAL;
    return nullptr;
  }
  return mem_alloc(size, align, omp_default_mem_alloc);
}

void* mem_calloc(std::size_t n, std::size_t size, std::size_t align, AllocatorHandle a) {
  if (n == 0 || size == 0) return nullptr;
  const char* routine = align ? "omp_aligned_calloc" : "omp_calloc";
  // A product that does not fit is a size no allocator can give: the
  // fallback trait decides (null, or abort naming the size as too large).
  std::size_t bytes = size > SIZE_MAX / n ? SIZE_MAX : n * size;
  void* p = allocate(bytes, align, a, routine);
  if (p) {
    Header* h = static_cast<Header*>(p) - 1;
    // Fresh mappings are already zero; malloc's memory is not.
    if (!h->mapped) memset(p, 0, bytes);
  }
  return p;
}

void* mem_realloc(void* p, std::size_t size, AllocatorHandle a, AllocatorHandle) {
  if (!p) return mem_alloc(size, 0, a);
  if (size == 0) {
    mem_free(p);
    return nullptr;
  }
  Header* old = header_of(p, "omp_realloc");
  // omp_null_allocator with a block: the block's own allocator (spec 6.2.7).
  AllocatorHandle target = a != omp_null_allocator ? a
                           : old->owner->predefined ? AllocatorHandle(old->owner - g_predefined)
                                                    : reinterpret_cast<AllocatorHandle>(old->owner);
  // Into the block's own allocator: the old block's share of a pool is
  // free for the new one (the old block goes), as realloc grows a block
  // in place; it is taken back at once, and the free below returns it.
  Allocator* owner = old->owner;
  bool same_pool = owner->pool_size != kNoPool &&
                   target == (owner->predefined ? AllocatorHandle(owner - g_predefined)
                                                : reinterpret_cast<AllocatorHandle>(owner));
  if (same_pool) release_pool(owner, old->size);
  void* q = allocate(size, 0, target, "omp_realloc");
  if (same_pool) owner->pool_used.fetch_add(old->size + kPoolOverhead, memory_order_relaxed);
  if (!q) return nullptr;  // the old block stays
  memcpy(q, p, old->size < size ? old->size : size);
  mem_free(p);
  return q;
}

int modelled_node_of(const void* addr) {
  if (!g_any_modelled.load(memory_order_relaxed)) return -1;
  uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  std::lock_guard<std::mutex> g(g_modelled_mu);
  for (auto it = g_modelled.rbegin(); it != g_modelled.rend(); ++it)
    if (a >= it->begin && a < it->end) {
      if (it->node >= 0) return it->node;
      return int((a - it->begin) / ult::page_size() % std::size_t(modelled_memory_nodes()));
    }
  return -1;
}

void mem_free(void* p) {
  if (!p) return;
  Header* h = header_of(p, "omp_free");
  Header copy = *h;
  h->magic = kFreedBlock;
  release_pool(copy.owner, copy.size);
  if (copy.mapped) {
    forget_modelled(copy.base, copy.mapped);
    ult::unmap_pages(copy.base, copy.mapped);
  } else {
    free(copy.base);
  }
  release_ref(copy.owner);
}

}  // namespace bobbin::rt
