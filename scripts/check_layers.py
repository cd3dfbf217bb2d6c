#!/usr/bin/env python3
"""Checks the framework's layering (issue 27 item 7): every #include of a framework header or
source, a shipped plugin and the plugins' shared headers goes to its own layer or a layer below, no
installed header includes a header that is not installed, and no file-level include cycle exists.

    scripts/check_layers.py [ROOT]

Prints one line per finding, "FILE: includes <HEADER> (layer A above layer B)", and exits 1 if
there is any. The layers, lowest first (scripts/apply_layering.py says what each holds):
math < core < schemes < plugin < host < study < app; framework/include/dalembert/{math,core,
schemes,plugin} is installed, framework/internal/dalembert/{host,study} is not. The shipped plugins
(plugins/<kind>/<name>/) and their shared headers (plugins/common, <dalembert_plugins/...>) may
include the installed layers and plugins/common only: what an out-of-tree plugin could include, plus
the shipped families' code.
"""
import pathlib
import re
import sys

LAYERS = ["math", "core", "schemes", "plugin", "host", "study", "app"]
RANK = {name: i for i, name in enumerate(LAYERS)}
PUBLIC = {"math", "core", "schemes", "plugin"}
# Pseudo-layers of the shipped plugins: allowed to include what they may, nothing else.
PLUGIN_SIDE = {"plugins_common": PUBLIC | {"plugins_common"}, "plugins": PUBLIC | {"plugins_common"}}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]((?:dalembert|dalembert_plugins)/[^>"]+)[>"]', re.M)
SUFFIXES = {".hpp", ".cpp", ".h"}


def header_file(root, include):
    """The repository file an include path names, or None."""
    if include.startswith("dalembert_plugins/"):
        candidates = [root / "plugins/common/include" / include]
    else:
        candidates = [root / "framework/include" / include, root / "framework/internal" / include]
    return next((c for c in candidates if c.is_file()), None)


def include_layer(include):
    if include.startswith("dalembert_plugins/"):
        return "plugins_common"
    parts = include.split("/")
    return parts[1] if len(parts) > 2 else None


def file_layer(root, path):
    """The layer a file's folder says, or None for a file outside the checked tree."""
    rel = path.relative_to(root).parts
    if rel[:2] in (("framework", "include"), ("framework", "internal")) and len(rel) > 4 and rel[2] == "dalembert":
        return rel[3]
    if rel[:2] == ("framework", "src") and len(rel) > 3:
        return rel[2]
    if rel[:2] == ("framework", "app"):
        return "app"
    if rel[:2] == ("plugins", "common"):
        return "plugins_common"
    if rel[0] == "plugins":
        return "plugins"
    return None


def checked_files(root):
    for top in ("framework", "plugins"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                yield path


def placement_findings(root, path, layer):
    """A file whose folder is no layer, or a public/internal header in the other root."""
    rel = path.relative_to(root).as_posix()
    if layer is None:
        return [f"{rel}: not in a layer's folder (framework/{{include,internal}}/dalembert/<layer>/, "
                f"framework/src/<layer>/, framework/app/, plugins/)"]
    if layer not in RANK and layer not in PLUGIN_SIDE:
        return [f"{rel}: folder '{layer}' is no layer ({' < '.join(LAYERS)})"]
    if rel.startswith("framework/include/") and layer not in PUBLIC:
        return [f"{rel}: layer {layer} is internal: its headers belong in framework/internal/"]
    if rel.startswith("framework/internal/") and layer in PUBLIC:
        return [f"{rel}: layer {layer} is installed: its headers belong in framework/include/"]
    return []


def include_findings(root, path, layer, include):
    rel = path.relative_to(root).as_posix()
    target = include_layer(include)
    if header_file(root, include) is None:
        return [f"{rel}: includes <{include}>, which is no header of the framework or plugins/common"]
    if layer in PLUGIN_SIDE:
        if target not in PLUGIN_SIDE[layer]:
            return [f"{rel}: includes <{include}> (layer {target}): a plugin includes only the installed "
                    f"layers ({', '.join(sorted(PUBLIC))}) and plugins/common"]
        return []
    if target == "plugins_common":
        return [f"{rel}: includes <{include}>: the framework does not include the shipped plugins' code"]
    if RANK[target] > RANK[layer]:
        return [f"{rel}: includes <{include}> (layer {target} above layer {layer})"]
    if rel.startswith("framework/include/") and target not in PUBLIC:
        return [f"{rel}: includes <{include}>, which is not installed (layer {target})"]
    return []


def cycles(graph):
    """Every include cycle among the files of `graph` (file -> included files), each once."""
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def check(root):
    findings, graph = [], {}
    for path in checked_files(root):
        layer = file_layer(root, path)
        placed = placement_findings(root, path, layer)
        findings += placed
        includes = INCLUDE.findall(path.read_text(encoding="utf-8", errors="replace"))
        rel = path.relative_to(root).as_posix()
        graph[rel] = [header_file(root, i).relative_to(root).as_posix() for i in includes if header_file(root, i)]
        if not placed:
            for include in includes:
                findings += include_findings(root, path, layer, include)
    for cycle in cycles(graph):
        findings.append(f"{cycle[0]}: include cycle: {' -> '.join(cycle)}")
    return findings


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    findings = check(root.resolve())
    for line in findings:
        print(line)
    if findings:
        print(f"check_layers: {len(findings)} finding(s); the layers, lowest first: {' < '.join(LAYERS)}")
        return 1
    print(f"check_layers: every include goes down ({' < '.join(LAYERS)}), no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
