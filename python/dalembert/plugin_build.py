"""Builds a plugin from generated C++ source with dalembert's CMake package, once per source.

The built plugin lives in <root>/<key>/ (root: <user cache folder>/generated_plugins, the folder the
framework keeps its caches in: $DALEMBERT_CACHE_DIR, else $XDG_CACHE_HOME/dalembert, else
~/.cache/dalembert; a temporary folder per process when DALEMBERT_CACHE_DIR=off), key the SHA-256 of
the source, its CMakeLists.txt and dalembert's version, source revision and plugin ABI. The folder
holds the plugin file, its source, CMakeLists.txt and build.log; a second request for the same key
reuses it without building.

A build runs in a temporary folder of its own under <root> (cmake configures, then builds, each
started with an argument list, never a shell) and is published by one rename(2) of its complete
output folder to <root>/<key>: a reader sees the whole folder or none, and two processes building the
same key at once each build in their own folder, the first rename wins and the other uses it. A failed
build keeps its source and log in <root>/<key>.failed/ and raises BuildError quoting the first
compiler errors. <root>/plugins/ holds, per plugin name, a hard link to the last plugin built or
reused under that name: the folder to put on DALEMBERT_PLUGIN_PATH for the command line.
Nothing is deleted or replaced here but what this code made.
"""
import dataclasses
import errno
import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import warnings

CMAKE_LISTS = """cmake_minimum_required(VERSION 3.25)
project(dalembert_generated_plugin LANGUAGES CXX)
find_package(dalembert REQUIRED)
dalembert_add_plugin({name} {kind} {source} NO_INSTALL)
"""
MARKER = ".dalembert_generated_plugin"  # in every folder this code makes under <root>
_temporary_root = None


class BuildError(RuntimeError):
    """A plugin that could not be built (the message quotes the first compiler errors)."""


@dataclasses.dataclass(frozen=True)
class Built:
    file: pathlib.Path     # the plugin, <root>/<key>/dalembert_<kind>_<name>.so
    folder: pathlib.Path   # <root>/<key>: its source, CMakeLists.txt, build.log
    built: bool            # False: an earlier build was reused
    seconds: float         # the time cmake took (0 when reused)


def cache_root(core):
    """<user cache folder>/generated_plugins, or a temporary folder of this process if caching is off."""
    global _temporary_root
    folder = core.user_cache_folder()
    if folder is not None:
        return pathlib.Path(folder) / "generated_plugins"
    if _temporary_root is None:
        _temporary_root = pathlib.Path(tempfile.mkdtemp(prefix="dalembert-generated-plugins-"))
    return _temporary_root


def plugin_file_name(kind, name):
    return f"dalembert_{kind}_{name}.so"


def cache_key(core, project):
    """SHA-256 of the project's files and of the framework it is built for."""
    h = hashlib.sha256()
    for name, text in sorted(project.items()):
        h.update(f"{name}\0{len(text)}\0{text}\0".encode())
    h.update(f"dalembert {core.version} {core.revision} abi {core.abi_version}".encode())
    return h.hexdigest()


def _run(args, log):
    """Runs one command (an argument list), appending its output to `log`; its exit status."""
    with open(log, "a") as out:
        out.write("$ " + " ".join(args) + "\n")
        out.flush()
        return subprocess.run(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode


def _first_errors(log, lines=8):
    text = pathlib.Path(log).read_text(errors="replace").splitlines()
    first = next((i for i, line in enumerate(text) if "error" in line.lower() and not line.startswith("$ ")), None)
    shown = text[first:first + lines] if first is not None else text[-lines:]
    return "\n".join("  " + line for line in shown)


def _make_folder(path):
    path.mkdir()
    (path / MARKER).write_text("made by dalembert (python/dalembert/plugin_build.py)\n")


def _keep_failure(root, key, out):
    """Moves the failed build's output (source, log) to <root>/<key>.failed, replacing only our own."""
    failed = root / f"{key}.failed"
    if failed.exists() and (failed / MARKER).is_file():
        shutil.rmtree(failed)
    if failed.exists():  # someone else's folder of that name: left alone
        failed = pathlib.Path(tempfile.mkdtemp(prefix=f"{key}.failed-", dir=root)) / "build"
    os.rename(out, failed)
    return failed


def _compile(core, root, key, tmp, project, file_name):
    """Configures and builds the project in tmp; the output folder (plugin, sources, log)."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BuildError("cmake is not on PATH: building a plugin needs CMake (and a C++20 compiler)")
    out = tmp / "out"
    _make_folder(out)
    for name, text in project.items():
        (tmp / name).write_text(text)
        (out / name).write_text(text)
    log = out / "build.log"
    package = core.cmake_package_dir()
    if not (pathlib.Path(package) / "dalembertConfig.cmake").is_file():
        raise BuildError(f"no dalembert CMake package at {package} (the dalembertConfig.cmake of this libdalembert: "
                         "rebuild or reinstall dalembert)")
    ok = _run([cmake, "-S", str(tmp), "-B", str(tmp / "build"), f"-Ddalembert_DIR={package}",
               "-DCMAKE_BUILD_TYPE=Release", f"-DDALEMBERT_PLUGIN_OUTPUT_DIRECTORY={out}"], log) == 0
    ok = ok and _run([cmake, "--build", str(tmp / "build")], log) == 0
    if not ok or not (out / file_name).is_file():
        kept = _keep_failure(root, key, out)
        source = next(n for n in project if n != "CMakeLists.txt")
        raise BuildError(f"the generated plugin did not build (source {kept / source}, log {kept / 'build.log'}):\n"
                         + _first_errors(kept / "build.log"))
    return out


def _publish(out, final):
    """Renames the complete output folder to its key; False if another process published it first."""
    try:
        os.rename(out, final)
        return True
    except OSError as e:
        if e.errno in (errno.EEXIST, errno.ENOTEMPTY):
            return False
        raise


def link_by_name(root, file):
    """<root>/plugins/<file name>: a hard link (else a copy) to `file`, replaced atomically; a file
    there that is not one of this cache's builds is left alone (a warning)."""
    plugins = root / "plugins"
    plugins.mkdir(exist_ok=True)
    target = plugins / file.name
    if target.exists() and not any(p.parent != plugins and p.samefile(target) for p in root.glob(f"*/{file.name}")):
        warnings.warn(f"{target} is not a plugin this cache built: left as it is", RuntimeWarning, stacklevel=3)
        return None
    if target.exists() and target.samefile(file):
        return target
    tmp = plugins / f".{file.name}.{os.getpid()}.tmp"
    try:
        os.link(file, tmp)
    except OSError:
        shutil.copy2(file, tmp)
    os.replace(tmp, target)
    if os.path.lexists(tmp):  # rename(2) of two links to one file does nothing: another process linked it
        os.unlink(tmp)
    return target


def build_plugin(core, kind, name, source_name, source):
    """The plugin `name` of `kind` built from `source` (the text of file `source_name`): a Built,
    from the cache when this source was built before. BuildError when it does not build."""
    project = {"CMakeLists.txt": CMAKE_LISTS.format(name=name, kind=kind, source=source_name), source_name: source}
    root = cache_root(core)
    root.mkdir(parents=True, exist_ok=True)
    key = cache_key(core, project)
    final, file_name = root / key, plugin_file_name(kind, name)
    if (final / file_name).is_file():
        return Built(final / file_name, final, False, 0.0)
    if final.exists():
        raise BuildError(f"{final} exists but holds no {file_name}: not a build of this cache (move it away)")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".build-{key[:16]}-", dir=root))
    try:
        start = time.perf_counter()
        out = _compile(core, root, key, tmp, project, file_name)
        seconds = time.perf_counter() - start
        built = _publish(out, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Built(final / file_name, final, built, seconds if built else 0.0)
