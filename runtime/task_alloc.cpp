// Task memory: per-worker stacks of free chunks in cache-line-rounded size
// classes, refilled in batches from a shared pool per NUMA node (the node of
// the worker's core, from the topology tree: task_memory_place).
//
// A task is usually freed by the worker that ran it, which is usually the one
// that created it; a freed chunk goes to the freeing worker's stack, so in
// the common case allocation and free are a pointer pop and push with no
// atomic at all. A worker whose stack grows past kMaxLocal gives half back to
// the shared pool; an empty stack takes kBatch chunks from it, and the pool
// carves new slabs from the system when it is empty. Sizes above the largest
// class go straight to the system allocator.
#include <cstdlib>
#include <mutex>

#include "runtime/task.hpp"
#include "ult/log.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt {

namespace {

// 128 B .. 4 KiB: a task header is about 150 bytes and typical payloads
// (captured pointers, firstprivate scalars) are small.
constexpr int kClasses = 6;
constexpr std::size_t kClassSize[kClasses] = {256, 512, 1024, 2048, 4096, 8192};
constexpr uint8_t kSystem = 0xff;
constexpr std::size_t kBatch = 32;     // chunks moved between a worker and the pool at once (a guess)
constexpr std::size_t kMaxLocal = 256; // chunks a worker keeps per class before giving back (a guess)

struct Chunk {
  Chunk* next;
};

struct Stack {
  Chunk* head = nullptr;
  std::size_t count = 0;
};

struct alignas(kCacheLine) WorkerCache {
  Stack cls[kClasses];
};

struct Pool {
  std::mutex mutex;
  Stack cls[kClasses];
};

// One pool per NUMA domain; a worker refills from and gives back to its own
// domain's. A slab is carved (and its chunks' links written, which is the
// first touch that places its pages) by a worker of that domain. Threads
// outside the pool use domain 0's. Domains beyond kMaxNodes share pools
// (modulo).
constexpr int kMaxNodes = 64;
Pool g_pools[kMaxNodes];
uint8_t g_node_of_worker[ult::Worker::kMaxWorkers];  // zero until task_memory_place
WorkerCache g_caches[ult::Worker::kMaxWorkers];

Pool& pool_of(const ult::Worker* w) { return g_pools[w && w->in_pool() ? g_node_of_worker[w->id()] : 0]; }

int class_of(std::size_t bytes) {
  for (int c = 0; c < kClasses; ++c)
    if (bytes <= kClassSize[c]) return c;
  return -1;
}

void refill(Pool& pool, Stack& s, int c) {
  std::lock_guard<std::mutex> g(pool.mutex);
  Stack& p = pool.cls[c];
  while (s.count < kBatch && p.head) {
    Chunk* ch = p.head;
    p.head = ch->next;
    --p.count;
    ch->next = s.head;
    s.head = ch;
    ++s.count;
  }
  if (s.count) return;
  // Carve a slab of kBatch chunks, cache-line aligned.
  char* slab = static_cast<char*>(aligned_alloc(kCacheLine, kClassSize[c] * kBatch));
  if (!slab) fatal("out of memory allocating task descriptors (%zu bytes)", kClassSize[c] * kBatch);
  for (std::size_t i = 0; i < kBatch; ++i) {
    auto* ch = reinterpret_cast<Chunk*>(slab + i * kClassSize[c]);
    ch->next = s.head;
    s.head = ch;
    ++s.count;
  }
}

void give_back(Pool& pool, Stack& s, int c, std::size_t n) {
  std::lock_guard<std::mutex> g(pool.mutex);
  Stack& p = pool.cls[c];
  while (n-- && s.head) {
    Chunk* ch = s.head;
    s.head = ch->next;
    --s.count;
    ch->next = p.head;
    p.head = ch;
    ++p.count;
  }
}

Stack* local_stack(const ult::Worker* w, int c) {
  if (!w || !w->in_pool()) return nullptr;
  return &g_caches[w->id()].cls[c];
}

}  // namespace

void task_memory_place(const std::vector<int>& node_of_core) {
  if (node_of_core.empty()) return;
  for (int w = 0; w < ult::Worker::kMaxWorkers; ++w)
    g_node_of_worker[w] = uint8_t(node_of_core[std::size_t(w) % node_of_core.size()] % kMaxNodes);
}

void* task_memory_alloc(std::size_t bytes, uint8_t* size_class) {
  int c = class_of(bytes);
  if (c < 0) {
    *size_class = kSystem;
    void* p = aligned_alloc(kCacheLine, (bytes + kCacheLine - 1) / kCacheLine * kCacheLine);
    if (!p) fatal("out of memory allocating a %zu-byte task", bytes);
    return p;
  }
  *size_class = uint8_t(c);
  ult::Worker* w = ult::Worker::current();
  Stack* s = local_stack(w, c);
  if (!s) {  // a thread outside the pool: straight from the shared pool
    Stack tmp;
    refill(pool_of(w), tmp, c);
    Chunk* ch = tmp.head;
    tmp.head = ch->next;
    --tmp.count;
    give_back(pool_of(w), tmp, c, tmp.count);
    return ch;
  }
  if (!s->head) refill(pool_of(w), *s, c);
  Chunk* ch = s->head;
  s->head = ch->next;
  --s->count;
  return ch;
}

void task_memory_free(void* p, uint8_t size_class) {
  if (size_class == kSystem) {
    free(p);
    return;
  }
  int c = size_class;
  ult::Worker* w = ult::Worker::current();
  Stack* s = local_stack(w, c);
  auto* ch = static_cast<Chunk*>(p);
  if (!s) {
    Stack tmp;
    tmp.head = ch;
    ch->next = nullptr;
    tmp.count = 1;
    give_back(pool_of(w), tmp, c, 1);
    return;
  }
  ch->next = s->head;
  s->head = ch;
  if (++s->count > kMaxLocal) give_back(pool_of(w), *s, c, s->count / 2);
}

}  // namespace bobbin::rt
