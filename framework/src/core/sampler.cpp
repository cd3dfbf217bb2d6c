#include <cmath>
#include <dalembert/core/sampler.hpp>
#include <numbers>

namespace dalembert {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t x = seed;
  const std::uint64_t mixed = splitmix64(x) ^ (index * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
  x = mixed;
  for (auto& s : s_) s = splitmix64(x);
}

std::uint64_t RandomStream::next() {  // xoshiro256** (Blackman & Vigna 2018)
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
double RandomStream::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

double RandomStream::normal() {
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

Sampler::~Sampler() = default;

}  // namespace dalembert
