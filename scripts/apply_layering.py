#!/usr/bin/env python3
"""Applies the framework's layering (issue 27 item 7) to a git work tree: `git mv` of every header
and source to its layer's folder, then the include paths (and the paths quoted in comments, READMEs
and framework/CMakeLists.txt) rewritten to match. Idempotent: a file already in place is left alone.

    scripts/apply_layering.py [ROOT] [--dry-run]

The layers, lowest first (scripts/check_layers.py enforces that includes only go down):
  math     framework/include/dalembert/math     pure numerics: Eigen and the standard library only
  core     framework/include/dalembert/core     models and interfaces, errors, parameters, JSON input
  schemes  framework/include/dalembert/schemes  discretisations of core models (Newton, Newmark,
                                                 Runge-Kutta compiled for a model, FixedLagrangianSystem)
  plugin   framework/include/dalembert/plugin   what a plugin file exports: ABI, descriptor, macros
  host     framework/internal/dalembert/host    loading plugins: registry, plugin files, probe, SHA-256
  study    framework/internal/dalembert/study   running studies: runner, output, claims, describe, check
  app      framework/app                        the dalembert CLI
framework/include is installed (the promise, plugin/abi.hpp); framework/internal is not. The code
that only the shipped plugins share is a header library beside them:
  plugins/common/include/dalembert_plugins (not installed; every bundled plugin may include it).
framework/src/<layer>/ holds the sources of each layer.

A header or source this map does not know (one added on another branch) is reported; a header
below framework/include/dalembert/study/ follows its folder (framework/internal/dalembert/study/), a
source in framework/src/ goes to framework/src/study/ (printed: check it is the right layer).
"""
import argparse
import pathlib
import re
import subprocess
import sys

PUB = "framework/include/dalembert"
INT = "framework/internal/dalembert"
COMMON = "plugins/common/include/dalembert_plugins"

# Headers that change folder (old include path -> new include path). A study header keeps its
# include path (only its root changes: framework/include -> framework/internal).
HEADER_MOVES = {
    "dalembert/math/newton.hpp": "dalembert/schemes/newton.hpp",
    "dalembert/math/newmark_residual.hpp": "dalembert/schemes/newmark_residual.hpp",
    "dalembert/math/newmark_step.hpp": "dalembert/schemes/newmark_step.hpp",
    "dalembert/core/compiled_schemes.hpp": "dalembert/schemes/compiled_schemes.hpp",
    "dalembert/core/fixed_lagrangian_system.hpp": "dalembert/schemes/fixed_lagrangian_system.hpp",
    "dalembert/study/json_input.hpp": "dalembert/core/json_input.hpp",
    "dalembert/core/sha256.hpp": "dalembert/host/sha256.hpp",
    "dalembert/plugin/registry.hpp": "dalembert/host/registry.hpp",
    "dalembert/plugin/plugin_index.hpp": "dalembert/host/plugin_index.hpp",
    "dalembert/plugin/plugin_file.hpp": "dalembert/host/plugin_file.hpp",
    "dalembert/plugin/probe.hpp": "dalembert/host/probe.hpp",
    "dalembert/plugin/describe.hpp": "dalembert/study/describe.hpp",
    "dalembert/math/discrete_mechanics.hpp": "dalembert_plugins/discrete_mechanics.hpp",
    "dalembert/math/exact_discrete.hpp": "dalembert_plugins/exact_discrete.hpp",
    "dalembert/math/impact_laws.hpp": "dalembert_plugins/impact_laws.hpp",
    "dalembert/math/rigid_potentials.hpp": "dalembert_plugins/rigid_potentials.hpp",
    "dalembert/math/rodrigues_maps.hpp": "dalembert_plugins/rodrigues_maps.hpp",
    "dalembert/plugin/rodrigues_map_plugin.hpp": "dalembert_plugins/rodrigues_map_plugin.hpp",
}

# framework/src/<name>.cpp -> framework/src/<layer>/<name>.cpp. A source lives in the layer of the
# highest header it includes.
SOURCE_LAYERS = {
    "core": ["errors", "parameters", "json_input", "json_parse", "constraint_frame", "lagrangian_system",
             "lie_group_model", "nonholonomic_field", "rigid_body_model", "sampler", "warn_once"],
    "plugin": ["interfaces", "needs"],
    "host": ["registry", "plugin_file", "plugin_index", "probe", "sha256"],
    "study": ["checkpoint", "claim_targets", "claims", "column_names", "convergence_fit", "crash_report",
              "csv_writer", "derivative_check", "describe", "ensemble_statistics", "execution_local",
              "execution_mpi", "figures", "file_output", "limits", "names", "npy_reader", "npy_writer",
              "process", "progress_meter", "provenance", "reduce", "report", "reported_names", "run_folder",
              "run_lock", "run_task", "runner", "simulation", "study", "study_plan", "assembly", "conformance",
              "conformance_integrator", "conformance_plugins", "figure_schema", "study_kind", "table_format"],
}
INTERNAL_LAYERS = ("host", "study")
# Private headers and folders of framework/src (not the include tree): their layer.
SOURCE_EXTRAS = {"conformance_support.hpp": "study", "study_kinds": "study"}
TEXT_SUFFIXES = {".cpp", ".hpp", ".h", ".txt", ".cmake", ".md", ".py", ".sh", ".in"}


def file_for(include):
    """The repository file of include path `include` after the layering."""
    if include.startswith("dalembert_plugins/"):
        return f"{COMMON}/{include.split('/', 1)[1]}"
    layer = include.split("/")[1]
    return f"{INT if layer in INTERNAL_LAYERS else PUB}/{include.split('/', 1)[1]}"


def old_file(include):
    return f"{PUB}/{include.split('/', 1)[1]}"


def git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def plan_moves(root):
    moves = []  # (old, new)
    for old_inc, new_inc in HEADER_MOVES.items():
        moves.append((old_file(old_inc), file_for(new_inc)))
    moved_from = {m[0] for m in moves}
    for path in sorted((root / PUB / "study").glob("*")) if (root / PUB / "study").is_dir() else []:
        rel = path.relative_to(root).as_posix()
        if rel not in moved_from:
            moves.append((rel, f"{INT}/study/{path.name}"))
    layer_of = {name: layer for layer, names in SOURCE_LAYERS.items() for name in names}
    for path in sorted((root / "framework/src").glob("*.cpp")):
        layer = layer_of.get(path.stem)
        if layer is None:
            layer = "study"
            print(f"apply_layering: {path.relative_to(root)} is not in the map: moved to framework/src/study/ "
                  "(check its includes: scripts/check_layers.py)")
        moves.append((path.relative_to(root).as_posix(), f"framework/src/{layer}/{path.name}"))
    for name, layer in SOURCE_EXTRAS.items():
        moves.append((f"framework/src/{name}", f"framework/src/{layer}/{name}"))
    return [(o, n) for o, n in moves if (root / o).exists() and not (root / n).exists()]


def rewrite_rules():
    """(regex, replacement) for every path that changes: the full include path, and the short
    'core/x.hpp' form used in comments and READMEs."""
    rules = []
    for old_inc, new_inc in HEADER_MOVES.items():
        rules.append((re.compile(r"(?<![\w/])" + re.escape(old_inc) + r"\b"), new_inc))
        old_short = old_inc.split("/", 1)[1]
        new_short = new_inc if new_inc.startswith("dalembert_plugins/") else new_inc.split("/", 1)[1]
        rules.append((re.compile(r"(?<![\w/])" + re.escape(old_short) + r"\b"), new_short))
        rules.append((re.compile(r"(?<![\w/])" + re.escape(old_file(old_inc)) + r"\b"), file_for(new_inc)))
    # Repository paths quoted in text: a study header's folder, a source's layer folder.
    rules.append((re.compile(r"(?<![\w/])" + re.escape(f"{PUB}/study/")), f"{INT}/study/"))
    for layer, names in SOURCE_LAYERS.items():
        for name in names:
            rules.append((re.compile(r"(?<![\w/])framework/src/" + name + r"\.cpp\b"), f"framework/src/{layer}/{name}.cpp"))
    for name, layer in SOURCE_EXTRAS.items():
        rules.append((re.compile(r"(?<![\w/])framework/src/" + re.escape(name) + r"\b"), f"framework/src/{layer}/{name}"))
    return rules


def rewrite_paths(text, rules, keep_migration_notes):
    """`text` with every moved path rewritten, except in README's "### Migration notes" (which
    names the old paths on purpose)."""
    head, notes, tail = text, "", ""
    if keep_migration_notes and "### Migration notes" in text:
        head, rest = text.split("### Migration notes", 1)
        cut = rest.find("\n### ")
        notes, tail = ("### Migration notes" + rest, "") if cut < 0 else ("### Migration notes" + rest[:cut], rest[cut:])
    parts = [head, tail]
    for i, part in enumerate(parts):
        for pattern, replacement in rules:
            part = pattern.sub(replacement, part)
        parts[i] = part
    return parts[0] + notes + parts[1]


def rewrite_sources_list(text, moves):
    for old, new in moves:
        if old.startswith("framework/src/"):
            old_rel, new_rel = old[len("framework/"):], new[len("framework/"):]
            text = re.sub(r"(?<![\w/])" + re.escape(old_rel) + r"\b", new_rel, text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", default=".")
    ap.add_argument("--dry-run", action="store_true", help="print the moves, change nothing")
    args = ap.parse_args()
    root = pathlib.Path(args.root).resolve()
    moves = plan_moves(root)
    for old, new in moves:
        print(f"{old} -> {new}")
    if args.dry_run:
        return 0
    for old, new in moves:
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        git(root, "mv", old, new)
    rules = rewrite_rules()
    src_moves = [(o, n) for o, n in moves if o.startswith("framework/src/")]
    for rel in git(root, "ls-files").splitlines():
        path = root / rel
        if path.suffix not in TEXT_SUFFIXES or not path.is_file() or rel == "scripts/apply_layering.py":
            continue
        text = path.read_text(encoding="utf-8")
        new = rewrite_paths(text, rules, keep_migration_notes=(rel == "README.md"))
        if rel == "framework/CMakeLists.txt":
            new = rewrite_sources_list(new, src_moves)
        if new != text:
            path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
