// Out-of-line destructor: the key function that makes Linearizable's RTTI unique to libdalembert,
// so that dynamic_cast to it works across plugins built with hidden visibility.
#include <dalembert/core/linearizable.hpp>

namespace dalembert {

Linearizable::~Linearizable() = default;

}  // namespace dalembert
