// The step contract kept once, around every plugin's step (issue 27 item 5; core/integrator.hpp):
// Integrator::advance puts the state back on any failure, sets t = t + h exactly, turns a non-finite
// result into a StepFailure, and allocates nothing after begin(); callers cannot call step() itself.
#include <catch2/catch.hpp>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/integrator.hpp>
#include <limits>
#include <stdexcept>

#include "allocations.hpp"
#include "support.hpp"

using namespace dalembert;

namespace {

// A plugin whose step() writes the state, then does what `mode` says.
class Scripted final : public Integrator {
 public:
  enum class Mode { Good, WrongTime, NonFinite, FailAfterWriting, OtherError };
  Mode mode = Mode::Good;
  void bind(const System&) override {}
  Traits traits() const override { return {1, false, true, {}}; }

 protected:
  void step(State& s, double h) override {
    s.q[0] += h;
    switch (mode) {
      case Mode::Good: s.t += h; break;
      case Mode::WrongTime: s.t += 2.0 * h; break;
      case Mode::NonFinite: s.v[0] = std::numeric_limits<double>::infinity(); break;
      case Mode::FailAfterWriting: throw StepFailure("scripted failure", 1.0);
      case Mode::OtherError: throw std::runtime_error("not a StepFailure");
    }
  }
};

bool same_bits(const State& a, const State& b) {
  return a.t == b.t && a.q.size() == b.q.size() && a.v.size() == b.v.size() &&
         std::memcmp(a.q.data(), b.q.data(), sizeof(double) * a.q.size()) == 0 &&
         std::memcmp(a.v.data(), b.v.data(), sizeof(double) * a.v.size()) == 0;
}

// Callers reach the plugin through begin()/advance() only: step() and start() are protected.
template <class I>
concept CallableStep = requires(I& i, State& s) { i.step(s, 0.1); };
template <class I>
concept CallableStart = requires(I& i, const State& s) { i.start(s); };
static_assert(!CallableStep<Integrator> && !CallableStart<Integrator>);
static_assert(requires(Integrator& i, State& s) { i.advance(s, 0.1); i.begin(s, 0.1); });

}  // namespace

TEST_CASE("advance: t is t + h exactly, whatever step() did with it", "[conformance][contract]") {
  Scripted in;
  in.mode = Scripted::Mode::WrongTime;
  State s = test::make_state({1, 2}, {3, 4}, 0.3);
  in.begin(s);
  in.advance(s, 0.1);
  CHECK(s.t == 0.3 + 0.1);
  CHECK(s.q[0] == 1.1);
}

TEST_CASE("advance: on a failure the state is exactly as it was", "[conformance][contract]") {
  const State s0 = test::make_state({1, 2}, {3, 4}, 0.3);
  Scripted in;
  SECTION("a non-finite result becomes a NonFiniteState") {
    in.mode = Scripted::Mode::NonFinite;
    State s = s0;
    in.set_name("scripted");
    in.begin(s);
    CHECK_THROWS_AS(in.advance(s, 0.1), NonFiniteState);
    CHECK(same_bits(s, s0));
    try {
      in.advance(s, 0.1);
    } catch (const StepFailure& e) {  // a StepFailure: callers that handle failures handle it
      CHECK(std::string(e.what()) == "integrator 'scripted' produced a non-finite state (t = 0.3, h = 0.1); the state is left at t = 0.3");
    }
  }
  SECTION("a StepFailure after step() wrote the state") {
    in.mode = Scripted::Mode::FailAfterWriting;
    State s = s0;
    in.begin(s);
    CHECK_THROWS_AS(in.advance(s, 0.1), StepFailure);
    CHECK(same_bits(s, s0));
  }
  SECTION("any other error") {
    in.mode = Scripted::Mode::OtherError;
    State s = s0;
    in.begin(s);
    CHECK_THROWS_AS(in.advance(s, 0.1), std::runtime_error);
    CHECK(same_bits(s, s0));
  }
}

TEST_CASE("advance allocates nothing after begin(): its copy of the state is sized there", "[conformance][contract]") {
  Scripted in;
  State s = test::make_state({1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 7, 8});
  in.begin(s);
  auto& counter = test::allocation_counter();
  counter.begin();
  for (int k = 0; k < 10; ++k) in.advance(s, 0.1);
  CHECK(counter.end() == 0);
}

TEST_CASE("a plugin's non-finite step leaves the state as it was (rk4, h = 1e100)", "[conformance][contract]") {
  // rk4 on the chaotic particle: q ~ h v = 1e99, a quartic potential: the stages overflow.
  auto sys = test::registry().make_system("chaotic_nonholonomic_particle", nullptr, "test");
  auto in = test::registry().make_integrator("rk4", nullptr, "test");
  in->bind(*sys);
  const State s0 = test::make_state({1, 0, 1, -1, -1}, {0.05, 0.5, -0.5, -0.1, -0.05});
  State s = s0;
  in->begin(s, 1e100);
  CHECK_THROWS_AS(in->advance(s, 1e100), NonFiniteState);
  CHECK(same_bits(s, s0));
}
