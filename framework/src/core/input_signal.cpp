#include <algorithm>
#include <cmath>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/input_signal.hpp>
#include <fstream>
#include <limits>
#include <numbers>
#include <sstream>

namespace dalembert {

namespace {

using nlohmann::json;
constexpr double inf = std::numeric_limits<double>::infinity();

double finite_number(const json& j, const std::string& key, const std::string& at, double fallback) {
  if (!j.contains(key)) return fallback;
  const json& v = j.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw InputError(at + "/" + key, "= " + v.dump() + ": an input's '" + key + "' must be a finite number");
  return v.get<double>();
}

std::string string_key(const json& j, const std::string& key, const std::string& at, const std::string& fallback) {
  if (!j.contains(key)) return fallback;
  if (!j.at(key).is_string())
    throw InputError(at + "/" + key, "= " + j.at(key).dump() + ": an input's '" + key + "' must be a string");
  return j.at(key).get<std::string>();
}

void only_keys(const json& j, const std::vector<std::string>& keys, const std::string& at) {
  for (const auto& [k, v] : j.items())
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
      std::string list;
      for (const auto& x : keys) list += (list.empty() ? "" : ", ") + x;
      throw InputError(at + "/" + k, "unknown key '" + k + "' in an input signal; its keys here are: " + list);
    }
}

std::vector<double> number_array(const json& j, const std::string& key, const std::string& at) {
  if (!j.contains(key) || !j.at(key).is_array())
    throw InputError(at + "/" + key, "an input table needs '" + key + "': an array of numbers");
  std::vector<double> out;
  for (std::size_t i = 0; i < j.at(key).size(); ++i) {
    const json& x = j.at(key)[i];
    if (!x.is_number() || !std::isfinite(x.get<double>()))
      throw InputError(at + "/" + key + "/" + std::to_string(i), "= " + x.dump() + ": not a finite number");
    out.push_back(x.get<double>());
  }
  return out;
}

InputSignal::Kind interpolation(const json& j, const std::string& at) {
  const std::string s = string_key(j, "interpolation", at, "linear");
  if (s == "linear") return InputSignal::Kind::Linear;
  if (s == "cubic") return InputSignal::Kind::Cubic;
  throw InputError(at + "/interpolation", "= \"" + s + "\": an input table's interpolation is \"linear\" or \"cubic\"");
}

// Two columns (t, value) after one header line; blank lines and lines starting with '#' skipped.
void read_csv(const std::filesystem::path& file, const std::string& at, std::vector<double>& t, std::vector<double>& v) {
  std::ifstream in(file);
  if (!in) throw InputError(at, "cannot read the input table '" + file.string() + "'");
  std::string line;
  for (long n = 1; std::getline(in, line); ++n) {
    if (n == 1 || line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream row(line);
    double a, b;
    std::string extra;
    if (!(row >> a >> b) || (row >> extra) || !std::isfinite(a) || !std::isfinite(b))
      throw InputError(at, file.string() + ":" + std::to_string(n) + ": expected two finite numbers 't, value', got '" +
                               line + "'");
    t.push_back(a);
    v.push_back(b);
  }
}

// Second derivatives of the natural cubic spline through (t, v): m₀ = m_{n−1} = 0 and, inside,
// hᵢ₋₁mᵢ₋₁ + 2(hᵢ₋₁ + hᵢ)mᵢ + hᵢmᵢ₊₁ = 6((vᵢ₊₁ − vᵢ)/hᵢ − (vᵢ − vᵢ₋₁)/hᵢ₋₁), solved by the Thomas
// algorithm (the system is diagonally dominant).
std::vector<double> natural_spline(const std::vector<double>& t, const std::vector<double>& v) {
  const std::size_t n = t.size();
  std::vector<double> m(n, 0.0), c(n, 0.0), d(n, 0.0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
    const double rhs = 6 * ((v[i + 1] - v[i]) / h1 - (v[i] - v[i - 1]) / h0);
    const double diag = 2 * (h0 + h1) - h0 * c[i - 1];
    c[i] = h1 / diag;
    d[i] = (rhs - h0 * d[i - 1]) / diag;
  }
  for (std::size_t i = n - 1; i-- > 1;) m[i] = d[i] - c[i] * m[i + 1];
  return m;
}

}  // namespace

InputSignal InputSignal::constant(double c) {
  InputSignal s;
  s.offset_ = s.lower_ = s.upper_ = c;
  return s;
}

InputSignal InputSignal::parse(const json& j, const std::string& at, const std::filesystem::path& folder) {
  if (j.is_number()) return constant(finite_number(json{{"constant", j}}, "constant", at, 0.0));
  if (!j.is_object())
    throw InputError(at, "= " + j.dump().substr(0, 200) + ": an input is a number or an object with one of "
                                                          "'constant', 'sinusoids', 't' and 'value', 'csv', 'preset'");
  if (j.contains("constant")) {
    only_keys(j, {"constant"}, at);
    return constant(finite_number(j, "constant", at, 0.0));
  }
  if (j.contains("sinusoids")) {
    only_keys(j, {"sinusoids", "offset"}, at);
    InputSignal s = constant(finite_number(j, "offset", at, 0.0));
    s.kind_ = Kind::Sinusoids;
    const json& list = j.at("sinusoids");
    if (!list.is_array() || list.empty())
      throw InputError(at + "/sinusoids", "must be a non-empty array of {amplitude, frequency, phase, function}");
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string ak = at + "/sinusoids/" + std::to_string(k);
      if (!list[k].is_object()) throw InputError(ak, "= " + list[k].dump() + ": a sinusoid is an object");
      only_keys(list[k], {"amplitude", "frequency", "phase", "function"}, ak);
      const std::string fn = string_key(list[k], "function", ak, "sin");
      if (fn != "sin" && fn != "cos") throw InputError(ak + "/function", "= \"" + fn + "\": \"sin\" or \"cos\"");
      const Term term{finite_number(list[k], "amplitude", ak, 1.0), finite_number(list[k], "frequency", ak, 1.0),
                      finite_number(list[k], "phase", ak, 0.0), fn == "cos"};
      s.terms_.push_back(term);
      s.lower_ -= std::abs(term.amplitude);
      s.upper_ += std::abs(term.amplitude);
    }
    return s;
  }
  std::vector<double> t, v;
  if (j.contains("csv")) {
    only_keys(j, {"csv", "interpolation"}, at);
    if (!j.at("csv").is_string()) throw InputError(at + "/csv", "= " + j.at("csv").dump() + ": a file name");
    const std::filesystem::path file = folder / j.at("csv").get<std::string>();
    read_csv(file, at + "/csv", t, v);
  } else if (j.contains("t") || j.contains("value")) {
    only_keys(j, {"t", "value", "interpolation"}, at);
    t = number_array(j, "t", at);
    v = number_array(j, "value", at);
  } else if (j.contains("preset")) {
    throw InputError(at, "a preset cannot be given here (only where the system's input is read)");
  } else {
    throw InputError(at, "= " + j.dump().substr(0, 200) + ": an input object has one of 'constant', 'sinusoids', "
                                                          "'t' and 'value', 'csv', 'preset'");
  }
  InputSignal s;
  s.set_table(std::move(t), std::move(v), interpolation(j, at), at);
  return s;
}

void InputSignal::set_table(std::vector<double> t, std::vector<double> v, Kind kind, const std::string& at) {
  if (t.size() != v.size())
    throw InputError(at, "an input table has " + std::to_string(t.size()) + " times and " + std::to_string(v.size()) +
                             " values");
  if (t.size() < 2) throw InputError(at, "an input table needs at least two points, got " + std::to_string(t.size()));
  for (std::size_t i = 1; i < t.size(); ++i)
    if (!(t[i] > t[i - 1]))
      throw InputError(at, "an input table's t must increase: t[" + std::to_string(i) + "] = " + number_text(t[i], "%.17g") +
                               " follows t[" + std::to_string(i - 1) + "] = " + number_text(t[i - 1], "%.17g"));
  kind_ = kind;
  t_ = std::move(t);
  v_ = std::move(v);
  m_ = kind == Kind::Cubic ? natural_spline(t_, v_) : std::vector<double>(t_.size(), 0.0);
  bound_spline();
}

// The extreme values: the nodes', and for a spline each interval's interior extrema (the roots of
// its derivative c₁ + 2c₂s + 3c₃s², s = t − tᵢ).
void InputSignal::bound_spline() {
  lower_ = *std::min_element(v_.begin(), v_.end());
  upper_ = *std::max_element(v_.begin(), v_.end());
  if (kind_ != Kind::Cubic) return;
  for (std::size_t i = 0; i + 1 < t_.size(); ++i) {
    const double h = t_[i + 1] - t_[i];
    const double c1 = (v_[i + 1] - v_[i]) / h - h * (2 * m_[i] + m_[i + 1]) / 6, c2 = m_[i] / 2,
                 c3 = (m_[i + 1] - m_[i]) / (6 * h);
    const double a = 3 * c3, b = 2 * c2, disc = b * b - 4 * a * c1;
    std::vector<double> roots;
    if (a == 0.0) {
      if (b != 0.0) roots.push_back(-c1 / b);
    } else if (disc >= 0) {
      roots.push_back((-b + std::sqrt(disc)) / (2 * a));
      roots.push_back((-b - std::sqrt(disc)) / (2 * a));
    }
    for (double s : roots)
      if (s > 0 && s < h) {
        const double x = spline(i, t_[i] + s);
        lower_ = std::min(lower_, x);
        upper_ = std::max(upper_, x);
      }
  }
}

std::size_t InputSignal::interval(double t) const {
  const auto it = std::upper_bound(t_.begin(), t_.end(), t);
  const std::size_t k = static_cast<std::size_t>(it - t_.begin());
  return std::clamp<std::size_t>(k == 0 ? 0 : k - 1, 0, t_.size() - 2);
}

// S(t) = a vᵢ + b vᵢ₊₁ + ((a³ − a)mᵢ + (b³ − b)mᵢ₊₁)h²/6, a = (tᵢ₊₁ − t)/h, b = 1 − a (m = 0: linear).
double InputSignal::spline(std::size_t i, double t) const {
  const double h = t_[i + 1] - t_[i], b = (t - t_[i]) / h, a = 1 - b;
  const double lin = a * v_[i] + b * v_[i + 1];
  if (kind_ == Kind::Linear) return lin;
  return lin + ((a * a * a - a) * m_[i] + (b * b * b - b) * m_[i + 1]) * h * h / 6;
}

double InputSignal::operator()(double t) const {
  switch (kind_) {
    case Kind::Constant: return offset_;
    case Kind::Sinusoids: {
      double u = offset_;
      for (const Term& term : terms_) {
        const double x = 2 * std::numbers::pi * term.frequency * t + term.phase;
        u += term.amplitude * (term.cosine ? std::cos(x) : std::sin(x));
      }
      return u;
    }
    case Kind::Linear:
    case Kind::Cubic:
      // Outside the table (a stage a rounding error past its end) the end values are held; a run
      // whose interval leaves the table is refused before it starts.
      if (t <= t_.front()) return v_.front();
      if (t >= t_.back()) return v_.back();
      return spline(interval(t), t);
  }
  return 0.0;
}

double InputSignal::t_first() const { return t_.empty() ? -inf : t_.front(); }
double InputSignal::t_last() const { return t_.empty() ? inf : t_.back(); }

json InputSignal::to_json() const {
  switch (kind_) {
    case Kind::Constant: return {{"constant", offset_}};
    case Kind::Sinusoids: {
      json list = json::array();
      for (const Term& term : terms_)
        list.push_back({{"amplitude", term.amplitude}, {"frequency", term.frequency}, {"phase", term.phase},
                        {"function", term.cosine ? "cos" : "sin"}});
      return {{"sinusoids", list}, {"offset", offset_}};
    }
    case Kind::Linear:
    case Kind::Cubic: return {{"t", t_}, {"value", v_}, {"interpolation", kind_ == Kind::Cubic ? "cubic" : "linear"}};
  }
  return nullptr;
}

}  // namespace dalembert
