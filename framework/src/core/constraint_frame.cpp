// Out-of-line destructor: the key function that makes ConstraintFrame's RTTI unique to
// libdalembert, so dynamic_cast to it works across plugins built with hidden visibility.
#include <dalembert/core/constraint_frame.hpp>

namespace dalembert {
ConstraintFrame::~ConstraintFrame() = default;
}  // namespace dalembert
