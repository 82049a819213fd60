// LIBOMP14-DEFECT: schedule(simd: static, c) makes clang 14 pass kmp_sch_static_balanced_chunked (45); libomp 14 never writes *pstride for it, so clang's chunk loop advances by 1 and iteration i runs i+1 times.
/* schedule(simd: static, chunk): every iteration exactly once (the spec
   leaves the chunk rounding to the implementation: the chunk becomes a
   multiple of the SIMD width). schedule(simd: static) without a chunk is an
   ordinary static schedule and lives in for_schedule's simd_static build. */
#define SCHED schedule(simd: static, 3)
#include "loops.h"

int main(void) {
  struct conf_expect e = {0, 0, 0, 1};
  conf_loops(&e);
  return conf_end();
}
