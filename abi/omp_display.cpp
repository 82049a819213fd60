// omp_display_env and the affinity-format routines. clang's omp.h renames the
// four affinity routines to ompc_* (C strings, NUL-terminated); the plain
// omp_* names are the Fortran binding libomp exports, whose strings come with
// hidden length arguments and are blank-padded, not NUL-terminated, on
// output (libomp's kmp_ftn_entry.h).
#include <cstring>
#include <string>

#include "abi/abi_types.hpp"
#include "omp.h"
#include "runtime/api.hpp"

using namespace bobbin;

namespace {

// C: at most size-1 characters and a NUL.
void copy_c(char* buf, size_t size, const std::string& s) {
  if (!buf || size == 0) return;
  size_t n = s.size() < size ? s.size() : size - 1;
  memcpy(buf, s.data(), n);
  buf[n] = 0;
}

// Fortran: exactly size characters, blank-padded or truncated.
void copy_fortran(char* buf, size_t size, const std::string& s) {
  if (!buf || size == 0) return;
  size_t n = s.size() < size ? s.size() : size;
  memcpy(buf, s.data(), n);
  memset(buf + n, ' ', size - n);
}

size_t c_len(const char* s) { return s ? strlen(s) : 0; }

}  // namespace

BOBBIN_EXPORT void omp_display_env(int verbose) { rt::display_env(verbose != 0); }

BOBBIN_EXPORT void ompc_set_affinity_format(const char* format) { rt::set_affinity_format(format, c_len(format)); }
BOBBIN_EXPORT size_t ompc_get_affinity_format(char* buffer, size_t size) {
  std::string f = rt::affinity_format();
  copy_c(buffer, size, f);
  return f.size();
}
BOBBIN_EXPORT void ompc_display_affinity(const char* format) { rt::display_affinity(format, c_len(format)); }
BOBBIN_EXPORT size_t ompc_capture_affinity(char* buffer, size_t size, const char* format) {
  std::string s = rt::capture_affinity(format, c_len(format));
  copy_c(buffer, size, s);
  return s.size();
}

// Fortran bindings (the trailing size_t arguments are the hidden lengths).
// omp.h does not declare these names (it maps them to ompc_*), so they are
// defined under assembler names.
BOBBIN_EXPORT void bobbin_ftn_set_affinity_format(const char* format, size_t len) __asm__("omp_set_affinity_format");
BOBBIN_EXPORT size_t bobbin_ftn_get_affinity_format(char* buffer, size_t size) __asm__("omp_get_affinity_format");
BOBBIN_EXPORT void bobbin_ftn_display_affinity(const char* format, size_t len) __asm__("omp_display_affinity");
BOBBIN_EXPORT size_t bobbin_ftn_capture_affinity(char* buffer, const char* format, size_t size, size_t len)
    __asm__("omp_capture_affinity");

void bobbin_ftn_set_affinity_format(const char* format, size_t len) { rt::set_affinity_format(format, len); }
size_t bobbin_ftn_get_affinity_format(char* buffer, size_t size) {
  std::string f = rt::affinity_format();
  copy_fortran(buffer, size, f);
  return f.size();
}
void bobbin_ftn_display_affinity(const char* format, size_t len) { rt::display_affinity(format, len); }
size_t bobbin_ftn_capture_affinity(char* buffer, const char* format, size_t size, size_t len) {
  std::string s = rt::capture_affinity(format, len);
  copy_fortran(buffer, size, s);
  return s.size();
}
