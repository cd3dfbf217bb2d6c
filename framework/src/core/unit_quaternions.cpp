// Out-of-line destructor: the key function that makes UnitQuaternionCoordinates' RTTI unique to
// libdalembert, so that dynamic_cast to it works across plugins built with hidden visibility.
#include <dalembert/core/unit_quaternions.hpp>

namespace dalembert {

UnitQuaternionCoordinates::~UnitQuaternionCoordinates() = default;

}  // namespace dalembert
