#include <climits>
#include <cmath>
#include <cstdint>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/core/json_input.hpp>
#include <algorithm>

namespace dalembert {

JsonCursor::JsonCursor(const nlohmann::json& j, std::string file, std::string path)
    : j_(&j), file_(std::move(file)), path_(std::move(path)) {}

JsonCursor JsonCursor::below(const nlohmann::json& j, std::string where) {
  JsonCursor c(j, std::move(where));
  c.below_ = true;
  return c;
}

JsonCursor JsonCursor::child(const nlohmann::json& j, const std::string& token) const {
  JsonCursor c(j, file_, path_ + "/" + token);
  c.below_ = below_;
  return c;
}

std::string JsonCursor::where() const {
  if (below_) return file_ + path_;
  return file_ + ": " + (path_.empty() ? "/" : path_);
}

std::string json_excerpt(const nlohmann::json& j, std::size_t max_chars) {
  std::string v = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (v.size() > max_chars) v = v.substr(0, max_chars > 3 ? max_chars - 3 : 0) + "...";
  return v;
}

void JsonCursor::fail(const std::string& message) const { throw InputError(where(), "= " + json_excerpt(*j_) + ": " + message); }

void JsonCursor::expect_object() const {
  if (!j_->is_object()) fail("expected a JSON object");
}

bool JsonCursor::has(const std::string& key) const { return j_->is_object() && j_->contains(key); }

JsonCursor JsonCursor::operator[](const std::string& key) const {
  expect_object();
  if (!j_->contains(key)) throw InputError(where(), "missing required key " + nlohmann::json(key).dump());
  return child(j_->at(key), json_pointer_token(key));
}

JsonCursor JsonCursor::at(std::size_t i) const {
  if (!j_->is_array() || i >= j_->size()) fail("expected an array with an element " + std::to_string(i));
  return child((*j_)[i], std::to_string(i));
}

std::size_t JsonCursor::size() const {
  if (!j_->is_array()) fail("expected an array");
  return j_->size();
}

double JsonCursor::number() const {
  if (!j_->is_number()) fail("expected a number");
  const double x = j_->get<double>();
  if (!std::isfinite(x)) fail("expected a finite number");
  return x;
}

double JsonCursor::finite_positive() const {
  const double x = number();
  if (!(x > 0.0)) fail("must be positive");
  return x;
}

long JsonCursor::integer() const {
  if (!j_->is_number_integer()) fail("expected an integer");
  // An unsigned above 2^63 - 1 (e.g. 18446744073709551615) would wrap to a negative long.
  if (j_->is_number_unsigned() && j_->get<std::uint64_t>() > static_cast<std::uint64_t>(LONG_MAX))
    fail("expected an integer of at most " + std::to_string(LONG_MAX));
  return j_->get<long>();
}

bool JsonCursor::boolean() const {
  if (!j_->is_boolean()) fail("expected true or false");
  return j_->get<bool>();
}

std::string JsonCursor::string() const {
  if (!j_->is_string()) fail("expected a string");
  return j_->get<std::string>();
}

std::vector<double> JsonCursor::numbers() const {
  std::vector<double> out;
  for (std::size_t i = 0; i < size(); ++i) out.push_back(at(i).number());
  return out;
}

void JsonCursor::allow_keys(const std::vector<std::string>& allowed) const {
  expect_object();
  for (const auto& [k, v] : j_->items()) {
    if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
    std::string msg = "unknown key " + nlohmann::json(k).dump();
    const std::string near = nearest_name(k, allowed);
    if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
    throw InputError(child(v, json_pointer_token(k)).where(), msg + "; allowed here: " + joined(allowed));
  }
}

JsonCursor json_parameter(const Parameters& p, const std::string& name) {
  return JsonCursor::below(p.json(name), p.where(name));
}

}  // namespace dalembert
