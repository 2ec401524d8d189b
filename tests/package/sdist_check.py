"""The Python sdist is complete: what `pip install cloudroute-V.tar.gz` reads is in it.

Unpacks the tarball in a fresh directory outside the checkout, configures its
CMake project with the settings pyproject.toml gives scikit-build-core (build
type and cmake.define entries; Python and pybind11 from the running
interpreter, as a build with .venv's backend finds them), then runs every
translation unit of the library and of the extension through the
preprocessor with its own compile command: a source or header missing from
the tarball fails here, and none may be read from the checkout.

That costs seconds where compiling costs minutes: the wheels that
scripts/package.sh builds link the package trees' libcloudroute.a (the same
sources and flags, compiled once per architecture), so the test command no
longer compiles the library from the sdist. --build compiles and links the
unpacked project too (what pip does, without the packaging; about 3 minutes
of CPU): tests/package/python_test.sh runs the quick check, docs/testing.md
names the full one.

    python tests/package/sdist_check.py SDIST [--build]
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def configure_args(project: Path, build: Path) -> list:
    """CMake's command line as scikit-build-core would make it from pyproject.toml."""
    skb = tomllib.loads((project / "pyproject.toml").read_text())["tool"]["scikit-build"]
    import pybind11  # the build requirement, from the interpreter that runs this

    args = ["cmake", "-S", str(project), "-B", str(build), "-G", "Ninja",
            f"-DCMAKE_BUILD_TYPE={skb['cmake']['build-type']}",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-Dpybind11_DIR={pybind11.get_cmake_dir()}"]
    args += [f"-D{k}={v}" for k, v in skb["cmake"].get("define", {}).items()]
    return args


def dependencies(entry: dict) -> list:
    """The files one translation unit reads: its compile command with -M in place of -c -o."""
    argv = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD"):
            out.append(a)
    run = subprocess.run(out + ["-M"], cwd=entry["directory"], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"sdist_check: {entry['file']} does not preprocess from the sdist alone:\n"
                         f"{run.stderr.strip()}")
    text = run.stdout.replace("\\\n", " ")
    return text.split(":", 1)[1].split()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sdist", type=Path)
    ap.add_argument("--build", action="store_true", help="compile and link the unpacked project too")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cr-sdist-check.") as tmp:
        work = Path(tmp)
        with tarfile.open(opts.sdist) as tar:
            tar.extractall(work / "src", filter="data")
        (project,) = (work / "src").iterdir()
        build = work / "build"
        cfg = subprocess.run(configure_args(project, build), capture_output=True, text=True)
        if cfg.returncode != 0:
            print(cfg.stdout[-4000:], cfg.stderr[-4000:], sep="\n", file=sys.stderr)
            raise SystemExit(f"sdist_check: {opts.sdist.name}'s CMake project does not configure on its own")
        entries = json.loads((build / "compile_commands.json").read_text())
        if not any("/libcloudroute/core/" in e["file"] or "cloudroute_core" in e["file"] for e in entries):
            raise SystemExit("sdist_check: the library's sources are not in the compile commands")
        with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            files = set().union(*pool.map(dependencies, entries))
        # The build environment (.venv: pybind11's headers) may sit in the checkout.
        env = Path(sys.prefix).resolve()
        checkout = [f for f in files
                    if Path(f).resolve().is_relative_to(ROOT) and not Path(f).resolve().is_relative_to(env)]
        if checkout:
            raise SystemExit(f"sdist_check: read from the checkout, not the sdist: {sorted(checkout)[:5]}")
        inside = sum(1 for f in files if Path(f).resolve().is_relative_to(work))
        print(f"ok: {opts.sdist.name} configures on its own, and its {len(entries)} translation units "
              f"preprocess from it alone ({inside} of its files read, none from the checkout)")
        if opts.build:
            make = subprocess.run(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2)],
                                  capture_output=True, text=True)
            if make.returncode != 0:
                print(make.stdout[-6000:], make.stderr[-4000:], sep="\n", file=sys.stderr)
                raise SystemExit(f"sdist_check: {opts.sdist.name} does not build on its own")
            (ext,) = build.glob("_native*.so")
            print(f"ok: {opts.sdist.name} compiles and links on its own ({ext.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
