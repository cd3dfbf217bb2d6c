"""An L-and-A model read from SymPy expressions (dalembert.system_from_sympy): L = ½vᵀM(q)v − V(q),
the constraints A(q)v + b(t, q) = 0 and optionally g(q) = 0, with named numeric parameters.

Everything here is symbolic (SymPy only): the coordinates and velocities become plain symbols named
after the coordinates, M is ∂²L/∂v∂v (L is checked to be exactly quadratic in v, V = −L at v = 0),
and every expression is checked to use only the coordinates, the velocities where allowed, the
parameters and (in b only) the time. Each refusal is one line naming the offending term or symbol.
The C++ source is written from this model by dalembert.sympy_codegen.
"""
import dataclasses
import numbers

import sympy
from sympy.core.function import AppliedUndef

WHO = "system_from_sympy"

# The elementary functions the framework's forward-mode AD differentiates (Eigen's AutoDiffScalar).
DIFFERENTIABLE = (sympy.sin, sympy.cos, sympy.tan, sympy.asin, sympy.acos, sympy.atan, sympy.atan2, sympy.sinh,
                  sympy.cosh, sympy.tanh, sympy.exp, sympy.log, sympy.Abs)


class ModelError(ValueError):
    """A SymPy input that is not an L-and-A model (one line naming the offending term)."""


@dataclasses.dataclass(frozen=True)
class Parameter:
    """A numeric parameter of the model: its symbol, default, description and range."""
    name: str
    symbol: sympy.Symbol
    default: float
    doc: str
    least: float = -float("inf")
    most: float = float("inf")


@dataclasses.dataclass(frozen=True)
class Model:
    """L = ½vᵀM(q)v − V(q), A(q)v + b(t, q) = 0 (b None: 0), g(q) = 0 (None: none), in plain symbols."""
    L: sympy.Expr
    q: tuple
    v: tuple
    t: sympy.Symbol
    params: tuple
    M: sympy.Matrix
    V: sympy.Expr
    A: sympy.Matrix
    b: object = None
    g: object = None

    @property
    def q_names(self):
        return [str(s) for s in self.q]

    @property
    def v_names(self):
        return [str(s) for s in self.v]


def fail(message):
    raise ModelError(f"{WHO}: {message}")


def short(expr):
    text = str(expr)
    return text if len(text) <= 80 else text[:77] + "..."


def _coordinates(q, v, t):
    """(plain q symbols, plain v symbols, replacements of q(t) and q'(t) by them)."""
    q = list(q)
    if not q:
        fail("q is empty: give the coordinates")
    if all(isinstance(x, AppliedUndef) for x in q):
        if v is not None:
            fail("v is given but q are functions of time (dynamicsymbols): their velocities are q'(t)")
        if any(x.args != (t,) for x in q):
            fail(f"the coordinates {q} are not functions of the time {t} alone")
        qs = [sympy.Symbol(x.func.__name__) for x in q]
        vs = [sympy.Symbol(x.func.__name__ + "dot") for x in q]
        swap = {sympy.Derivative(x, t): w for x, w in zip(q, vs)}
        swap.update(zip(q, qs))
        return qs, vs, swap
    if not all(isinstance(x, sympy.Symbol) for x in q):
        fail(f"q = {q}: give symbols (with v=) or dynamicsymbols (functions of t)")
    if v is None or len(list(v)) != len(q) or not all(isinstance(x, sympy.Symbol) for x in v):
        fail(f"q are plain symbols: give their velocities as v= ({len(q)} symbols)")
    return q, list(v), {}


def _parameters(params):
    """Parameters from {symbol or name: default | (default, doc[, min[, max]])}."""
    out = []
    for key, spec in (params or {}).items():
        symbol = sympy.Symbol(key) if isinstance(key, str) else key
        if not isinstance(symbol, sympy.Symbol):
            fail(f"params: key {key!r} is not a symbol or a name")
        spec = spec if isinstance(spec, tuple) else (spec,)
        if not 1 <= len(spec) <= 4:
            fail(f"params[{symbol}] = {spec!r}: expected default or (default, doc[, min[, max]])")
        default, doc, least, most = (spec + (None, -float("inf"), float("inf"))[len(spec) - 1:])[:4]
        for what, x in (("default", default), ("min", least), ("max", most)):
            if isinstance(x, bool) or not isinstance(x, numbers.Real):
                fail(f"params[{symbol}]: {what} = {x!r} is not a number")
        if not least <= default <= most:
            fail(f"params[{symbol}]: default {default} is outside [{least}, {most}]")
        out.append(Parameter(str(symbol), symbol, float(default), doc or f"parameter {symbol} of the SymPy model",
                             float(least), float(most)))
    return out


def _check_names(qs, vs, params, t):
    names = [str(s) for s in qs] + [str(s) for s in vs] + [p.name for p in params] + [str(t)]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        fail(f"the name {twice[0]!r} is used twice (coordinates, velocities, parameters and time need distinct names)")


def _check_terms(what, expr, allowed):
    """Only allowed symbols and differentiable functions in expr."""
    for f in sorted(expr.atoms(AppliedUndef, sympy.Derivative), key=str):
        fail(f"{what} contains {short(f)}, which is not a coordinate, a velocity or a parameter")
    for f in sorted(expr.atoms(sympy.Function), key=str):
        if not isinstance(f, DIFFERENTIABLE):
            fail(f"{what} contains {short(f)}: {f.func.__name__} is not among the functions the framework's "
                 f"automatic differentiation knows ({', '.join(sorted(g.__name__ for g in DIFFERENTIABLE))})")
    unknown = sorted(expr.free_symbols - set(allowed), key=str)
    if unknown:
        fail(f"{what} contains the unknown symbol {unknown[0]} (not a coordinate, a velocity or a parameter: "
             "declare it in params=)")


def _rows(what, value, plain, n):
    """A matrix with n columns from a Matrix, a list of rows or one flat row."""
    rows = value.tolist() if isinstance(value, sympy.MatrixBase) else list(value)
    if rows and not isinstance(rows[0], (list, tuple, sympy.MatrixBase)):
        rows = [rows]
    rows = [list(r) for r in rows]
    if any(len(r) != n for r in rows):
        fail(f"{what} has a row of {min(len(r) for r in rows) if rows else 0} entries; the model has {n} coordinates")
    return sympy.Matrix([[plain(x) for x in r] for r in rows]) if rows else sympy.zeros(0, n)


def _column(what, value, plain, rows=None):
    """A column from a Matrix or a list of expressions, of `rows` entries if given."""
    m = sympy.Matrix([plain(x) for x in value])
    if rows is not None and m.rows != rows:
        fail(f"{what} has {m.rows} entries; A has {rows} rows")
    return m


def _quadratic_part(L, vs):
    """M = ∂²L/∂v∂v and V = −L|v=0, after checking every term of L is of degree 0 or 2 in v."""
    for term in sympy.Add.make_args(sympy.expand(L)):
        if not term.has(*vs):
            continue
        poly = term.as_poly(*vs)
        if poly is None or poly.total_degree() != 2:
            degree = "" if poly is None else f" (degree {poly.total_degree()} in the velocities)"
            fail(f"L is not ½ vᵀM(q)v − V(q): its term {short(term)} is not quadratic in the velocities{degree}")
    zero = dict.fromkeys(vs, 0)
    M = sympy.hessian(L, vs)
    return M, -L.subs(zero)


def _constraint_rows(constraints, vs):
    """A and b read off expressions A(q)v + b(t, q), each checked to be affine in v."""
    rows, affine = [], []
    zero = dict.fromkeys(vs, 0)
    for i, e in enumerate(constraints):
        e = sympy.sympify(e)
        row = [sympy.diff(e, w) for w in vs]
        if any(x.has(*vs) for x in row):
            fail(f"constraints[{i}] = {short(e)} is not affine in the velocities")
        rows.append(row)
        affine.append(e.subs(zero))
    return sympy.Matrix(rows) if rows else sympy.zeros(0, len(vs)), sympy.Matrix(affine)


def read_model(q, L, A=None, *, v=None, t=None, b=None, g=None, constraints=None, params=None):
    """The Model of dalembert.system_from_sympy (see there); ModelError on bad input."""
    t = sympy.Symbol("t") if t is None else t
    qs, vs, swap = _coordinates(q, v, t)
    n = len(qs)
    parameters = _parameters(params)
    _check_names(qs, vs, parameters, t)

    def plain(x):  # q(t), q'(t) -> the plain symbols
        return sympy.sympify(x).xreplace(swap)

    L = plain(L)
    p = [x.symbol for x in parameters]
    _check_terms("L", L, qs + vs + p)
    M, V = _quadratic_part(L, vs)
    if constraints is not None:
        if A is not None or b is not None:
            fail("give the constraints either as A= (and b=) or as constraints=, not both")
        A, b = _constraint_rows([plain(e) for e in constraints], vs)
    else:
        A = _rows("A", [] if A is None else A, plain, n)
    _check_terms("A", A, qs + p)
    if b is not None:
        b = _column("b", b, plain, A.rows)
        _check_terms("b", b, qs + p + [t])
        b = None if all(x == 0 for x in b) else b
    if g is not None:
        g = _column("g", g, plain)
        _check_terms("g", g, qs + p)
        g = g if g.rows else None
    if not A.rows and g is None:
        fail("the model has no constraints (A, constraints= and g all empty): the framework's fixed-size "
             "schemes need at least one (a FixedLagrangianSystem with none does not compile yet)")
    return Model(L, tuple(qs), tuple(vs), t, tuple(parameters), M, V, A, b, g)
