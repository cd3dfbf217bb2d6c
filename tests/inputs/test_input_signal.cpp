// Input signals u(t) (issue 30 item 2): each form against values known without the code under test
// (sin and cos at their quarter periods, linear data a spline must reproduce, the natural spline's
// fourth order on sin over [0, π], its overshoot found by sampling), and every refusal naming the
// bad value.
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/input_signal.hpp>
#include <dalembert/core/parameters.hpp>
#include <numbers>

#include "temp_dir.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

InputSignal parsed(const json& j) { return InputSignal::parse(j, "test: /u", {}); }

std::string refusal(const json& j) {
  try {
    parsed(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Max |S − sin| over a fine grid of [0, π], S the natural spline through n + 1 equal intervals.
double spline_error(int n) {
  std::vector<double> t, v;
  for (int i = 0; i <= n; ++i) {
    t.push_back(std::numbers::pi * i / n);
    v.push_back(std::sin(t.back()));
  }
  const InputSignal s = parsed({{"t", t}, {"value", v}, {"interpolation", "cubic"}});
  double err = 0;
  for (int k = 0; k <= 4000; ++k) {
    const double x = std::numbers::pi * k / 4000;
    err = std::max(err, std::abs(s(x) - std::sin(x)));
  }
  return err;
}

}  // namespace

TEST_CASE("Input signal: constants, and sinusoids at their quarter periods", "[inputs]") {
  CHECK(parsed(2.5)(17.0) == 2.5);
  CHECK(parsed({{"constant", -1.0}})(0.0) == -1.0);
  CHECK(parsed(2.5).t_first() == -std::numeric_limits<double>::infinity());
  // 0.5 + 2 sin(2π·4 t) + 3 cos(2π·1 t + π/2) = 0.5 + 2 sin(8πt) − 3 sin(2πt)
  const InputSignal u = parsed({{"offset", 0.5},
                                {"sinusoids",
                                 {{{"amplitude", 2.0}, {"frequency", 4.0}},
                                  {{"amplitude", 3.0}, {"frequency", 1.0}, {"phase", std::numbers::pi / 2},
                                   {"function", "cos"}}}}});
  CHECK(u(0.0) == Approx(0.5).margin(1e-15));
  CHECK(u(1.0 / 16) == Approx(0.5 + 2.0 - 3.0 * std::sin(std::numbers::pi / 8)).epsilon(1e-14));  // sin(π/2) = 1
  CHECK(u(0.25) == Approx(0.5 + 0.0 - 3.0).epsilon(1e-14));  // sin(2π) = 0, sin(π/2) = 1
  CHECK(u.lower_bound() == -4.5);
  CHECK(u.upper_bound() == 5.5);
  // The snakeboard's gait form A cos(2π f t): bitwise what the seed computed (studies unchanged).
  const InputSignal g = parsed({{"sinusoids", {{{"amplitude", 1.0}, {"frequency", 10.0}, {"function", "cos"}}}}});
  for (double t : {0.0, 0.0390625, 1.2345, 9.999})
    CHECK(g(t) == 1.0 * std::cos(2 * std::numbers::pi * 10.0 * t));
}

TEST_CASE("Input signal: a linear table interpolates its nodes and holds its ends", "[inputs]") {
  const InputSignal u = parsed({{"t", {0.0, 1.0, 3.0}}, {"value", {1.0, 3.0, -1.0}}});
  CHECK(u(0.0) == 1.0);
  CHECK(u(1.0) == 3.0);
  CHECK(u(3.0) == -1.0);
  CHECK(u(0.5) == Approx(2.0).epsilon(1e-15));
  CHECK(u(2.0) == Approx(1.0).epsilon(1e-15));
  CHECK(u(-5.0) == 1.0);
  CHECK(u(7.0) == -1.0);
  CHECK(u.t_first() == 0.0);
  CHECK(u.t_last() == 3.0);
  CHECK(u.lower_bound() == -1.0);
  CHECK(u.upper_bound() == 3.0);
}

TEST_CASE("Input signal: the natural cubic spline", "[inputs]") {
  SECTION("reproduces linear data (its second derivatives vanish)") {
    const InputSignal u = parsed({{"t", {0.0, 0.3, 1.0, 2.5}}, {"value", {1.0, 1.6, 3.0, 6.0}}, {"interpolation", "cubic"}});
    for (double t : {0.1, 0.65, 1.7, 2.4}) CHECK(u(t) == Approx(1 + 2 * t).epsilon(1e-14));
  }
  SECTION("is C2 at its nodes (one-sided differences agree)") {
    const InputSignal u = parsed({{"t", {0.0, 1.0, 1.5, 3.0, 4.0}}, {"value", {0.0, 2.0, -1.0, 0.5, 1.0}},
                                  {"interpolation", "cubic"}});
    const double e = 1e-4;
    for (double node : {1.0, 1.5, 3.0}) {
      // second-order one-sided slopes: O(e²) from the third derivative
      const double left = (3 * u(node) - 4 * u(node - e) + u(node - 2 * e)) / (2 * e),
                   right = (-3 * u(node) + 4 * u(node + e) - u(node + 2 * e)) / (2 * e);
      const double left2 = (u(node) - 2 * u(node - e) + u(node - 2 * e)) / (e * e),
                   right2 = (u(node + 2 * e) - 2 * u(node + e) + u(node)) / (e * e);
      CHECK(std::abs(left - right) < 1e-6);
      CHECK(std::abs(left2 - right2) < 0.05);   // curvatures: O(e) from the third derivative's jump
    }
  }
  SECTION("converges at order 4 on sin over [0, pi] (natural end conditions are exact there)") {
    const double e1 = spline_error(10), e2 = spline_error(20), e3 = spline_error(40);
    INFO(e1 << " " << e2 << " " << e3);
    CHECK(std::log2(e1 / e2) == Approx(4.0).margin(0.2));
    CHECK(std::log2(e2 / e3) == Approx(4.0).margin(0.2));
  }
  SECTION("its bounds include the overshoot between nodes") {
    const InputSignal u = parsed({{"t", {0.0, 1.0, 2.0, 3.0}}, {"value", {0.0, 1.0, 1.0, 0.0}}, {"interpolation", "cubic"}});
    double hi = -1;
    for (int k = 0; k <= 30000; ++k) hi = std::max(hi, u(3.0 * k / 30000));
    CHECK(hi > 1.0);  // the spline overshoots the data between t = 1 and 2
    CHECK(u.upper_bound() == Approx(hi).epsilon(1e-8));
  }
}

TEST_CASE("Input signal: a CSV table equals the same table inline", "[inputs]") {
  const test::TempDir dir("input_csv");
  test::write_text(dir / "u.csv", "t,u\n0, 1\n# a comment\n0.5,2\n\n2,0\n");
  const InputSignal a = InputSignal::parse({{"csv", "u.csv"}, {"interpolation", "cubic"}}, "test: /u", dir.path());
  const InputSignal b = parsed({{"t", {0.0, 0.5, 2.0}}, {"value", {1.0, 2.0, 0.0}}, {"interpolation", "cubic"}});
  for (double t : {0.0, 0.2, 0.5, 1.3, 2.0}) CHECK(a(t) == b(t));
  CHECK(a.to_json() == b.to_json());
  test::write_text(dir / "bad.csv", "t,u\n0,1\n0.5 two\n");
  try {
    InputSignal::parse({{"csv", "bad.csv"}}, "test: /u", dir.path());
    FAIL("accepted a bad CSV line");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("bad.csv:3") != std::string::npos);
  }
}

TEST_CASE("Input signal: bad signals are refused with the value and where", "[inputs]") {
  CHECK(refusal({{"t", {0.0, 1.0, 1.0}}, {"value", {0, 1, 2}}}).find("t[2] = 1 follows t[1] = 1") != std::string::npos);
  CHECK(refusal({{"t", {0.0, 1.0}}, {"value", {0, 1, 2}}}).find("2 times and 3 values") != std::string::npos);
  CHECK(refusal({{"t", {0.0}}, {"value", {0}}}).find("at least two points") != std::string::npos);
  CHECK(refusal({{"t", {0.0, 1.0}}, {"value", {0, 1}}, {"interpolation", "spline"}}).find("\"spline\"") !=
        std::string::npos);
  CHECK(refusal({{"sinusoids", {{{"amplitude", 1}, {"frequncy", 2}}}}}).find("unknown key 'frequncy'") != std::string::npos);
  CHECK(refusal({{"sinusoids", {{{"function", "tan"}}}}}).find("\"tan\"") != std::string::npos);
  CHECK(refusal({{"sinusoids", {{{"function", 3}}}}}).find("test: /u/sinusoids/0/function") != std::string::npos);
  CHECK(refusal({{"t", {0.0, 1.0}}, {"value", {0, 1}}, {"interpolation", 3}}).find("test: /u/interpolation") !=
        std::string::npos);
  CHECK(refusal({{"t", {0.0, "x"}}, {"value", {0, 1}}}).find("test: /u/t/1") != std::string::npos);
  CHECK(refusal({{"csv", "missing.csv"}}).find("cannot read") != std::string::npos);
  CHECK(refusal("fast").find("a number or an object") != std::string::npos);
}

TEST_CASE("Input parameters: presets read the other parameters, ranges are checked, given inputs listed", "[inputs]") {
  ParamSpec gain{"gain", ParamType::Number, 2.0, "amplitude of the preset"};
  ParamSpec u{"u", ParamType::Input, {{"preset", "wave"}}, "a torque", -3.0, 3.0};
  u.unit = "N m";
  u.presets = {{"wave", "gain sin(2 pi t)", [](const Parameters& p) -> json {
                  return {{"sinusoids", {{{"amplitude", p.number("gain")}, {"frequency", 1.0}}}}};
                }}};
  const std::vector<ParamSpec> specs{gain, u};
  const Parameters d = Parameters::resolve(specs, nullptr, "toy", "toy.json: /system/params");
  CHECK(d.input("u")(0.25) == Approx(2.0).epsilon(1e-15));
  CHECK(d.given_inputs().empty());
  CHECK(d.to_json()["u"]["sinusoids"][0]["amplitude"] == 2.0);  // the preset written out, reproducible

  const Parameters g = Parameters::resolve(specs, {{"u", {{"t", {0.0, 1.0}}, {"value", {0.0, 1.0}}}}}, "toy", "w");
  CHECK(g.input("u")(0.5) == 0.5);
  CHECK(g.given_inputs() == std::vector<std::string>{"u"});

  auto refused = [&](const json& given) -> std::string {
    try {
      Parameters::resolve(specs, given, "toy", "toy.json: /system/params");
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  CHECK(refused({{"gain", 4.0}}).find("takes values in [-4, 4], outside its range [-3, 3] N m") != std::string::npos);
  CHECK(refused({{"u", {{"preset", "walk"}}}}).find("has the presets wave") != std::string::npos);
  CHECK(refused({{"u", {{"t", {0.0, 1.0}}, {"value", {0.0, 5.0}}}}}).find("toy.json: /system/params/u") != std::string::npos);
  CHECK(refused({{"v", 1.0}}).find("unknown parameter 'v'") != std::string::npos);
}
