/* flush: a producer writes data, flushes, then sets a flag; a consumer
   spins on the flag with flush and then must see the data (the flush-based
   message passing pattern of the spec's examples). Also `flush acq_rel`,
   `flush release` / `flush acquire` and a flush with a list. */
#include "check.h"

#define ROUNDS 2000

static int data[8];
static int flag;

int main(void) {
  int bad = 0;
#pragma omp parallel num_threads(2)
  {
    for (int r = 1; r <= ROUNDS; r++) {
      if (omp_get_thread_num() == 0) {
        for (int i = 0; i < 8; i++)
          data[i] = r * 8 + i;
        if (r % 3 == 0) {
#pragma omp flush release
        } else {
#pragma omp flush
        }
#pragma omp atomic write
        flag = r;
      } else {
        int seen;
        do {
#pragma omp atomic read
          seen = flag;
        } while (seen < r);
        if (r % 3 == 0) {
#pragma omp flush acquire
        } else if (r % 3 == 1) {
#pragma omp flush(data)
        } else {
#pragma omp flush acq_rel
        }
        for (int i = 0; i < 8; i++)
          if (data[i] != r * 8 + i)
            bad++;
      }
#pragma omp barrier
    }
  }
  CHECK_EQ("stale values seen after flush", bad, 0);
  return conf_end();
}
