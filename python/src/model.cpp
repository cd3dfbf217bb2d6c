// The model's mathematics from Python (issue 31 item 1): for a system written as an L-and-A model
// (a ConstrainedLagrangian: M(q), V(q), the constraint distribution C(q) = [A; ∂g/∂q] and the
// holonomic g(q)), its functions on numpy arrays, and the constrained vector field
//   M v̇ = −∇V − c(q, v) + F(t, q, v) + Cᵀλ,   d/dt (C(q) v) = 0
// with its multipliers λ (core/nonholonomic_field.hpp), as every integrator plugin evaluates them.
// Derivatives are the C++ ones (AD for a FixedLagrangianSystem), not Python's.
#include "stepping.hpp"

#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/study/derivative_check.hpp>
#include <pybind11/stl.h>

namespace dalembert::python {

namespace {

using SystemClass = py::class_<PySystem, std::shared_ptr<PySystem>>;

// The system's L-and-A model, or an Error saying it has none.
const ConstrainedLagrangian& lagrangian(const PySystem& s, const std::string& who) {
  const auto* model = dynamic_cast<const ConstrainedLagrangian*>(&s.get());
  if (!model)
    throw Error(who + ": system '" + s.get().name() +
                "' is not written as an L-and-A model (M(q), V(q), A(q)); its equations are its plugin's own");
  return *model;
}

// q (or v) as a vector of the model's n entries, finite.
Vec sized(const PySystem& s, const ConstrainedLagrangian& model, const py::handle& x, const std::string& who,
          const char* what) {
  Vec out = to_vec(x, who + ": " + what);
  if (out.size() != model.dof())
    throw InputError(who + ": " + what, "has " + std::to_string(out.size()) + " entries; system '" + s.get().name() +
                                            "' has " + std::to_string(model.dof()));
  return out;
}

// The constrained vector field at (t, q, v): v̇ and λ.
std::pair<Vec, Vec> field(const PySystem& s, double t, const py::handle& q, const py::handle& v, const std::string& who) {
  const ConstrainedLagrangian& model = lagrangian(s, who);
  finite_time(t, who + ": t");
  const Vec qv = sized(s, model, q, who, "q"), vv = sized(s, model, v, who, "v");
  NonholonomicVectorField f;
  f.bind(model);
  Vec qdot(model.dof()), vdot(model.dof());
  f.evaluate(t, qv, vv, qdot, vdot);
  if (!vdot.allFinite() || !f.multiplier().allFinite())
    throw Error(who + ": the field of system '" + s.get().name() +
                "' is not finite at this (t, q, v) (overflow, or M(q) or C M⁻¹ Cᵀ singular there)");
  return {vdot, f.multiplier()};
}

// The derivative checker of `dalembert check SYSTEM` (study/derivative_check.hpp) around `state`
// (None: the system's first example state, as the command line), as a pandas DataFrame with one
// row per function: function, compared_with, worst_relative_error, measured (a property's value),
// states, and ok (no finding for it); the findings (one line each) in its attrs["findings"].
py::object check(const PySystem& s, const py::object& state, int samples, std::uint64_t seed) {
  const auto* lagrangian = dynamic_cast<const LagrangianSystem*>(&s.get());
  if (!lagrangian)
    throw Error("System.check: system '" + s.get().name() +
                "' is not written as an L-and-A model: it has no derivatives to check (`dalembert check` lists its example states)");
  if (samples < 0 || samples > 100000) throw InputError("System.check: samples", "= " + std::to_string(samples) + ": 0 to 100000");
  DerivativeCheckOptions opt;
  opt.flow = true;
  opt.samples = samples;
  opt.seed = seed;
  if (!state.is_none()) {
    if (!py::isinstance<State>(state))
      throw InputError("System.check: state", "is a " + std::string(py::str(py::type::of(state).attr("__name__"))) +
                                                  "; give a dalembert.State (System.state(q, v)) or None");
    const State& st = state.cast<const State&>();
    s.check(st, "System.check");
    opt.state = st;
  } else if (const auto& examples = registry().find(PluginKind::System, s.get().name(), "System.check").examples;
             !examples.empty()) {
    opt.state = examples.front().state;
  }
  DerivativeCheckResult result;
  {
    py::gil_scoped_release release;
    result = check_derivatives(*lagrangian, opt);
  }
  py::list rows;
  for (const auto& f : result.summary) {
    bool ok = true;
    for (const auto& x : result.findings) ok = ok && x.function != f.function;
    py::dict r;
    r["function"] = f.function;
    r["compared_with"] = f.reference;
    r["worst_relative_error"] = f.measured ? py::float_(std::nan("")) : py::float_(f.worst_relative_error);
    r["measured"] = f.measured ? py::float_(*f.measured) : py::float_(std::nan(""));
    r["states"] = f.states;
    r["ok"] = ok;
    rows.append(r);
  }
  py::object frame = py::module_::import("pandas").attr("DataFrame")(rows);
  py::list findings;
  for (const auto& x : result.findings) findings.append(x.message);
  frame.attr("attrs")["findings"] = findings;
  return frame;
}

void add_functions(SystemClass& cls) {
  cls.def(
         "M",
         [](const PySystem& s, const py::handle& q) {
           const auto& model = lagrangian(s, "System.M");
           Mat M(model.dof(), model.dof());
           model.mass(sized(s, model, q, "System.M", "q"), M);
           return to_matrix(M);
         },
         py::arg("q"), "The mass matrix M(q) (n×n) of an L-and-A system.")
      .def(
          "V",
          [](const PySystem& s, const py::handle& q) {
            const auto& model = lagrangian(s, "System.V");
            return model.potential(sized(s, model, q, "System.V", "q"));
          },
          py::arg("q"), "The potential V(q).")
      .def(
          "grad_V",
          [](const PySystem& s, const py::handle& q) {
            const auto& model = lagrangian(s, "System.grad_V");
            Vec g(model.dof());
            model.potential_gradient(sized(s, model, q, "System.grad_V", "q"), g);
            return to_array(g);
          },
          py::arg("q"), "∇V(q) (n), by the model's automatic derivatives.")
      .def(
          "A",
          [](const PySystem& s, const py::handle& q) {
            const auto& model = lagrangian(s, "System.A");
            Mat A(model.num_constraints(), model.dof());
            model.constraint_matrix(sized(s, model, q, "System.A", "q"), A);
            return to_matrix(A);
          },
          py::arg("q"),
          "The constraint distribution C(q) (r×n): the rolling constraints A(q), then ∂g/∂q of the "
          "holonomic ones (its last len(g(q)) rows).")
      .def(
          "g",
          [](const PySystem& s, const py::handle& q) {
            const auto& model = lagrangian(s, "System.g");
            Vec g(model.holonomic_count());
            model.holonomic(sized(s, model, q, "System.g", "q"), g);
            return to_array(g);
          },
          py::arg("q"), "The holonomic constraints g(q) (empty without them).")
      .def(
          "b",
          [](const PySystem& s, double t, const py::handle& q) {
            const auto& model = lagrangian(s, "System.b");
            const double time = finite_time(t, "System.b: t");
            Vec b = Vec::Zero(model.num_constraints());
            const Vec qv = sized(s, model, q, "System.b", "q");
            if (const auto* affine = affine_constraint_of(model)) affine->affine_term(time, qv, b);
            return to_array(b);
          },
          py::arg("t"), py::arg("q"),
          "The moving part b(t, q) of the constraints C(q)v + b(t, q) = 0 (one entry per row of C; zeros "
          "for a system whose constraints do not move).")
      .def(
          "f",
          [](const PySystem& s, double t, const py::handle& q, const py::handle& v) {
            return to_array(field(s, t, q, v, "System.f").first);
          },
          py::arg("t"), py::arg("q"), py::arg("v"),
          "The constrained vector field: v̇ at (t, q, v) (q̇ = v), as every integrator evaluates it.")
      .def(
          "multipliers",
          [](const PySystem& s, double t, const py::handle& q, const py::handle& v) {
            return to_array(field(s, t, q, v, "System.multipliers").second);
          },
          py::arg("t"), py::arg("q"), py::arg("v"), "The constraint multipliers λ at (t, q, v) (r): Cᵀλ is the constraint force.")
      .def("check", &check, py::arg("state") = py::none(), py::arg("samples") = 8, py::arg("seed") = 1,
           "`dalembert check SYSTEM` as a DataFrame: each derivative of the model against central differences "
           "(and M's symmetry and definiteness, C's rank, RK4's energy and constraint drift) around `state` "
           "(default: the system's first example state) and `samples` random states near it.");
}

}  // namespace

void register_model(py::module_& m) {
  auto cls = py::reinterpret_borrow<SystemClass>(m.attr("System"));
  add_functions(cls);
}

}  // namespace dalembert::python
