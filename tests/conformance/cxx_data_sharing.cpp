// C++ objects in data-sharing clauses: private default-constructs one
// object per thread and destroys it; firstprivate copy-constructs from the
// original; lastprivate default-constructs, then copy-assigns the
// sequentially last iteration's value to the original; every object
// constructed is destroyed by the end of the construct.
#include <atomic>
#include <string>

#include "check.h"

static std::atomic<int> constructed{0}, destroyed{0}, copies{0}, assigns{0};

struct Tracked {
  int value;
  std::string tag;
  Tracked() : value(-1), tag("default") { constructed++; }
  explicit Tracked(int v) : value(v), tag("v" + std::to_string(v)) { constructed++; }
  Tracked(const Tracked &o) : value(o.value), tag(o.tag) {
    constructed++;
    copies++;
  }
  Tracked &operator=(const Tracked &o) {
    value = o.value;
    tag = o.tag;
    assigns++;
    return *this;
  }
  ~Tracked() { destroyed++; }
};

static void reset() { constructed = destroyed = copies = assigns = 0; }
static int live() { return constructed - destroyed; }

int main() {
  const int n = 5;
  {
    Tracked orig(7);
    reset();
    int bad = 0;
#pragma omp parallel num_threads(n) private(orig) reduction(+ : bad)
    {
      bad += orig.value != -1 || orig.tag != "default";
      orig.value = omp_get_thread_num();
    }
    CHECK_EQ("private: bad default-constructed copies", bad, 0);
    CHECK_EQ("private: constructions", constructed.load(), n);
    CHECK_EQ("private: live objects after the region", live(), 0);
    CHECK_EQ("private: original's value", orig.value, 7);
  }
  {
    Tracked orig(9);
    reset();
    int bad = 0;
#pragma omp parallel num_threads(n) firstprivate(orig) reduction(+ : bad)
    {
      bad += orig.value != 9 || orig.tag != "v9";
      orig.value = 100 + omp_get_thread_num();
    }
    CHECK_EQ("firstprivate: copies with the wrong value", bad, 0);
    CHECK_EQ("firstprivate: copy constructions", copies.load(), n);
    CHECK_EQ("firstprivate: live objects after the region", live(), 0);
    CHECK_EQ("firstprivate: original's value", orig.value, 9);
  }
  {
    Tracked last(0);
    reset();
#pragma omp parallel for num_threads(n) lastprivate(last) schedule(monotonic: dynamic, 3)
    for (int i = 0; i < 100; i++)
      last = Tracked(i);
    CHECK_EQ("lastprivate: value", last.value, 99);
    CHECK(last.tag == "v99", "lastprivate: tag %s", last.tag.c_str());
    CHECK_EQ("lastprivate: live objects after the loop", live(), 0);
    CHECK(assigns.load() >= 101, "lastprivate: %d copy-assignments", assigns.load());
  }
  {
    // firstprivate and lastprivate on the same variable of a worksharing loop.
    Tracked both(5);
    reset();
#pragma omp parallel num_threads(3)
    {
#pragma omp for firstprivate(both) lastprivate(both)
      for (int i = 0; i < 9; i++)
        both.value += 1; // each thread's copy starts at 5
    }
    CHECK_EQ("firstprivate+lastprivate: value", both.value, 5 + 3);
    CHECK_EQ("firstprivate+lastprivate: live objects", live(), 0);
  }
  return conf_end();
}
