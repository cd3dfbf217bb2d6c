"""The C++ source of a plugin from a SymPy model (dalembert.sympy_model.Model), written into the
template sympy_model.cpp.in: an L-and-A model struct with functions generic in the scalar — the
framework differentiates them by forward-mode AD — and its FixedLagrangianSystem, layout, parameters
and example state, as the shipped systems are written (plugins/systems/chaplygin_sleigh).

The expressions are printed by SymPy's C++ printer with common subexpressions factored out
(sympy.cse) into `const S cse_k` temporaries, elementary functions called unqualified after
`using std::sin, ...` (so that the AD overloads are found by ADL), every number a double literal and
small integer powers as products. A constant M is written `mass(M)` (none at all for M = I), so the
framework's compiled schemes apply as they do to the shipped systems.
"""
import json
import math
import pathlib
import re
import string

import sympy
from sympy.printing.cxx import CXX17CodePrinter
from sympy.printing.precedence import PRECEDENCE

from .sympy_model import fail

TEMPLATE = pathlib.Path(__file__).with_name("sympy_model.cpp.in")

# C++ keywords and the names the generated functions use: a parameter named so is renamed param_<i>.
_RESERVED = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq q v t M A b g S std Eigen dof constraints holonomic d p""".split())


def _identifier(name, i):
    ok = name.isidentifier() and name.isascii() and name not in _RESERVED and not name.startswith(("cse_", "_"))
    return name if ok else f"param_{i}"


class _Printer(CXX17CodePrinter):
    """C++ for the AD scalar: unqualified functions, doubles, products for small powers."""
    _ns = ""

    def __init__(self, names):
        super().__init__()
        self._names = names

    def name(self, symbol, text):
        self._names[symbol] = text

    def _print_Symbol(self, s):
        return self._names[s]

    def _print_Integer(self, n):
        return f"{int(n)}.0"

    _print_Zero = _print_One = _print_NegativeOne = _print_Integer

    def _print_Rational(self, r):
        return f"{r.p}.0 / {r.q}.0"

    def _print_Float(self, x):
        return repr(float(x))

    def _print_Pi(self, _):
        return "std::numbers::pi"

    def _print_Exp1(self, _):
        return "std::numbers::e"

    def _print_Abs(self, e):
        return f"abs({self._print(e.args[0])})"

    def _print_Pow(self, e, rational=False):
        base, k = self.parenthesize(e.base, PRECEDENCE["Pow"]), e.exp
        if k.is_Integer and 0 < abs(k) <= 8:
            product = " * ".join([base] * abs(int(k)))
            return f"({product})" if k > 0 else f"(1.0 / ({product}))"
        if k == sympy.Rational(1, 2):
            return f"sqrt({self._print(e.base)})"
        if k == -sympy.Rational(1, 2):
            return f"(1.0 / sqrt({self._print(e.base)}))"
        return f"pow({self._print(e.base)}, {self._print(k)})"


def _functions_used(code):
    names = ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "log", "sqrt",
             "pow", "abs")
    return [f for f in names if re.search(rf"\b{f}\(", code)]


def _body(printer, outputs, indent="    "):
    """(temporaries, printed outputs) of a list of expressions, with common subexpressions out."""
    temps, reduced = sympy.cse(list(outputs), symbols=sympy.numbered_symbols("cse_"))
    lines = []
    for symbol, expr in temps:
        printer.name(symbol, str(symbol))
        lines.append(f"{indent}const S {symbol} = {printer.doprint(expr)};")
    return lines, [printer.doprint(x) for x in reduced]


def _function(printer, header, outputs, assign, scalar="scalar_t<decltype(q)>"):
    """A generic model function: `using std::...`, `using S`, temporaries, then `assign` (a format
    string with one {} per output)."""
    temps, printed = _body(printer, outputs)
    body = assign.format(*printed)
    used = _functions_used("\n".join(temps + [body]))
    lines = [f"  {header} {{"]
    if used:
        lines.append(f"    using {', '.join('std::' + f for f in used)};")
    if temps or "S(" in assign:
        lines.append(f"    using S = {scalar};")
    return "\n".join(lines + temps + [body, "  }"])


def _comma(name, outputs, cols):
    """`X << a, b,\n c, d;` row by row (the shipped models' form)."""
    rows = [", ".join("{}" for _ in range(cols))] * (len(outputs) // cols)
    return f"    {name} << " + ",\n        ".join(rows) + ";"


def _mass(printer, model):
    M, n = model.M, len(model.q)
    if M == sympy.eye(n):
        return []  # M = I: the framework's default
    entries = list(M)
    if not M.free_symbols & set(model.q):
        return [_function(printer, "void mass(auto&& M) const", entries, _comma("M", entries, n), "double")]
    return [_function(printer, "void mass(const auto& q, auto&& M) const", entries, _comma("M", entries, n))]


def _potential(printer, model):
    if model.V == 0:
        return ["  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }"]
    return [_function(printer, "auto potential(const auto& q) const -> scalar_t<decltype(q)>", [model.V],
                      "    return S({});")]


def _vector(printer, header, name, column):
    entries = list(column)
    assign = "\n".join(f"    {name}[{i}] = {{}};" for i in range(len(entries)))
    return _function(printer, header, entries, assign)


def _constraints(printer, model):
    out = []
    if model.A.rows:
        entries = list(model.A)
        out.append(_function(printer, "void constraint_matrix(const auto& q, auto&& A) const", entries,
                             _comma("A", entries, len(model.q))))
    if model.b is not None:
        out.append(_vector(printer, "void affine_constraint(const auto& t, const auto& q, auto&& b) const", "b",
                           model.b))
    if model.g is not None:
        out.append(_vector(printer, "void holonomic_constraint(const auto& q, auto&& g) const", "g", model.g))
    return out


def _coordinates_of(exprs, q):
    """The indices of the coordinates some expression depends on, if a proper nonempty subset."""
    used = set().union(*(sympy.sympify(e).free_symbols for e in exprs)) if exprs else set()
    idx = [i for i, x in enumerate(q) if x in used]
    return idx if 0 < len(idx) < len(q) else None


def _coordinate_list(name, idx):
    return f"  static constexpr std::array<int, {len(idx)}> {name}{{{', '.join(map(str, idx))}}};" if idx else None


def _declarations(model):
    """holonomic = k, and the coordinates M(q) and V, g depend on where that is some of them."""
    g = list(model.g) if model.g is not None else []
    return "\n".join(filter(None, [
        f"  static constexpr int holonomic = {len(g)};" if g else None,
        _coordinate_list("mass_coordinates", _coordinates_of(list(model.M), model.q)),
        _coordinate_list("potential_coordinates", _coordinates_of([model.V] + g, model.q))]))


def _cxx_string(text):
    return json.dumps(text, ensure_ascii=True)


def _number(x):
    """A double literal; the infinities as std::numeric_limits."""
    if math.isinf(x):
        return ("-" if x < 0 else "") + "std::numeric_limits<double>::infinity()"
    return repr(float(x))


def _numbers(what, xs, n):
    xs = [float(x) for x in xs]
    if len(xs) != n or not all(math.isfinite(x) for x in xs):
        fail(f"example: {what} = {xs!r}: expected {n} finite numbers")
    return ", ".join(map(repr, xs))


def _examples(example, n):
    """system_example(...) of (q, v[, h]), or nothing."""
    if example is None:
        return ""
    q, v, h = (list(example) + [0.05])[:3]
    return f'system_example("", {{{_numbers("q", q, n)}}}, {{{_numbers("v", v, n)}}}, {_numbers("h", [h], 1)})'


def _drawing(drawing, q_names):
    """The Drawable parts of the template: (include, base, method), empty without a drawing. The spec
    (core/drawable.hpp) is embedded as a JSON string and must read only the layout's q names."""
    if drawing is None:
        return "", "", ""
    try:
        text = json.dumps(drawing, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as e:
        fail(f"drawing: not a JSON object of core/drawable.hpp's form ({e})")
    if not isinstance(drawing, dict) or "frames" not in drawing:
        fail(f"drawing = {text[:80]}...: expected a dict with 'frames' (core/drawable.hpp)")
    method = (f"  nlohmann::json drawing() const override {{ return nlohmann::json::parse({_cxx_string(text)}); }}\n")
    return "#include <dalembert/core/drawable.hpp>\n", ", public Drawable", method


def source(model, name, summary, example=None, drawing=None):
    """The plugin's C++ source (a str); `drawing` (a dict, optional) makes the system Drawable."""
    members = [_identifier(p.name, i) for i, p in enumerate(model.params)]
    names = {x: f"q[{i}]" for i, x in enumerate(model.q)}
    names.update({p.symbol: m for p, m in zip(model.params, members)})
    names[model.t] = "t"
    printer = _Printer(names)
    functions = _mass(printer, model) + _potential(printer, model) + _constraints(printer, model)
    specs = ", ".join(f"{{{_cxx_string(p.name)}, ParamType::Number, {p.default!r}, {_cxx_string(p.doc)}, "
                      f"{_number(p.least)}, {_number(p.most)}}}" for p in model.params)
    return string.Template(TEMPLATE.read_text()).substitute(
        lagrangian=" ".join(str(model.L).split()), dof=len(model.q), constraints=model.A.rows,
        model="\n".join(filter(None, [_declarations(model), f"  double {', '.join(members)};" if members else ""]
                               + functions)), q_names=", ".join(map(_cxx_string, model.q_names)),
        v_names=", ".join(map(_cxx_string, model.v_names)), name=_cxx_string(name), summary=_cxx_string(summary),
        param_specs=specs, param_values=", ".join(f'p.number({_cxx_string(p.name)})' for p in model.params),
        examples=_examples(example, len(model.q)),
        **dict(zip(("drawing_include", "drawing_base", "drawing_method"), _drawing(drawing, model.q_names))))
