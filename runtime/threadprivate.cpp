// threadprivate variables when the compiler does not use native TLS
// (-fno-openmp-use-tls): every access asks for this thread's copy.
//
// The compiler keeps one pointer-sized cache slot per variable; we store our
// own table there: an array of copies indexed by global thread id. Tables
// only grow, and an old table is never freed (a reader may still hold it:
// it stays on a list of retired tables), so the fast path is one acquire
// load and an index. The maps below are never destroyed: threads may still
// ask for their copies after the program's static destructors ran. The initial thread uses the
// original variable, as with libomp; other threads get copies made from a
// snapshot of the original taken at its first use (its static initial value),
// or built by the registered C++ constructors.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "runtime/api.hpp"
#include "runtime/team.hpp"
#include "ult/eternal.hpp"
#include "ult/log.hpp"

namespace bobbin::rt {

namespace {

struct Table {
  std::size_t cap;
  Table* retired_next;  // on g_retired once a larger table replaced it
  void* slot[1];        // cap entries
};

struct VarInfo {
  void* snapshot = nullptr;
  void* (*ctor)(void*) = nullptr;
  void* (*cctor)(void*, void*) = nullptr;
  void (*dtor)(void*) = nullptr;
  // Vector constructors (an array of vec_len elements); dtors, as the scalar
  // one, are kept for a future thread-exit pass.
  void* (*ctor_vec)(void*, std::size_t) = nullptr;
  void* (*cctor_vec)(void*, void*, std::size_t) = nullptr;
  void (*dtor_vec)(void*, std::size_t) = nullptr;
  std::size_t vec_len = 0;
};

constinit ult::Eternal<std::mutex> g_mutex_storage;
constinit std::mutex& g_mutex = g_mutex_storage.value;  // guards vars() and table growth; never held across user code but constructors
// Guarded by g_mutex. Built on first use (a map has no constant initialiser:
// ult/eternal.hpp); never destroyed.
std::unordered_map<void*, VarInfo>& vars() {
  static auto& m = *new std::unordered_map<void*, VarInfo>;
  return m;
}
Table* g_retired = nullptr;  // guarded by g_mutex

Table* new_table(std::size_t cap, const Table* old) {
  auto* t = static_cast<Table*>(calloc(1, sizeof(Table) + cap * sizeof(void*)));
  if (!t) fatal("out of memory allocating a threadprivate table of %zu entries", cap);
  t->cap = cap;
  if (old) memcpy(t->slot, old->slot, old->cap * sizeof(void*));
  return t;
}

void* make_copy(void* original, std::size_t size, VarInfo& info) {
  void* copy = aligned_alloc(64, (size + 63) / 64 * 64);
  if (!copy) fatal("out of memory allocating a %zu-byte threadprivate copy", size);
  if (info.ctor_vec) {
    info.ctor_vec(copy, info.vec_len);
  } else if (info.cctor_vec) {
    info.cctor_vec(copy, original, info.vec_len);
  } else if (info.ctor) {
    info.ctor(copy);
  } else if (info.cctor) {
    info.cctor(copy, original);
  } else {
    memcpy(copy, info.snapshot ? info.snapshot : original, size);
  }
  return copy;
}

}  // namespace

// Entry points without a cache slot of the compiler's: one kept here per
// variable (an unordered_map's values do not move when it grows).
void* threadprivate_lookup(void* original, std::size_t size) {
  static auto& caches = *new std::unordered_map<void*, void**>;  // guarded by g_mutex
  void*** cache;
  {
    std::lock_guard<std::mutex> g(g_mutex);
    void**& slot = caches[original];
    cache = &slot;
  }
  return threadprivate_cached(original, size, cache);
}

void* threadprivate_cached(void* original, std::size_t size, void*** cache) {
  int gtid = current_thread_fast()->gtid;
  auto* slot = reinterpret_cast<Table**>(cache);
  // acquire: pairs with the release that published the table.
  Table* tab = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (tab && std::size_t(gtid) < tab->cap) {
    void* p = __atomic_load_n(&tab->slot[gtid], __ATOMIC_ACQUIRE);
    if (p) return p;
  }
  std::lock_guard<std::mutex> g(g_mutex);
  VarInfo& info = vars()[original];
  if (!info.snapshot && !info.ctor && !info.cctor && !info.ctor_vec && !info.cctor_vec) {
    info.snapshot = malloc(size ? size : 1);
    if (!info.snapshot) fatal("out of memory taking a threadprivate snapshot");
    memcpy(info.snapshot, original, size);
  }
  tab = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!tab || std::size_t(gtid) >= tab->cap) {
    std::size_t cap = tab ? tab->cap : 64;
    while (cap <= std::size_t(gtid)) cap *= 2;
    Table* grown = new_table(cap, tab);
    __atomic_store_n(slot, grown, __ATOMIC_RELEASE);
    if (tab) {  // the old table stays allocated: readers may hold it
      tab->retired_next = g_retired;
      g_retired = tab;
    }
    tab = grown;
  }
  void* p = tab->slot[gtid];
  if (!p) {
    p = gtid == 0 ? original : make_copy(original, size, info);
    __atomic_store_n(&tab->slot[gtid], p, __ATOMIC_RELEASE);
  }
  return p;
}

void threadprivate_register(void* original, void* (*ctor)(void*), void* (*cctor)(void*, void*), void (*dtor)(void*)) {
  std::lock_guard<std::mutex> g(g_mutex);
  VarInfo& info = vars()[original];
  info.ctor = ctor;
  info.cctor = cctor;
  info.dtor = dtor;
}

void threadprivate_register_vec(void* original, void* (*ctor)(void*, std::size_t),
                                void* (*cctor)(void*, void*, std::size_t), void (*dtor)(void*, std::size_t),
                                std::size_t vector_length) {
  std::lock_guard<std::mutex> g(g_mutex);
  VarInfo& info = vars()[original];
  info.ctor_vec = ctor;
  info.cctor_vec = cctor;
  info.dtor_vec = dtor;
  info.vec_len = vector_length;
}

void threadprivate_set_initial(void* original, const void* data, std::size_t size) {
  std::lock_guard<std::mutex> g(g_mutex);
  VarInfo& info = vars()[original];
  void* snap = malloc(size ? size : 1);
  if (!snap) fatal("out of memory taking a threadprivate snapshot");
  memcpy(snap, data, size);
  free(info.snapshot);
  info.snapshot = snap;
}

}  // namespace bobbin::rt
