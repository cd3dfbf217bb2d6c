// The contact-point path (seed 004, Figs. 1–4 as read by spec 004 §4 and §6.1): the (x, y) of the
// contact point, as columns contact_x, contact_y (the names the ensemble statistics and the path
// figures use) and its distance from the origin contact_r. The components are taken from q by
// name (params "x", "y"). Summary: the largest contact_r over every step.
#include <cmath>
#include <dalembert/math/running_max.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class ContactPath final : public Observer {
 public:
  ContactPath(std::string x, std::string y) : xname_(std::move(x)), yname_(std::move(y)) {}
  void bind(const System& s, const Integrator&) override {
    const Layout l = s.layout();
    ix_ = index(l, xname_, s);
    iy_ = index(l, yname_, s);
  }
  void columns(std::vector<std::string>& c) const override { c = {"contact_x", "contact_y", "contact_r"}; }
  void start(const State& s) override { max_r_ = std::hypot(s.q[ix_], s.q[iy_]); }
  void step(const State& s, const StepValues&) override { running_max(max_r_, std::hypot(s.q[ix_], s.q[iy_])); }
  void observe(const State& s, const StepValues&, double* out) override {
    out[0] = s.q[ix_];
    out[1] = s.q[iy_];
    out[2] = std::hypot(out[0], out[1]);
  }
  void summary(std::vector<std::pair<std::string, double>>& out) const override {
    out.emplace_back("max_contact_r", max_r_);
  }

 private:
  static Eigen::Index index(const Layout& l, const std::string& name, const System& s) {
    for (std::size_t i = 0; i < l.q.size(); ++i)
      if (l.q[i] == name) return static_cast<Eigen::Index>(i);
    throw Error("observer 'contact_path': system '" + s.name() + "' has no configuration component '" + name + "'");
  }
  std::string xname_, yname_;
  Eigen::Index ix_ = 0, iy_ = 1;
  double max_r_ = 0.0;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "contact_path";
  d.kind = PluginKind::Observer;
  d.version = "1.0.0";
  d.summary = "Contact-point path: columns contact_x, contact_y, contact_r from the named components of q";
  d.seed = "004 (Clark & Bloch, Figs. 1-5)";
  d.params = {{"x", ParamType::String, "x", "name of the q component holding the contact point's x"},
              {"y", ParamType::String, "y", "name of the q component holding the contact point's y"}};
  d.make_observer = [](const Parameters& p) { return std::make_unique<ContactPath>(p.string("x"), p.string("y")); };
  d.needs = fixed_needs({});
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
