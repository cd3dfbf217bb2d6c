#pragma once
// An Integrator whose start() and step() a dispatching plugin may call directly: the plugins that
// pick one implementation per model or group in bind() (gni, rdp, rkmk4) hold it as their `impl_`
// and forward start()/step() to it (Integrator keeps them protected for every other caller).
#include <dalembert/core/integrator.hpp>

namespace dalembert {

struct OpenIntegrator : Integrator {
  using Integrator::start;
  using Integrator::step;
};

}  // namespace dalembert
