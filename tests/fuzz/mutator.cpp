#include "mutator.hpp"

#include <cmath>
#include <functional>
#include <vector>

using nlohmann::json;

namespace dalembert::fuzz {

namespace {

// ---- shrinking -------------------------------------------------------------------------------

std::vector<double> step_sizes(const json& s) {
  std::vector<double> hs;
  const auto add = [&](const json& h) {
    if (h.is_number() && h.get<double>() != 0.0) hs.push_back(std::abs(h.get<double>()));
  };
  if (s.contains("h")) {
    if (s["h"].is_array())
      for (const auto& h : s["h"]) add(h);
    else add(s["h"]);
  }
  for (const auto& u : s.value("integrators", json::array()))
    if (u.is_object() && u.contains("h")) add(u["h"]);
  if (s.contains("reference") && s["reference"].is_object() && s["reference"].contains("h")) add(s["reference"]["h"]);
  return hs;
}

// The shortest horizon k * max(h), k = 2, 4, ..., that is a whole number of every step size.
void shorten_horizon(json& s) {
  const auto hs = step_sizes(s);
  if (hs.empty()) return;
  double hmax = 0;
  for (double h : hs) hmax = std::max(hmax, h);
  for (double k = 2; k <= 64; k *= 2) {
    const double T = k * hmax;
    bool whole = true;
    for (double h : hs) {
      const double n = T / h;
      whole = whole && std::abs(n - std::round(n)) <= 1e-9 * n && n <= 4000;
    }
    if (whole) {
      s["T"] = T;
      return;
    }
  }
}

// ---- paths of a json value ----------------------------------------------------------------------

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

void collect(const json& j, const std::string& path, std::vector<std::string>& out) {
  out.push_back(path);
  if (j.is_object())
    for (const auto& [k, v] : j.items()) collect(v, path + "/" + pointer_token(k), out);
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) collect(j[i], path + "/" + std::to_string(i), out);
}

template <class T>
const T& pick(const std::vector<T>& v, std::mt19937_64& rng) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

// A study being mutated: the json, and raw text to splice in for marker strings after dumping.
struct Draft {
  json j;
  std::vector<std::pair<std::string, std::string>> splices;  // dumped marker -> raw text
  std::string what;

  void splice(const std::string& path, std::string raw) {
    const std::string marker = "@@M" + std::to_string(splices.size()) + "@@";
    j[json::json_pointer(path)] = marker;
    splices.emplace_back(json(marker).dump(), std::move(raw));
  }
  std::string text() const {
    std::string t = j.dump(2);
    for (const auto& [marker, raw] : splices) {
      const auto p = t.find(marker);
      if (p != std::string::npos) t.replace(p, marker.size(), raw);
    }
    return t;
  }
};

std::vector<std::string> paths_where(const json& j, const std::function<bool(const json&)>& keep) {
  std::vector<std::string> all, out;
  collect(j, "", all);
  for (const auto& p : all)
    if (!p.empty() && keep(j[json::json_pointer(p)])) out.push_back(p);
  return out;
}

const std::vector<std::string> kHostileStrings = {
    "..", ".", "", "'", "\"", ";", "\n", ",", std::string("a\0b", 3), std::string(5000, 'x'), "../../../tmp/x",
    "a b", "x'; touch PWNED; echo '", "RK4.csv", "/", "-rf", "\xc3\xa9t\xc3\xa9", "$(id)", "a,b\nc"};

const std::vector<std::string> kExtremeNumbers = {
    "0", "-1", "1e300", "-1e-300", "9223372036854775807", "18446744073709551615", "-9223372036854775808",
    "99999999999999999999999", "1e999", "-1e999", "\"NaN\"", "4.9e-324", "1e9", "0.5", "3", "1e-12", "-0"};

// ---- the mutations ------------------------------------------------------------------------------

using Mutation = std::function<void(Draft&, std::mt19937_64&)>;

void extreme_number(Draft& d, std::mt19937_64& rng) {
  const auto ps = paths_where(d.j, [](const json& v) { return v.is_number(); });
  if (ps.empty()) return;
  const auto& p = pick(ps, rng);
  const auto& x = pick(kExtremeNumbers, rng);
  d.splice(p, x);
  d.what += " number " + p + "=" + x;
}

void hostile_string(Draft& d, std::mt19937_64& rng) {
  const auto ps = paths_where(d.j, [](const json& v) { return v.is_string(); });
  if (ps.empty()) return;
  const auto& p = pick(ps, rng);
  d.j[json::json_pointer(p)] = pick(kHostileStrings, rng);
  d.what += " string " + p;
}

void hostile_name(Draft& d, std::mt19937_64& rng) {
  std::vector<std::string> ps = {"/name"};
  for (std::size_t i = 0; i < d.j.value("integrators", json::array()).size(); ++i)
    if (d.j["integrators"][i].is_object()) ps.push_back("/integrators/" + std::to_string(i) + "/label");
  const auto& p = pick(ps, rng);
  d.j[json::json_pointer(p)] = pick(kHostileStrings, rng);
  d.what += " name " + p;
}

void delete_key(Draft& d, std::mt19937_64& rng) {
  const auto ps = paths_where(d.j, [](const json&) { return true; });
  if (ps.empty()) return;
  const json::json_pointer p(pick(ps, rng));
  json& parent = d.j[p.parent_pointer()];
  if (parent.is_object()) parent.erase(p.back());
  else if (parent.is_array()) parent.erase(std::stoul(p.back()));
  d.what += " delete " + p.to_string();
}

void duplicate_key(Draft& d, std::mt19937_64& rng) {
  const auto ps = paths_where(d.j, [](const json& v) { return v.is_object() && !v.empty(); });
  std::vector<std::string> objects = ps;
  if (d.j.is_object()) objects.push_back("");
  if (objects.empty()) return;
  const auto& p = pick(objects, rng);
  json& o = d.j[json::json_pointer(p)];
  const std::string key = std::next(o.begin(), static_cast<long>(std::uniform_int_distribution<std::size_t>(0, o.size() - 1)(rng))).key();
  const std::string marker = "@@D" + std::to_string(d.splices.size()) + "@@";
  o[marker] = o[key];
  d.splices.emplace_back(json(marker).dump(), json(key).dump());
  d.what += " duplicate " + p + "/" + key;
}

void deep_nesting(Draft& d, std::mt19937_64& rng) {
  const auto ps = paths_where(d.j, [](const json&) { return true; });
  if (ps.empty()) return;
  const std::size_t depth = pick(std::vector<std::size_t>{60, 65, 1000, 1000000}, rng);
  const auto& p = pick(ps, rng);
  const bool objects = rng() % 2;
  std::string raw;
  if (objects) {
    for (std::size_t i = 0; i < depth; ++i) raw += "{\"a\":";
    raw += "1" + std::string(depth, '}');
  } else {
    raw = std::string(depth, '[') + std::string(depth, ']');
  }
  d.splice(p, raw);
  d.what += " deep " + std::to_string(depth) + " at " + p;
}

void huge_array(Draft& d, std::mt19937_64& rng) {
  const auto ps = paths_where(d.j, [](const json&) { return true; });
  if (ps.empty()) return;
  const auto& p = pick(ps, rng);
  const std::size_t n = pick(std::vector<std::size_t>{3, 10001, 100000, 1000000}, rng);
  const std::string element = rng() % 2 ? std::string("0") : d.j[json::json_pointer(p)].dump();
  if (element.size() * n > (std::size_t{8} << 20)) return;
  std::string raw = "[";
  for (std::size_t i = 0; i < n; ++i) raw += (i ? "," : "") + element;
  d.splice(p, raw + "]");
  d.what += " array of " + std::to_string(n) + " at " + p;
}

void type_swap(Draft& d, std::mt19937_64& rng) {
  const auto ps = paths_where(d.j, [](const json&) { return true; });
  if (ps.empty()) return;
  const auto& p = pick(ps, rng);
  const std::vector<json> values = {nullptr, true, json::object(), json::array(), "x", 42, 0.5, {1, 2}, -3};
  d.j[json::json_pointer(p)] = pick(values, rng);
  d.what += " type " + p;
}

void known_key_extreme(Draft& d, std::mt19937_64& rng) {
  const std::vector<std::string> keys = {"/T", "/h", "/record_every", "/ensemble/size", "/ensemble/seed",
                                         "/initial/t", "/integrators/0/h", "/order_tolerance", "/plateau"};
  const auto& p = pick(keys, rng);
  const json::json_pointer jp(p);
  if (!d.j.contains(jp.parent_pointer()) || !d.j[jp.parent_pointer()].is_object()) return;
  const auto& x = pick(kExtremeNumbers, rng);
  d.splice(p, x);
  d.what += " " + p + "=" + x;
}

void sweep_pointer(Draft& d, std::mt19937_64& rng) {
  if (!d.j.contains("sweep") || !d.j["sweep"].contains("axes") || !d.j["sweep"]["axes"].is_array() ||
      d.j["sweep"]["axes"].empty() || !d.j["sweep"]["axes"][0].is_object())
    return;
  const std::vector<std::string> ptrs = {"/integrators/100000000/params/beta", "/integrators/-", "/T", "/name",
                                         "/kind", "/sweep/of", "/integrators/0/params/new_key", "/", "/initial/q/7",
                                         "/system", "/h"};
  const auto& p = pick(ptrs, rng);
  d.j["sweep"]["axes"][0]["set"] = {p};
  d.what += " sweep set " + p;
}

void unknown_key(Draft& d, std::mt19937_64& rng) {
  const std::vector<json> extras = {{{"limits", {{"steps", 1e300}}}}, {{"limits", {{"array", 0.5}}}}, {{"bogus", 1}},
                                    {{"claims", {{"a", {{"b", {{"c", 1}}}}}}}}, {{"plugin_paths", {"/"}}},
                                    {{"record_format", "npy"}}, {{"record_format", "parquet"}}};
  d.j.update(pick(extras, rng));
  d.what += " extra key";
}

const std::vector<Mutation> kMutations = {extreme_number, hostile_string, hostile_name, delete_key,
                                          duplicate_key,  deep_nesting,   huge_array,   type_swap,
                                          known_key_extreme, sweep_pointer, unknown_key};

void text_damage(std::string& t, std::mt19937_64& rng, std::string& what) {
  if (t.empty()) return;
  std::uniform_int_distribution<std::size_t> at(0, t.size() - 1);
  if (rng() % 2) {
    t.resize(at(rng));
    what += " truncated";
  } else {
    for (int i = 0; i < 3; ++i) t[at(rng)] = static_cast<char>(rng() & 0xff);
    what += " byte flips";
  }
}

}  // namespace

json shrink(json s) {
  if (s.contains("h") && s["h"].is_array() && s["h"].size() > 3) s["h"] = json(std::vector<json>(s["h"].begin(), s["h"].begin() + 3));
  shorten_horizon(s);
  if (s.contains("ensemble") && s["ensemble"].contains("size")) s["ensemble"]["size"] = std::min<long>(s["ensemble"]["size"].get<long>(), 4);
  if (s.contains("sweep"))
    for (auto& a : s["sweep"]["axes"])
      if (a["values"].size() > 2) a["values"] = json{a["values"][0], a["values"][1]};
  return s;
}

std::string with_raw_value(const json& study, const std::string& path, const std::string& raw) {
  Draft d{study, {}, {}};
  d.splice(path, raw);
  return d.text();
}

std::string mutate(const json& shrunk, std::mt19937_64& rng, std::string& what) {
  Draft d{shrunk, {}, {}};
  const int n = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n; ++i) pick(kMutations, rng)(d, rng);
  std::string text = d.text();
  if (rng() % 8 == 0) text_damage(text, rng, d.what);
  what = d.what;
  return text;
}

}  // namespace dalembert::fuzz
