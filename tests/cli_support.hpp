#pragma once
// Running the `dalembert` CLI from a test (std::system) and checking its one-line error, and a study
// in a temp folder run through it. Shared by the CLI tests (tests/framework/).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "temp_dir.hpp"

namespace dalembert::test {

struct CliResult {
  int status = -1;  // the exit status; -1 if killed by a signal
  std::string out, err;
};

inline std::string quote(const std::string& s) { return "'" + s + "'"; }

/// `env` (e.g. "DALEMBERT_PLUGIN_PATH=/x") is put before the command; `cd` runs it in another folder.
inline CliResult run_cli(const std::string& args, const std::filesystem::path& scratch, const std::string& env = "",
                         const std::filesystem::path& cd = {}) {
  const std::filesystem::path out = scratch / "cli.stdout", err = scratch / "cli.stderr";
  std::string cmd = (env.empty() ? "" : env + " ") + quote(DALEMBERT_CLI) + " " + args + " >" + quote(out.string()) +
                    " 2>" + quote(err.string());
  if (!cd.empty()) cmd = "cd " + quote(cd.string()) + " && " + cmd;
  const int rc = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

/// Non-zero exit, not by a signal (the shell reports one as 128 + signal); stderr is exactly one
/// line "error: ..." containing every needle.
inline void check_one_line_error(const CliResult& r, const std::vector<std::string>& needles) {
  INFO("stderr: " << r.err);
  INFO("stdout: " << r.out);
  CHECK(r.status > 0);
  CHECK(r.status < 128);
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK((!r.err.empty() && r.err.back() == '\n'));
  for (const auto& n : needles) {
    INFO("expected to contain: " << n);
    CHECK(r.err.find(n) != std::string::npos);
  }
}

/// A study in its own temp folder, run through the CLI into <dir>/out.
struct StudyCase {
  TempDir dir;
  std::filesystem::path file, out;
  explicit StudyCase(const std::string& tag) : dir(tag), file(dir / (tag + ".json")), out(dir / "out") {}

  CliResult run(const nlohmann::json& study, const std::string& extra = "", const std::string& env = "") {
    write_text(file, study.dump(2));
    return run_text(extra, env);
  }
  CliResult run_text(const std::string& extra = "", const std::string& env = "") {
    return run_cli("run " + quote(file.string()) + " --out " + quote(out.string()) + " --quiet --no-plots " + extra,
                   dir.path(), env);
  }
  // Nothing that looks like a result: neither the final folder nor a left-over staging folder.
  void check_no_result() const {
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK_FALSE(std::filesystem::exists(std::filesystem::path(out.string() + ".incomplete")));
  }
  // The run started and failed: its partial output is in out.failed with the error.
  void check_failed_folder(const std::string& needle) const {
    check_no_result();
    const std::filesystem::path failed = out.string() + ".failed";
    REQUIRE(std::filesystem::exists(failed / "error.txt"));
    CHECK(read_text(failed / "error.txt").find(needle) != std::string::npos);
  }
};

}  // namespace dalembert::test
