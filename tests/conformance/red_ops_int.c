/* reduction with every operator (+ * - & | ^ && || max min) on int,
   unsigned and long long, in one parallel region, on teams of 1 to 16
   threads (libomp switches to its tree method above 4): the result equals
   the original value combined with every thread's contribution. */
#include "check.h"

#define RED_INT(T, nth, bias)                                                  \
  do {                                                                         \
    T add = (T)(bias), mul = 2, sub = 100, band = (T)~(T)0, bor = 0x40,        \
      bxor = 0x55, max = (T)(bias), min = (T)(bias);                           \
    int land = 1, lor = 0, land_t = 1;                                         \
    T w_add = add, w_mul = mul, w_sub = sub, w_and = band, w_or = bor, w_xor = bxor, \
      w_max = max, w_min = min;                                                \
    int w_land = land, w_lor = lor, w_land_t = land_t;                         \
    for (int t = 0; t < (nth); t++) {                                          \
      w_add += (T)(t + 1);                                                     \
      w_mul *= (T)(t % 4 == 1 ? 3 : 1);                                        \
      w_sub -= (T)(t + 1);                                                     \
      w_and &= (T) ~((T)1 << (t % 12));                                        \
      w_or |= (T)1 << (t % 8);                                                 \
      w_xor ^= (T)1 << (t % 5);                                                \
      w_land = w_land && (t != 2);                                             \
      w_lor = w_lor || (t == (nth)-1 && t > 0);                                \
      w_land_t = w_land_t && 1;                                                \
      T v = (T)((t * 37) % 11);                                                \
      if (v > w_max) w_max = v;                                                \
      if (v < w_min) w_min = v;                                                \
    }                                                                          \
    CONF_PRAGMA(omp parallel num_threads(nth) reduction(+ : add) reduction(* : mul) \
                reduction(- : sub) reduction(& : band) reduction(| : bor)      \
                reduction(^ : bxor) reduction(&& : land, land_t) reduction(|| : lor) \
                reduction(max : max) reduction(min : min))                     \
    {                                                                          \
      int t = omp_get_thread_num();                                            \
      add += (T)(t + 1);                                                       \
      mul *= (T)(t % 4 == 1 ? 3 : 1);                                          \
      sub -= (T)(t + 1);                                                       \
      band &= (T) ~((T)1 << (t % 12));                                         \
      bor |= (T)1 << (t % 8);                                                  \
      bxor ^= (T)1 << (t % 5);                                                 \
      land = land && (t != 2);                                                 \
      lor = lor || (t == omp_get_num_threads() - 1 && t > 0);                  \
      land_t = land_t && 1;                                                    \
      T v = (T)((t * 37) % 11);                                                \
      max = v > max ? v : max;                                                 \
      min = v < min ? v : min;                                                 \
    }                                                                          \
    CHECK_EQ(#T " + on " #nth " threads", add, w_add);                         \
    CHECK_EQ(#T " * on " #nth " threads", mul, w_mul);                         \
    CHECK_EQ(#T " - on " #nth " threads", sub, w_sub);                         \
    CHECK_EQ(#T " & on " #nth " threads", band, w_and);                        \
    CHECK_EQ(#T " | on " #nth " threads", bor, w_or);                          \
    CHECK_EQ(#T " ^ on " #nth " threads", bxor, w_xor);                        \
    CHECK_EQ(#T " && (false) on " #nth " threads", land, w_land);              \
    CHECK_EQ(#T " && (true) on " #nth " threads", land_t, w_land_t);           \
    CHECK_EQ(#T " || on " #nth " threads", lor, w_lor);                        \
    CHECK_EQ(#T " max on " #nth " threads", max, w_max);                       \
    CHECK_EQ(#T " min on " #nth " threads", min, w_min);                       \
  } while (0)

int main(void) {
  static const int teams[] = {1, 2, 3, 4, 5, 7, 8, 16};
  for (int rep = 0; rep < 4; rep++)
    for (size_t i = 0; i < sizeof teams / sizeof teams[0]; i++) {
      int n = teams[i];
      RED_INT(int, n, -3);
      RED_INT(unsigned, n, 5);
      RED_INT(long long, n, -(1LL << 40));
      RED_INT(unsigned long long, n, 7);
      RED_INT(short, n, 4);
      RED_INT(char, n, 6);
    }
  return conf_end();
}
