#pragma once
// Asserting on a bundled study's checked claims (study/claims.hpp): the seed tests run a study and
// require that every claim it states holds, instead of re-typing the spec's numbers.
#include <algorithm>
#include <catch2/catch.hpp>
#include <dalembert/study/runner.hpp>
#include <string>
#include <vector>

namespace dalembert::test {

/// Every claim of the run holds (the failed ones are named), the run states at least `count`
/// claims, and each of `ids` exactly once (so a claim deleted from the study is noticed).
inline void require_claims(const RunReport& rep, std::size_t count, const std::vector<std::string>& ids) {
  const auto& results = rep.manifest.at("claims").at("results");
  std::string failed;
  for (const auto& r : results)
    if (r.at("verdict") != "pass") failed += r.at("id").get<std::string>() + " = " + r.at("value").dump() + "; ";
  INFO(rep.folder.string() << ": failed claims: " << failed);
  CHECK(rep.claims_failed == 0);
  CHECK(results.size() >= count);
  for (const auto& id : ids) {
    INFO("claim " << id);
    CHECK(std::count_if(results.begin(), results.end(), [&](const nlohmann::json& r) { return r.at("id") == id; }) == 1);
  }
}

inline void require_claims(const RunReport& rep, const std::vector<std::string>& ids) { require_claims(rep, 0, ids); }

}  // namespace dalembert::test
