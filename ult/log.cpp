#include "ult/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bobbin {

static void vsay(const char* prefix, const char* fmt, va_list ap) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "%s", prefix);
  n += vsnprintf(buf + n, sizeof buf - size_t(n) - 1, fmt, ap);
  if (n > int(sizeof buf) - 2) n = int(sizeof buf) - 2;
  buf[n++] = '\n';
  // One write so lines from different threads do not interleave.
  ssize_t r = write(2, buf, size_t(n));
  (void)r;
}

static std::atomic<bool> g_warnings{true};

void set_warnings(bool on) { g_warnings.store(on, std::memory_order_relaxed); }

void warn(const char* fmt, ...) {
  if (!g_warnings.load(std::memory_order_relaxed)) return;
  va_list ap;
  va_start(ap, fmt);
  vsay("bobbin: ", fmt, ap);
  va_end(ap);
}

void warn_as(const char* prefix, const char* fmt, ...) {
  if (!g_warnings.load(std::memory_order_relaxed)) return;
  va_list ap;
  va_start(ap, fmt);
  vsay(prefix, fmt, ap);
  va_end(ap);
}

void fatal(const char* fmt, ...) {
  // One message: a second thread failing the same way while the first
  // aborts waits for the end instead of printing it again.
  static std::atomic<bool> dying{false};
  if (dying.exchange(true, std::memory_order_relaxed))
    for (;;) pause();
  va_list ap;
  va_start(ap, fmt);
  vsay("bobbin: ", fmt, ap);
  va_end(ap);
  abort();
}

void write_stderr_raw(const char* s) {
  ssize_t r = write(2, s, strlen(s));
  (void)r;
}

}  // namespace bobbin
