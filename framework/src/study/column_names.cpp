#include <dalembert/core/errors.hpp>
#include <dalembert/study/column_names.hpp>
#include <map>

namespace dalembert {

void check_unique_columns(const std::vector<ColumnProducer>& producers) {
  std::map<std::string, const ColumnProducer*> seen;
  for (const auto& p : producers)
    for (const auto& c : p.columns) {
      const auto [it, inserted] = seen.emplace(c, &p);
      if (inserted) continue;
      const std::string who = it->second == &p ? "twice by " + p.name : "by both " + it->second->name + " and " + p.name;
      throw Error("column '" + c + "' is written " + who +
                  ": one CSV cannot hold two columns of one name (drop one of them, or exclude the name: the "
                  "observer 'discrete_quantities' takes \"exclude\": [names])");
    }
}

}  // namespace dalembert
