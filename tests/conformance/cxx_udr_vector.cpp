// declare reduction in C++: element-wise sum of std::vector<long> with an
// initializer that sizes the private copy from the original, a struct with
// operator+ and no initializer (default-constructed private copies), and a
// std::string concatenation on an ordered loop-free reduction whose result
// is checked as a multiset.
#include <algorithm>
#include <string>
#include <vector>

#include "check.h"

#pragma omp declare reduction(vplus : std::vector<long> : \
        std::transform(omp_out.begin(), omp_out.end(), omp_in.begin(), omp_out.begin(), \
                       [](long a, long b) { return a + b; }))                      \
    initializer(omp_priv = std::vector<long>(omp_orig.size(), 0))

struct Vec3 {
  double x = 0, y = 0, z = 0;
  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
};
#pragma omp declare reduction(vsum : Vec3 : omp_out = omp_out + omp_in)

#pragma omp declare reduction(cat : std::string : omp_out += omp_in) initializer(omp_priv = "")

int main() {
  const int bins = 17;
  std::vector<long> hist(bins, 0), want(bins, 0);
  for (int i = 0; i < 20000; i++)
    want[(i * 31) % bins] += i % 5;
  hist[3] = 1000; // the original takes part
  want[3] += 1000;
#pragma omp parallel for reduction(vplus : hist) num_threads(8) schedule(static, 64)
  for (int i = 0; i < 20000; i++)
    hist[(i * 31) % bins] += i % 5;
  for (int b = 0; b < bins; b++)
    CHECK(hist[b] == want[b], "vector reduction bin %d: %ld, want %ld", b, hist[b], want[b]);

  Vec3 v;
#pragma omp parallel reduction(vsum : v) num_threads(6)
  {
    int t = omp_get_thread_num();
    v = v + Vec3{1.0, double(t), 0.5};
  }
  CHECK(v.x == 6 && v.y == 15 && v.z == 3, "Vec3 reduction: {%g, %g, %g}", v.x, v.y, v.z);

  std::string s = "<";
#pragma omp parallel reduction(cat : s) num_threads(4)
  s += char('a' + omp_get_thread_num());
  std::string sorted = s.substr(1);
  std::sort(sorted.begin(), sorted.end());
  CHECK(s.size() == 5 && s[0] == '<' && sorted == "abcd", "string reduction: \"%s\"", s.c_str());
  return conf_end();
}
