// Fibers on one worker: switch, yield, park/unpark, stack reuse, guard pages.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/unit/ult_helpers.hpp"
#include "ult/guard.hpp"
#include "ult/stack_pool.hpp"

using namespace bobbin;
using namespace bobbin::ult;
using bobbin::test::PoolScope;
using bobbin::test::wait_until;

namespace {
std::vector<std::string> g_log;

void yielder(Fiber* f) {
  const char* name = static_cast<const char*>(f->user());
  for (int i = 0; i < 3; ++i) {
    g_log.push_back(std::string(name) + std::to_string(i));
    Worker::yield();
  }
}
}  // namespace

TEST_CASE("two fibers on one worker alternate when they yield", "[ult][fiber]") {
  PoolScope pool(1);
  g_log.clear();
  Fiber a, b;
  a.prepare(&yielder, const_cast<char*>("a"));
  b.prepare(&yielder, const_cast<char*>("b"));
  Worker::at(0)->submit(&a);
  Worker::at(0)->submit(&b);
  REQUIRE(wait_until([&] { return a.reusable() && b.reusable(); }));
  REQUIRE(g_log == std::vector<std::string>{"a0", "b0", "a1", "b1", "a2", "b2"});
}

TEST_CASE("a parked fiber resumes after unpark, once", "[ult][fiber]") {
  PoolScope pool(1);
  static std::atomic<int> stage{0};
  stage = 0;
  Fiber a;
  a.prepare(
      [](Fiber*) {
        stage = 1;
        while (stage.load() < 2) Worker::park();  // park may return spuriously
        stage = 3;
      },
      nullptr);
  Worker::at(0)->submit(&a);
  REQUIRE(wait_until([] { return stage.load() == 1; }));
  // The fiber is parked: yielding must not run it.
  for (int i = 0; i < 10; ++i) Worker::yield();
  REQUIRE(stage.load() == 1);
  stage = 2;
  Worker::unpark(&a);
  REQUIRE(wait_until([&] { return a.reusable(); }));
  REQUIRE(stage.load() == 3);
}

TEST_CASE("an unpark that comes before the park is not lost", "[ult][fiber]") {
  PoolScope pool(1);
  Fiber a;
  static bool ran;
  ran = false;
  a.prepare(
      [](Fiber* self) {
        Worker::unpark(self);  // permit first ...
        Worker::park();        // ... so this returns at once
        ran = true;
      },
      nullptr);
  Worker::at(0)->submit(&a);
  REQUIRE(wait_until([&] { return a.reusable(); }, 5.0));
  REQUIRE(ran);
}

TEST_CASE("a finished fiber's stack is reused by the next fiber", "[ult][fiber]") {
  PoolScope pool(1);
  static void* seen[2];
  Fiber a;
  for (int i = 0; i < 2; ++i) {
    a.prepare([](Fiber* f) { seen[reinterpret_cast<intptr_t>(f->user())] = f->stack().base; },
              reinterpret_cast<void*>(intptr_t(i)));
    Worker::at(0)->submit(&a);
    REQUIRE(wait_until([&] { return a.reusable(); }));
  }
  REQUIRE(seen[0] != nullptr);
  REQUIRE(seen[0] == seen[1]);
  REQUIRE(Worker::at(0)->stacks().size() == 1);
}

TEST_CASE("stacks follow OMP_STACKSIZE changes", "[ult][fiber]") {
  PoolScope pool(1);
  std::size_t old = stack_size();
  set_stack_size(1u << 20);
  static std::size_t usable;
  Fiber a;
  a.prepare([](Fiber* f) { usable = f->stack().usable(); }, nullptr);
  Worker::at(0)->submit(&a);
  REQUIRE(wait_until([&] { return a.reusable(); }));
  set_stack_size(old);
  REQUIRE(usable == (1u << 20));
}

namespace {
// Runs `child` in a forked process with stderr captured; returns (status, stderr).
std::pair<int, std::string> run_child(void (*child)()) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    signal(SIGABRT, SIG_DFL);  // Catch2 installs its own; the parent checks the real abort
    close(fds[0]);
    child();
    _exit(0);
  }
  close(fds[1]);
  std::string err;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) err.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {status, err};
}

#pragma GCC diagnostic ignored "-Winfinite-recursion"
int __attribute__((noinline)) recurse(volatile char* p, int depth) {
  volatile char frame[1024];
  frame[0] = char(depth);
  if (p) frame[1] = p[0];
  return recurse(frame, depth + 1) + frame[0];
}
}  // namespace

TEST_CASE("a guard-page hit is reported with the stack size and OMP_STACKSIZE", "[ult][fiber][guard]") {
  auto [status, err] = run_child([] {
    set_stack_size(256u << 10);
    set_fiber_describer([](Fiber*, char* buf, std::size_t len) { snprintf(buf, len, "OpenMP thread 7"); });
    Worker::ensure_pool(1, nullptr);
    static Fiber f;
    f.prepare([](Fiber*) { recurse(nullptr, 0); }, nullptr);
    Worker::at(0)->submit(&f);
    while (true) Worker::yield();
  });
  INFO(err);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGABRT);
  REQUIRE(err.find("bobbin: stack overflow in OpenMP thread 7") != std::string::npos);
  REQUIRE(err.find("262144 bytes") != std::string::npos);
  REQUIRE(err.find("OMP_STACKSIZE") != std::string::npos);
}

TEST_CASE("any other SIGSEGV goes to the previous handler", "[ult][fiber][guard]") {
  auto [status, err] = run_child([] {
    struct sigaction sa{};
    sa.sa_handler = [](int) {
      const char msg[] = "user handler\n";
      ssize_t r = write(2, msg, sizeof msg - 1);
      (void)r;
      _exit(42);
    };
    sigaction(SIGSEGV, &sa, nullptr);
    Worker::ensure_pool(1, nullptr);
    volatile int* volatile bad = nullptr;
    *bad = 1;
  });
  INFO(err);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 42);
  REQUIRE(err.find("user handler") != std::string::npos);
  REQUIRE(err.find("stack overflow") == std::string::npos);
}

TEST_CASE("an unhandled SIGSEGV outside fiber stacks keeps its default action", "[ult][fiber][guard]") {
  auto [status, err] = run_child([] {
    signal(SIGSEGV, SIG_DFL);
    Worker::ensure_pool(1, nullptr);
    volatile int* volatile bad = nullptr;
    *bad = 1;
  });
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGSEGV);
  REQUIRE(err.find("bobbin") == std::string::npos);
}
