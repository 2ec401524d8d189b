"""The Python examples of the README and docs/guide.md, run as they stand
(tests/readme/snippets.py reads them from both, its DOCS): each in a fresh interpreter of
this virtualenv, the live ones against the session's harness cluster (its first node in
place of the examples' 127.0.1.1:7001, nothing else changed), and what they print checked."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from typing import Any, Dict, Iterator, List

import pytest
from conftest import REPO, harness, live, wait_until

_spec = importlib.util.spec_from_file_location("readme_snippets", REPO / "tests" / "readme" / "snippets.py")
assert _spec is not None and _spec.loader is not None
snippets: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(snippets)
SNIPPETS = snippets.extract_all(REPO / doc for doc in snippets.DOCS)


def run(name: str, host: str = "", port: int = 0, swap: Dict[str, str] | None = None) -> str:
    """The snippet run as it stands; host/port in place of the examples' cluster seed,
    or each text of swap (the example's addresses) in place by the test's own."""
    s = SNIPPETS[name]
    code = snippets.seed(s.text, host, port) if host else s.text
    if host:
        assert code != s.text, f"{name}: the examples' seed 127.0.1.1:7001 is not in it"
    for old, new in (swap or {}).items():
        assert old in code, f"{name}: the example's {old} is not in it"
        code = code.replace(old, new)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd="/")
    assert r.returncode == 0, f"{s.where}: {name} failed:\n{r.stderr}"
    return r.stdout


def test_every_python_example_is_run_here() -> None:
    names = {n for n in SNIPPETS if n.startswith("python-")}
    assert names == {"python-router", "python-client", "python-redis-py", "python-pubsub",
                     "python-sentinel", "python-sharded"}


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


@live
def test_pubsub_example(cluster: Dict[str, str]) -> None:
    host, port = cluster["SEEDS"].split(",")[0].rsplit(":", 1)
    lines = run("python-pubsub", host, int(port)).splitlines()
    # Two connections (the channel's, the shard channel's): either message may come first.
    assert sorted(lines) == ["b'news' b'hello'", "b'{eu}orders' b'order 1'"], lines


# The Sentinel example against a Sentinel setup of its own (data nodes 8944-8949,
# sentinels 8954-8956: tests/PORTS.md) in place of the harness's default one.
@live
def test_sentinel_batches_example(tmp_path_factory: pytest.TempPathFactory) -> None:
    with harness("sentinel", tmp_path_factory, 8944) as env:
        out = run("python-sentinel", swap={"127.0.1.41:7211,127.0.2.42:7212,127.0.1.43:7213": env["SENTINELS"]})
    assert out == "[b'member 0', b'member 99', None]\n1 100\n", out


# The pre-sharded example against three standalone servers of its own
# (127.0.0.1:8941-8943: tests/PORTS.md) in place of the example's 6379-6381.
EXAMPLE_PORTS = {"6379": "8941", "6380": "8942", "6381": "8943"}


@pytest.fixture
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[List[int]]:
    d = tmp_path_factory.mktemp("readme-sharded")
    ports = [int(p) for p in EXAMPLE_PORTS.values()]
    procs = [subprocess.Popen(["redis-server", "--port", str(p), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(d), "--dbfilename", f"{p}.rdb"],
                              stdout=subprocess.DEVNULL) for p in ports]
    try:
        for p in ports:
            assert wait_until(lambda p=p: subprocess.run(["redis-cli", "-p", str(p), "ping"], capture_output=True,
                                                         text=True).stdout.strip() == "PONG")
        yield ports
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(timeout=30)


@live
def test_sharded_example(standalone: List[int]) -> None:
    out = run("python-sharded", swap=EXAMPLE_PORTS).splitlines()
    assert out == ["b'alice' [b'2', None]", "99"], out
    # the move took: the spare, promoted, holds cache-b's keys
    role, size = (subprocess.run(["redis-cli", "-p", "8943", *cmd], capture_output=True, text=True).stdout.split()[0]
                  for cmd in (["role"], ["dbsize"]))
    assert role == "master" and int(size) > 0, (role, size)
