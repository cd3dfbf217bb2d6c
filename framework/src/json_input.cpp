#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/json_input.hpp>
#include <algorithm>

namespace dalembert {

JsonCursor::JsonCursor(const nlohmann::json& j, std::string file, std::string path)
    : j_(&j), file_(std::move(file)), path_(std::move(path)) {}

std::string JsonCursor::where() const { return file_ + ": " + (path_.empty() ? "/" : path_); }

void JsonCursor::fail(const std::string& message) const {
  std::string v = j_->dump();
  if (v.size() > 80) v = v.substr(0, 77) + "...";
  throw InputError(where(), "= " + v + ": " + message);
}

void JsonCursor::expect_object() const {
  if (!j_->is_object()) fail("expected a JSON object");
}

bool JsonCursor::has(const std::string& key) const { return j_->is_object() && j_->contains(key); }

JsonCursor JsonCursor::operator[](const std::string& key) const {
  expect_object();
  if (!j_->contains(key)) throw InputError(where(), "missing required key " + nlohmann::json(key).dump());
  return JsonCursor(j_->at(key), file_, path_ + "/" + json_pointer_token(key));
}

JsonCursor JsonCursor::at(std::size_t i) const {
  if (!j_->is_array() || i >= j_->size()) fail("expected an array with an element " + std::to_string(i));
  return JsonCursor((*j_)[i], file_, path_ + "/" + std::to_string(i));
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
    throw InputError(file_ + ": " + path_ + "/" + json_pointer_token(k), msg + "; allowed here: " + joined(allowed));
  }
}

}  // namespace dalembert
