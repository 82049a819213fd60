/* Worksharing loop under one schedule clause, built once per clause: meson.build
   passes -DSCHED='schedule(...)' and the properties that clause promises
   (-DEXPECT_STATIC_BLOCK, -DEXPECT_RR_CHUNK=c, -DEXPECT_MIN_RUN=c,
   -DEXPECT_MONOTONIC). See loops.h for the loop shapes. */
#include "loops.h"

#ifndef EXPECT_STATIC_BLOCK
#define EXPECT_STATIC_BLOCK 0
#endif
#ifndef EXPECT_RR_CHUNK
#define EXPECT_RR_CHUNK 0
#endif
#ifndef EXPECT_MIN_RUN
#define EXPECT_MIN_RUN 0
#endif
#ifndef EXPECT_MONOTONIC
#define EXPECT_MONOTONIC 0
#endif

int main(void) {
  struct conf_expect e = {EXPECT_STATIC_BLOCK, EXPECT_RR_CHUNK, EXPECT_MIN_RUN,
                          EXPECT_MONOTONIC};
  conf_loops(&e);
  return conf_end();
}
