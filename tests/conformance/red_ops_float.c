/* reduction with + * - max min && || on float and double, teams of 1 to 16
   threads. Contributions are small integers and powers of two, so every
   order of combining gives the same exact result. */
#include "check.h"

#define RED_FP(T, nth, bias)                                                   \
  do {                                                                         \
    T add = (T)(bias), mul = (T)0.5, sub = 10, max = (T)(bias), min = (T)(bias), \
      land = 1, lor = 0;                                                       \
    T w_add = add, w_mul = mul, w_sub = sub, w_max = max, w_min = min, w_land = land, \
      w_lor = lor;                                                             \
    for (int t = 0; t < (nth); t++) {                                          \
      w_add += (T)t * (T)0.25;                                                 \
      w_mul *= (t % 3 == 0) ? (T)2 : (T)1;                                     \
      w_sub -= (T)(t + 1);                                                     \
      T v = (T)((t * 37) % 11) - (T)4.5;                                       \
      if (v > w_max) w_max = v;                                                \
      if (v < w_min) w_min = v;                                                \
      w_land = w_land && (T)(t + 1);                                           \
      w_lor = w_lor || (T)(t == 3);                                            \
    }                                                                          \
    CONF_PRAGMA(omp parallel num_threads(nth) reduction(+ : add) reduction(* : mul) \
                reduction(- : sub) reduction(max : max) reduction(min : min)   \
                reduction(&& : land) reduction(|| : lor))                      \
    {                                                                          \
      int t = omp_get_thread_num();                                            \
      add += (T)t * (T)0.25;                                                   \
      mul *= (t % 3 == 0) ? (T)2 : (T)1;                                       \
      sub -= (T)(t + 1);                                                       \
      T v = (T)((t * 37) % 11) - (T)4.5;                                       \
      max = v > max ? v : max;                                                 \
      min = v < min ? v : min;                                                 \
      land = land && (T)(t + 1);                                               \
      lor = lor || (T)(t == 3);                                                \
    }                                                                          \
    CHECK(add == w_add, #T " + on %d threads: %g, want %g", nth, (double)add, (double)w_add); \
    CHECK(mul == w_mul, #T " * on %d threads: %g, want %g", nth, (double)mul, (double)w_mul); \
    CHECK(sub == w_sub, #T " - on %d threads: %g, want %g", nth, (double)sub, (double)w_sub); \
    CHECK(max == w_max, #T " max on %d threads: %g, want %g", nth, (double)max, (double)w_max); \
    CHECK(min == w_min, #T " min on %d threads: %g, want %g", nth, (double)min, (double)w_min); \
    CHECK((land != 0) == (w_land != 0), #T " && on %d threads: %g", nth, (double)land); \
    CHECK((lor != 0) == (w_lor != 0), #T " || on %d threads: %g", nth, (double)lor); \
  } while (0)

int main(void) {
  static const int teams[] = {1, 2, 3, 4, 5, 7, 8, 16};
  for (int rep = 0; rep < 4; rep++)
    for (size_t i = 0; i < sizeof teams / sizeof teams[0]; i++) {
      int n = teams[i];
      RED_FP(float, n, -2.5f);
      RED_FP(double, n, 1e10);
      RED_FP(double, n, -0.375);
    }
  return conf_end();
}
