"""The equations of motion of a SymPy model (dalembert.sympy_model.Model), symbolic and as LaTeX:

    M(q) q̈ = −∇V(q) − C(q, q̇) + A(q)ᵀλ (+ (∂g/∂q)ᵀμ),   A(q) q̇ + b(t, q) = 0,   g(q) = 0,

with the Coriolis and centrifugal terms C_i = Σ_jk (∂M_ij/∂q_k − ½ ∂M_jk/∂q_i) q̇_j q̇_k — the
equations the framework integrates (core/nonholonomic_field.hpp), which it derives by AD from the
same M, V, A, b and g.
"""
import sympy


def coriolis(M, q, v):
    """C(q, v) = Ṁv − ½ ∂_q(vᵀMv), a column."""
    n = len(q)
    return sympy.Matrix([sum((sympy.diff(M[i, j], q[k]) - sympy.diff(M[j, k], q[i]) / 2) * v[j] * v[k]
                             for j in range(n) for k in range(n)) for i in range(n)])


def equations(model):
    """The symbolic parts of the equations: a dict of SymPy objects."""
    n, r = len(model.q), model.A.rows
    k = 0 if model.g is None else model.g.rows
    acc = sympy.Matrix([sympy.Symbol(f"{name}ddot") for name in model.q_names])
    lam = sympy.Matrix(sympy.symbols(f"lambda_1:{r + 1}")) if r else sympy.zeros(0, 1)
    mu = sympy.Matrix(sympy.symbols(f"mu_1:{k + 1}")) if k else sympy.zeros(0, 1)
    grad_V = sympy.Matrix([sympy.diff(model.V, x) for x in model.q])
    C = coriolis(model.M, model.q, model.v)
    force = -grad_V - C + model.A.T * lam
    if k:
        force += model.g.jacobian(model.q).T * mu
    return {"M": model.M, "V": model.V, "grad_V": grad_V, "C": C, "A": model.A,
            "b": model.b if model.b is not None else sympy.zeros(r, 1), "g": model.g, "qddot": acc,
            "lambda": lam, "mu": mu, "force": force.applyfunc(sympy.simplify) if n <= 6 else force}


def latex(model):
    """The equations as one LaTeX `aligned` block (no math delimiters)."""
    e = equations(model)
    v = sympy.Matrix(model.v)
    lines = [rf"{sympy.latex(e['M'])} {sympy.latex(e['qddot'])} &= {sympy.latex(e['force'])}"]
    if model.A.rows:
        affine = "" if model.b is None else rf" + {sympy.latex(model.b)}"
        lines.append(rf"{sympy.latex(model.A)} {sympy.latex(v)}{affine} &= 0")
    if model.g is not None:
        lines.append(rf"{sympy.latex(model.g)} &= 0")
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"
