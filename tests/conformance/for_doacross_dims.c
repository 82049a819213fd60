/* ordered(n) doacross loops with many ordered dimensions (10 here; gcc
   passes every one of them to the runtime, libgomp's doacross-1 uses 61):
   each iteration waits for its predecessor along the last two dimensions,
   and sees what that one wrote. */
#include "check.h"

#define N 12
static int val[N][N];
static int ok[N][N];

int main(void) {
  int a, b, c, d, e, f, g, h, i, j;
#pragma omp parallel num_threads(4)
#pragma omp for ordered(10) schedule(dynamic, 1)
  for (a = 0; a < 1; a++)
    for (b = 0; b < 1; b++)
      for (c = 0; c < 1; c++)
        for (d = 0; d < 1; d++)
          for (e = 0; e < 1; e++)
            for (f = 0; f < 1; f++)
              for (g = 0; g < 1; g++)
                for (h = 0; h < 1; h++)
                  for (i = 0; i < N; i++)
                    for (j = 0; j < N; j++) {
#pragma omp ordered depend(sink : a, b, c, d, e, f, g, h, i - 1, j) depend(sink : a, b, c, d, e, f, g, h, i, j - 1)
                      int above = i > 0 ? __atomic_load_n(&val[i - 1][j], __ATOMIC_ACQUIRE) : 1;
                      int left = j > 0 ? __atomic_load_n(&val[i][j - 1], __ATOMIC_ACQUIRE) : 1;
                      ok[i][j] = above != 0 && left != 0;
                      __atomic_store_n(&val[i][j], 1, __ATOMIC_RELEASE);
#pragma omp ordered depend(source)
                    }
  int bad = 0;
  for (int x = 0; x < N; x++)
    for (int y = 0; y < N; y++)
      bad += !ok[x][y] || !val[x][y];
  CHECK_EQ("iterations that ran before a predecessor or not at all", bad, 0);
  return conf_end();
}
