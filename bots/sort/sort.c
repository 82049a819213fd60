/* sort: task-parallel mergesort with a parallel merge (the structure of BOTS
 * sort / cilksort, simplified to a two-way split).
 *
 * sort(n): below CUTOFF elements, a serial mergesort; above, each half is
 * sorted by a task into the other buffer, then the halves are merged by a
 * divide-and-conquer merge (split the longer run at its middle, find that
 * key in the other run by binary search, two tasks) with the same CUTOFF.
 * Memory-bound at the leaves, and the task tree is data-dependent.
 *
 *   usage: sort [small|medium|large|N] [CUTOFF]
 *   presets: small N=2^20, medium N=2^23, large N=2^25 (uint32 keys);
 *   CUTOFF default 2048
 *
 * The serial reference runs the same algorithm without tasks on a copy of
 * the input (and counts the tasks); the result must be identical to it and
 * sorted. */
#include "bench.h"

typedef uint32_t key_t_;

static long g_cutoff;

/* ---- serial building blocks ---------------------------------------------- */

static void merge_serial(const key_t_ *a, long na, const key_t_ *b, long nb, key_t_ *out) {
  long i = 0, j = 0, k = 0;
  while (i < na && j < nb) out[k++] = b[j] < a[i] ? b[j++] : a[i++];
  while (i < na) out[k++] = a[i++];
  while (j < nb) out[k++] = b[j++];
}

/* Sorts a[0..n) in place, using tmp[0..n) as scratch. */
static void msort_serial(key_t_ *a, key_t_ *tmp, long n) {
  if (n <= 16) {
    for (long i = 1; i < n; i++) {
      key_t_ v = a[i];
      long j = i;
      for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
      a[j] = v;
    }
    return;
  }
  long h = n / 2;
  msort_serial(a, tmp, h);
  msort_serial(a + h, tmp + h, n - h);
  merge_serial(a, h, a + h, n - h, tmp);
  memcpy(a, tmp, (size_t)n * sizeof *a);
}

/* First index in b[0..nb) whose key is >= v. */
static long lower_bound(const key_t_ *b, long nb, key_t_ v) {
  long lo = 0, hi = nb;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (b[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* ---- the task-parallel version ---------------------------------------------- */

static void merge_task(const key_t_ *a, long na, const key_t_ *b, long nb, key_t_ *out) {
  if (na < nb) { /* split the longer run */
    const key_t_ *t = a; a = b; b = t;
    long tn = na; na = nb; nb = tn;
  }
  if (na + nb <= g_cutoff) {
    merge_serial(a, na, b, nb, out);
    return;
  }
  long ma = na / 2;
  long mb = lower_bound(b, nb, a[ma]);
  out[ma + mb] = a[ma];
#pragma omp task
  merge_task(a, ma, b, mb, out);
#pragma omp task
  merge_task(a + ma + 1, na - ma - 1, b + mb, nb - mb, out + ma + mb + 1);
#pragma omp taskwait
}

/* Sorts src[0..n); the result lands in src if !into_tmp, else in tmp. */
static void sort_task(key_t_ *src, key_t_ *tmp, long n, int into_tmp) {
  if (n <= g_cutoff) {
    msort_serial(src, tmp, n);
    if (into_tmp) memcpy(tmp, src, (size_t)n * sizeof *src);
    return;
  }
  long h = n / 2;
  /* Each half lands in the buffer we do not merge into. */
#pragma omp task
  sort_task(src, tmp, h, !into_tmp);
#pragma omp task
  sort_task(src + h, tmp + h, n - h, !into_tmp);
#pragma omp taskwait
  if (into_tmp) merge_task(src, h, src + h, n - h, tmp);
  else merge_task(tmp, h, tmp + h, n - h, src);
}

/* ---- the serial reference: the same recursion, tasks counted ------------------ */

static void merge_reference(const key_t_ *a, long na, const key_t_ *b, long nb, key_t_ *out, long *tasks) {
  if (na < nb) {
    const key_t_ *t = a; a = b; b = t;
    long tn = na; na = nb; nb = tn;
  }
  if (na + nb <= g_cutoff) {
    merge_serial(a, na, b, nb, out);
    return;
  }
  long ma = na / 2;
  long mb = lower_bound(b, nb, a[ma]);
  out[ma + mb] = a[ma];
  *tasks += 2;
  merge_reference(a, ma, b, mb, out, tasks);
  merge_reference(a + ma + 1, na - ma - 1, b + mb, nb - mb, out + ma + mb + 1, tasks);
}

static void sort_reference(key_t_ *src, key_t_ *tmp, long n, int into_tmp, long *tasks) {
  if (n <= g_cutoff) {
    msort_serial(src, tmp, n);
    if (into_tmp) memcpy(tmp, src, (size_t)n * sizeof *src);
    return;
  }
  long h = n / 2;
  *tasks += 2;
  sort_reference(src, tmp, h, !into_tmp, tasks);
  sort_reference(src + h, tmp + h, n - h, !into_tmp, tasks);
  if (into_tmp) merge_reference(src, h, src + h, n - h, tmp, tasks);
  else merge_reference(tmp, h, tmp + h, n - h, src, tasks);
}

static void fill_random(key_t_ *a, long n) {
  uint64_t s = 0x9E3779B97F4A7C15ULL; /* xorshift64*: same input every run */
  for (long i = 0; i < n; i++) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    a[i] = (key_t_)((s * 2685821657736338717ULL) >> 32);
  }
}

int main(int argc, char **argv) {
  static const long presets[3] = {1L << 20, 1L << 23, 1L << 25};
  long n = bench_size_arg(argc, argv, 1, presets, presets[0], "N");
  g_cutoff = bench_long_arg(argc, argv, 2, 2048, "CUTOFF");
  if (g_cutoff < 16) g_cutoff = 16;
  int threads = bench_team_size();

  key_t_ *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *a);
  key_t_ *ref = malloc((size_t)n * sizeof *a), *rtmp = malloc((size_t)n * sizeof *a);
  if (!a || !tmp || !ref || !rtmp) {
    fprintf(stderr, "sort: out of memory for N=%ld\n", n);
    return 2;
  }
  fill_random(a, n);
  memcpy(ref, a, (size_t)n * sizeof *a);
  /* First touch of the scratch buffers outside the timed region, for both. */
  memset(tmp, 0, (size_t)n * sizeof *a);
  memset(rtmp, 0, (size_t)n * sizeof *a);

  long tasks = 0;
  double t0 = bench_now();
  sort_reference(ref, rtmp, n, 0, &tasks);
  double serial_s = bench_now() - t0;

  t0 = bench_now();
#pragma omp parallel
  {
#pragma omp single
    sort_task(a, tmp, n, 0);
  }
  double time_s = bench_now() - t0;

  int sorted = 1;
  for (long i = 1; i < n && sorted; i++) sorted = ref[i - 1] <= ref[i];
  int same = memcmp(a, ref, (size_t)n * sizeof *a) == 0;
  if (!sorted) fprintf(stderr, "sort: the serial reference is not sorted\n");
  if (!same) fprintf(stderr, "sort: the parallel result differs from the serial reference\n");
  bench_result("sort", sorted && same,
               "n=%ld cutoff=%ld threads=%d tasks=%ld time_s=%.6f tasks_per_s=%.0f serial_s=%.6f speedup=%.3f", n,
               g_cutoff, threads, tasks, time_s, (double)tasks / time_s, serial_s, serial_s / time_s);
  free(a);
  free(tmp);
  free(ref);
  free(rtmp);
  return sorted && same ? 0 : 1;
}
