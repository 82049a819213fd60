#include "ult/log.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bobbin {

static void vsay(const char* fmt, va_list ap) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "bobbin: ");
  n += vsnprintf(buf + n, sizeof buf - size_t(n) - 1, fmt, ap);
  if (n > int(sizeof buf) - 2) n = int(sizeof buf) - 2;
  buf[n++] = '\n';
  // One write so lines from different threads do not interleave.
  ssize_t r = write(2, buf, size_t(n));
  (void)r;
}

void warn(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay(fmt, ap);
  va_end(ap);
}

void fatal(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsay(fmt, ap);
  va_end(ap);
  abort();
}

void write_stderr_raw(const char* s) {
  ssize_t r = write(2, s, strlen(s));
  (void)r;
}

}  // namespace bobbin
