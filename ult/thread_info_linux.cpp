#include "ult/thread_info.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace bobbin::ult {

long native_thread_id() { return long(syscall(SYS_gettid)); }

bool thread_cpu_ns(long tid, uint64_t* ns) {
  // The kernel's per-thread scheduler clock of `tid` (what
  // pthread_getcpuclockid builds from a thread id: ~tid << 3, per-thread
  // bit 4, CPUCLOCK_SCHED 2). By id rather than pthread_t, a thread that has
  // exited is an error, not undefined behaviour.
  clockid_t clock = clockid_t((~tid) << 3) | 4 | 2;
  timespec ts;
  if (clock_gettime(clock, &ts) != 0) return false;
  *ns = uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
  return true;
}

namespace {

// A /proc stat file, "pid (comm) S ...", read into `buf`: the fields after
// the command name, from the state (field 3) on; null if it cannot be read.
// Counted from the last ')', since comm may hold one, and spaces.
template <std::size_t N>
const char* stat_fields(const char* path, char (&buf)[N]) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  ssize_t len = read(fd, buf, N - 1);
  close(fd);
  if (len <= 0) return nullptr;
  buf[len] = 0;
  const char* paren = strrchr(buf, ')');
  return paren && paren[1] == ' ' ? paren + 2 : nullptr;
}

}  // namespace

bool thread_blocked(long tid) {
  // S: interruptible sleep.
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
  char buf[256];
  const char* state = stat_fields(path, buf);
  return state && *state == 'S';
}

int process_thread_count() {
  char buf[1024];
  const char* p = stat_fields("/proc/self/stat", buf);
  // Field 20 is num_threads; p is at field 3.
  for (int field = 3; p && field < 20; ++field) {
    p = strchr(p, ' ');
    if (p) ++p;
  }
  return p ? atoi(p) : 0;
}

int thread_syscall(long tid, long* nr, unsigned long args[4]) {
  // /proc/self/task/<tid>/syscall: "NR ARG1 ... ARG6 SP PC" (arguments in
  // hex) in a call, "-1 SP PC" off a processor outside one, "running".
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[256];
  ssize_t len = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (len <= 0) return -1;
  buf[len] = 0;
  char* end = nullptr;
  long n = strtol(buf, &end, 10);
  if (end == buf || n < 0) return 0;  // "running" or "-1 ..."
  for (int i = 0; i < 4; ++i) {
    char* p = end;
    args[i] = strtoul(p, &end, 16);
    if (end == p) return -1;
  }
  *nr = n;
  return 1;
}

std::vector<int> current_thread_cpus() {
  std::vector<int> out;
  // A dynamically sized set, so machines with more than CPU_SETSIZE (1024)
  // processors work; 64K processors is more than Linux supports (NR_CPUS).
  for (int n = 1024; n <= 65536; n *= 2) {
    cpu_set_t* set = CPU_ALLOC(std::size_t(n));
    std::size_t bytes = CPU_ALLOC_SIZE(std::size_t(n));
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) == 0) {
      for (int c = 0; c < n; ++c)
        if (CPU_ISSET_S(std::size_t(c), bytes, set)) out.push_back(c);
      CPU_FREE(set);
      return out;
    }
    CPU_FREE(set);
  }
  return out;
}

}  // namespace bobbin::ult
