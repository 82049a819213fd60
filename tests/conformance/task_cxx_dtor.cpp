// C++ objects in task firstprivate: the task's copy is made with the copy
// constructor when the task is created (it sees the value at that moment,
// even if the original changes later), and destroyed by the runtime
// (clang's destructors thunk) once the body has run, so every copy is gone
// when taskwait, taskgroup or the barrier returns; deep copies (std::string,
// std::vector) and an over-aligned class arrive intact; also for mergeable
// (untied when built with -DCONF_UNTIED: the destructors may run only after
// the last part of clang's untied state machine), if(0), final and taskloop
// tasks.
#include <atomic>
#include <string>
#include <vector>

#include "check.h"

#ifdef CONF_UNTIED
#define SECOND_KIND untied
#define KIND_NAME "untied"
#else
#define SECOND_KIND mergeable
#define KIND_NAME "mergeable"
#endif

static std::atomic<long> live{0}, copies{0};

struct alignas(64) Tracked {
  int v;
  std::string name;
  std::vector<int> data;
  explicit Tracked(int x) : v(x), name("tracked-" + std::to_string(x)), data(100, x) { ++live; }
  Tracked(const Tracked &o) : v(o.v), name(o.name), data(o.data) {
    ++live;
    ++copies;
  }
  ~Tracked() {
    CHECK(v >= 0, "Tracked destroyed twice (v = %d)", v);
    v = -1;
    --live;
  }
  bool intact(int x) const {
    if (v != x || name != "tracked-" + std::to_string(x) || data.size() != 100)
      return false;
    for (int d : data)
      if (d != x)
        return false;
    return (reinterpret_cast<uintptr_t>(this) & 63) == 0;
  }
};

static std::atomic<int> ran{0};

static void make_tasks(const char *where) {
  Tracked obj(7);
  for (int i = 0; i < 50; i++) {
    obj.v = i; // the copy must carry this value, not a later one
    obj.name = "tracked-" + std::to_string(i);
    obj.data.assign(100, i);
    switch (i % 4) {
    case 0:
#pragma omp task firstprivate(obj, i)
      {
        CHECK(obj.intact(i), "%s: plain task %d: firstprivate copy not intact (v=%d)", where, i, obj.v);
        ++ran;
      }
      break;
    case 1:
      CONF_PRAGMA(omp task SECOND_KIND firstprivate(obj, i))
      {
        CHECK(obj.intact(i), "%s: " KIND_NAME " task %d: firstprivate copy not intact (v=%d)", where, i, obj.v);
        ++ran;
      }
      break;
    case 2:
#pragma omp task if(0) firstprivate(obj, i)
      {
        CHECK(obj.intact(i), "%s: if(0) task %d: firstprivate copy not intact (v=%d)", where, i, obj.v);
        ++ran;
      }
      break;
    default:
#pragma omp task final(1) firstprivate(obj, i)
      {
        CHECK(obj.intact(i), "%s: final task %d: firstprivate copy not intact (v=%d)", where, i, obj.v);
        ++ran;
      }
    }
  }
}

int main() {
#pragma omp parallel
#pragma omp single
  {
    make_tasks("single");
#pragma omp taskwait
    CHECK(live == 0, "after taskwait: %ld Tracked objects alive (task copies not destroyed)", live.load());
#pragma omp taskgroup
    make_tasks("taskgroup");
    CHECK(live == 0, "after taskgroup: %ld Tracked objects alive", live.load());
    Tracked base(3);
#pragma omp taskloop firstprivate(base) grainsize(2)
    for (int i = 0; i < 40; i++) {
      CHECK(base.intact(3), "taskloop iteration %d: firstprivate copy not intact", i);
      ++ran;
    }
    CHECK(live == 1, "after taskloop: %ld Tracked objects alive, want 1 (the original)", live.load());
  }
  // Count the threads that ran the region itself (clang -O2 folds an
  // omp_get_num_threads() stored from thread 0 here into the wrong value).
  std::atomic<int> participants{0};
#pragma omp parallel
  {
    ++participants;
    make_tasks("every thread");
  }
  int nthreads = participants.load();
  CHECK(live == 0, "after the barrier: %ld Tracked objects alive", live.load());
  CHECK_EQ("task bodies run", ran.load(), 50 * 2 + 40 + 50 * nthreads);
  CHECK(copies >= 50 * (2 + nthreads), "only %ld copies made for %d firstprivate tasks", copies.load(),
        50 * (2 + nthreads));
  return conf_end();
}
