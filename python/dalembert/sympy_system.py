"""dalembert.system_from_sympy: a system plugin derived in SymPy, built, loaded and returned.

The expressions are read into an L-and-A model (sympy_model), written as C++ (sympy_codegen),
built once per source in the user's cache folder (plugin_build) and put on this process's plugin
search path — the registry of the module and, through DALEMBERT_PLUGIN_PATH, the studies that
dalembert.run starts and their subprocesses — so the system is found by name everywhere. The
command line finds it in <cache>/generated_plugins/plugins (README: "Systems from SymPy").
"""
import hashlib
import os
import pathlib
import re

from . import plugin_build, sympy_codegen, sympy_equations, sympy_model
from ._dalembert import Error, InputError, System, add_plugin_path, plugin_search_paths

_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
_on_path = {}  # plugin name -> the file this process put on its search path for it


class SympySystem(System):
    """A dalembert.System built from SymPy expressions, with its model and equations.

    model: the SymPy model (q, v, t, params, M, V, A, b, g, L); equations: M, V, grad_V, C, A, b,
    g, qddot, lambda and the right-hand side "force" as SymPy objects; latex(): the equations of
    motion (Jupyter shows them); plugin_file, source_file: the built plugin and its C++ source;
    built: whether this call compiled it (False: reused from the cache); build_seconds: how long.
    """

    def __init__(self, name, params, model, build):
        super().__init__(name, params)
        self.model = model
        self.plugin_file = build.file
        self.source_file = build.folder / f"{name}.cpp"
        self.built = build.built
        self.build_seconds = build.seconds

    @property
    def equations(self):
        return sympy_equations.equations(self.model)

    def latex(self):
        """M(q) q̈ = −∇V − C + Aᵀλ and A q̇ + b = 0 (and g = 0) as a LaTeX aligned block."""
        return sympy_equations.latex(self.model)

    def _repr_latex_(self):
        return "$$" + self.latex() + "$$"


def _taken(name, root):
    """A plugin file of that name on the search paths that this cache did not build, or None."""
    file_name = plugin_build.plugin_file_name("system", name)
    root = root.resolve()
    for path in map(pathlib.Path, plugin_search_paths()):
        file = path if path.name == file_name else path / file_name
        if file.is_file() and root not in file.resolve().parents:
            return file
    return None


def _plugin_name(name, model, summary, example, root):
    if name is None:  # named after its own source
        digest = hashlib.sha256(sympy_codegen.source(model, "sympy", summary, example).encode()).hexdigest()
        return f"sympy_{digest[:12]}"
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InputError(f"system_from_sympy: name = {name!r}: expected lower-case letters, digits and '_', "
                         "starting with a letter (at most 64)")
    if (other := _taken(name, root)) is not None:
        raise InputError(f"system_from_sympy: name = {name!r} is the name of the system plugin {other}: choose another")
    return name


def _put_on_path(name, file):
    """The plugin file first on this process's search paths (the module's registry, and
    DALEMBERT_PLUGIN_PATH for the studies dalembert.run starts), replacing the earlier build of that name."""
    file = str(file)
    if _on_path.get(name) == file:
        return
    add_plugin_path(file)
    earlier = _on_path.get(name)
    paths = [p for p in os.environ.get("DALEMBERT_PLUGIN_PATH", "").split(":") if p and p != earlier]
    os.environ["DALEMBERT_PLUGIN_PATH"] = ":".join([file] + paths)
    _on_path[name] = file


def system_from_sympy(q, L, A=None, *, v=None, t=None, b=None, g=None, constraints=None, params=None, name=None,
                      example=None, summary=None, drawing=None):
    """See dalembert.system_from_sympy."""
    from . import _dalembert as core
    try:
        model = sympy_model.read_model(q, L, A, v=v, t=t, b=b, g=g, constraints=constraints, params=params)
        summary = summary or (f"derived in SymPy: {len(model.q)} coordinates, {model.A.rows} constraints"
                              f" (L = {sympy_model.short(model.L)})")
        name = _plugin_name(name, model, summary, example, plugin_build.cache_root(core))
        source = sympy_codegen.source(model, name, summary, example, drawing)
    except sympy_model.ModelError as e:
        raise InputError(str(e)) from None
    try:
        build = plugin_build.build_plugin(core, "system", name, f"{name}.cpp", source)
    except plugin_build.BuildError as e:
        raise Error(f"system_from_sympy: {e}") from None
    _put_on_path(name, build.file)
    plugin_build.link_by_name(plugin_build.cache_root(core), build.file)
    return SympySystem(name, None, model, build)
