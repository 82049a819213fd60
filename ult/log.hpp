// One-line diagnostics. What Bobbin says to the user starts "bobbin: ",
// but for the warnings about the environment variables it shares with other
// OpenMP runtimes, which runtime/settings.hpp words in libomp's shape.
#pragma once

#include <cstdarg>

namespace bobbin {

// printf-style; adds the prefix and the newline.
void warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// As warn, with `prefix` in place of "bobbin: ".
void warn_as(const char* prefix, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Off: warn() says nothing (kmp_set_warnings_off); fatal() still speaks.
void set_warnings(bool on);
[[noreturn]] void fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Async-signal-safe: writes the pieces to stderr with write(2).
void write_stderr_raw(const char* s);

}  // namespace bobbin

#define BOBBIN_ASSERT(cond)                                                           \
  do {                                                                                \
    if (__builtin_expect(!(cond), 0)) ::bobbin::fatal("internal error: %s (%s:%d)", #cond, __FILE__, __LINE__); \
  } while (0)
