"""The README's Python examples, run as they stand (tests/readme/snippets.py reads
them from README.md): each in a fresh interpreter of this virtualenv, the live ones
against the session's harness cluster (its first node in place of the README's
127.0.1.1:7001, nothing else changed), and what they print checked."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from typing import Any, Dict

from conftest import REPO, live

_spec = importlib.util.spec_from_file_location("readme_snippets", REPO / "tests" / "readme" / "snippets.py")
assert _spec is not None and _spec.loader is not None
snippets: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(snippets)
SNIPPETS = snippets.extract(REPO / "README.md")


def run(name: str, host: str = "", port: int = 0) -> str:
    s = SNIPPETS[name]
    code = snippets.seed(s.text, host, port) if host else s.text
    if host:
        assert code != s.text, f"{name}: the README's seed 127.0.1.1:7001 is not in it"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd="/")
    assert r.returncode == 0, f"README.md:{s.line}: {name} failed:\n{r.stderr}"
    return r.stdout


def test_every_python_example_is_run_here() -> None:
    names = {n for n in SNIPPETS if n.startswith("python-")}
    assert names == {"python-router", "python-client", "python-redis-py"}


def test_router_example() -> None:
    assert run("python-router") == "1649\n10.1.0.1\n10.0.0.1\n"


@live
def test_client_example(cluster: Dict[str, str]) -> None:
    host, port = cluster["SEEDS"].split(",")[0].rsplit(":", 1)
    lines = run("python-client", host, int(port)).splitlines()
    assert lines[0] == "[b'alice', None]"
    assert lines[1] == "[b'alice', {}]"  # the pipeline: GET user:1000, HGETALL of no key
    assert "LOCAL" in lines[2], lines[2]  # reads_by_tier


@live
def test_redis_py_adapter_example(cluster: Dict[str, str]) -> None:
    host, port = cluster["SEEDS"].split(",")[0].rsplit(":", 1)
    out = run("python-redis-py", host, int(port))
    assert out.startswith("b'alice' {"), out
    assert "'routed': " in out
