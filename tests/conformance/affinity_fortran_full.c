// LIBOMP14-DEFECT: the Fortran-style omp_capture_affinity aborts on an assertion (kmp_ftn_entry.h:427) when its result fills the buffer exactly or is truncated to it
/* The Fortran-style plain names (affinity_fortran.c) when the result fills
 * the caller's CHARACTER buffer exactly, or is truncated to it: exactly
 * `len` characters are written, no NUL, and the full length is returned. */
#include "check.h"

typedef size_t (*capture_fn)(char *, const char *, size_t, size_t);
typedef size_t (*get_fn)(char *, size_t);
typedef void (*set_fn)(const char *, size_t);

int main(void) {
  capture_fn capture = (capture_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "omp_capture_affinity");
  get_fn get = (get_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "omp_get_affinity_format");
  set_fn set = (set_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "omp_set_affinity_format");
  CHECK(capture && get && set, "the plain omp_*_affinity names are not exported");
  if (!(capture && get && set)) return conf_end();
  char buf[16];
  memset(buf, '#', sizeof buf);
  size_t n = capture(buf, "%0.4n", 4, 5);
  CHECK(n == 4 && memcmp(buf, "0000##", 6) == 0, "capture into exactly 4 characters: \"%.6s\" (%zu)", buf, n);
  memset(buf, '#', sizeof buf);
  n = capture(buf, "%0.9n", 4, 5);
  CHECK(n == 9 && memcmp(buf, "0000##", 6) == 0, "capture of 9 characters into 4: \"%.6s\" (%zu)", buf, n);
  set("abcdefgh", 8);
  memset(buf, '#', sizeof buf);
  n = get(buf, 3);
  CHECK(n == 8 && memcmp(buf, "abc##", 5) == 0, "get_affinity_format of 8 characters into 3: \"%.5s\" (%zu)", buf, n);
  return conf_end();
}
