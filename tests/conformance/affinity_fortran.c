/* libomp exports omp_set_affinity_format, omp_get_affinity_format,
 * omp_display_affinity and omp_capture_affinity under their plain names with
 * the Fortran binding (omp.h maps C callers to ompc_*): every string comes
 * with a hidden length argument after the others, and results are
 * blank-padded to the buffer's length instead of NUL-terminated. Results
 * that fill the buffer: affinity_fortran_full.c. */
#include "check.h"

typedef size_t (*capture_fn)(char *, const char *, size_t, size_t);
typedef size_t (*get_fn)(char *, size_t);
typedef void (*set_fn)(const char *, size_t);
typedef void (*display_fn)(const char *, size_t);

int main(void) {
  capture_fn capture = (capture_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "omp_capture_affinity");
  get_fn get = (get_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "omp_get_affinity_format");
  set_fn set = (set_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "omp_set_affinity_format");
  display_fn display = (display_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "omp_display_affinity");
  CHECK(capture && get && set && display, "the plain omp_*_affinity names are not exported");
  if (!(capture && get && set && display)) return conf_end();

  char buf[32];
  /* Only the first `len` characters of a format count. */
  set("<%n>trailing", 4);
  memset(buf, '#', sizeof buf);
  size_t n = get(buf, 6);
  CHECK(n == 4 && memcmp(buf, "<%n>  ##", 8) == 0, "get_affinity_format: \"%.8s\" (%zu)", buf, n);
  char c[16];
  CHECK(ompc_get_affinity_format(c, sizeof c) == 4 && strcmp(c, "<%n>") == 0, "the C view of the format: \"%s\"", c);

  memset(buf, '#', sizeof buf);
  n = capture(buf, "[%n]xyz", 6, 4);
  CHECK(n == 3 && memcmp(buf, "[0]   ##", 8) == 0, "capture_affinity: \"%.8s\" (%zu)", buf, n);
  memset(buf, '#', sizeof buf);
  n = capture(buf, "", 6, 0); /* an empty format: the ICV */
  CHECK(n == 3 && memcmp(buf, "<0>   ##", 8) == 0, "capture_affinity of the ICV: \"%.8s\" (%zu)", buf, n);

  fflush(stdout);
  display("display %n!!", 10); /* prints "display 0" and a newline */
  fflush(stdout);
  return conf_end();
}
