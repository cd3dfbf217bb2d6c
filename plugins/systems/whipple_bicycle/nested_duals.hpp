#pragma once
// The nested-dual helpers moved into the framework (issue 28 item 4: the linearisation of any
// L-and-A model uses them); this name is kept for the model's include.
#include <dalembert/math/nested_duals.hpp>
