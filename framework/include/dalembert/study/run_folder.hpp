#pragma once
// The output folder of one run. Work happens in "DIR.incomplete"; commit() renames it to DIR
// (replacing an older result), fail() renames it to "DIR.failed" with error.txt beside whatever
// was written. So a folder named DIR is always a complete run.
#include <boost/config.hpp>
#include <filesystem>
#include <string>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE RunFolder {
 public:
  /// Creates the staging folder; an InputError naming the folder if it cannot be written.
  explicit RunFolder(const std::filesystem::path& final_dir);
  ~RunFolder();  // a folder neither committed nor failed is marked failed
  const std::filesystem::path& staging() const { return staging_; }
  const std::filesystem::path& final_dir() const { return final_; }
  std::filesystem::path file(const std::string& name) const { return staging_ / name; }
  void commit();
  void fail(const std::string& error);

 private:
  std::filesystem::path final_, staging_;
  bool done_ = false;
};

}  // namespace dalembert
