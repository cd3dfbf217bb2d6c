#pragma once
// The process's allocation counter (framework/app/allocation_counter.hpp, whose hooks
// test_conformance.cpp installs: one translation unit per executable), for the other files here.
#include <dalembert/study/conformance.hpp>

namespace dalembert::test {
AllocationCounter& allocation_counter();
}
