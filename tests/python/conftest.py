"""Shared fixtures of the Python binding tests (tests/python).

The tests import the *installed* cloudroute (scripts/test.sh installs the
wheel into a fresh virtualenv first), never the source tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time
from typing import Any, Callable, Dict, Iterator, Optional

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
VECTORS = REPO / "tests" / "vectors"


def wait_until(pred: Callable[[], bool], timeout: float = 10.0, every: float = 0.01) -> bool:
    """Polls pred until it holds (True) or timeout seconds have passed (False, after
    one last call): for tests that wait on another thread, process or server."""
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() >= deadline:
            return pred()
        time.sleep(every)
    return True


def replicated(master: str, replicas: int = 2, timeout_ms: int = 5000) -> int:
    """Waits until `replicas` replicas of the master at "host:port" hold every write
    it took so far; returns how many do (WAIT's answer). WAIT waits for its own
    connection's writes only, so on a fresh connection it returns at once: one
    write of a scratch key on that connection first (a key the master serves: a
    cluster master answers MOVED for other slots) makes it wait for everything
    before it, the replication stream being in order."""
    import redis
    import redis.exceptions

    host, port = master.rsplit(":", 1)
    with redis.Redis(host=host, port=int(port), socket_timeout=timeout_ms / 1000 + 10) as r:
        for i in range(1000):
            key = f"cr:replicated:{i}"
            try:
                r.set(key, "1")
            except redis.exceptions.ResponseError as e:
                # redis-py 6 and later raise MovedError, 5 a ResponseError "MOVED …".
                if isinstance(e, redis.exceptions.MovedError) or str(e).startswith("MOVED"):
                    continue
                raise
            try:
                return int(r.wait(replicas, timeout_ms))
            finally:
                r.delete(key)
    raise AssertionError(f"{master} took none of 1000 scratch keys")


def load_vectors(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def unhex(h: str) -> bytes:
    return bytes.fromhex(h)


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler (KeyboardInterrupt) for the test's length: a
    pytest started in the background by a shell without job control inherits
    SIGINT ignored, and Python then leaves it ignored."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


@pytest.fixture(scope="session")
def two_clouds_reply() -> bytes:
    return (REPO / "examples" / "two-clouds.cluster-slots.resp").read_bytes()


HARNESS = REPO / "scripts" / "redis-harness.sh"

#: Live tests need redis-server; CR_PY_LIVE=0 turns them off.
LIVE = shutil.which("redis-server") is not None and os.environ.get("CR_PY_LIVE") != "0"
live = pytest.mark.skipif(not LIVE, reason="needs redis-server (CR_PY_LIVE=0 turns these tests off)")


def read_env(path: pathlib.Path) -> Dict[str, str]:
    """The KEY=value lines of a harness .env file."""
    env = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            env[k] = v
    return env


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    """One two-cloud harness cluster for the session (scripts/redis-harness.sh
    cluster --noncontiguous: 127.0.1.x = cloud A, 127.0.2.x = cloud B).
    CR_PY_LIVE_PORT sets the base port (default 7561; bus ports +10000),
    CR_PY_LIVE_DIR the harness directory (default: a pytest temporary directory)."""
    # A fixed directory (tests/python/run.sh sets one) lets a run stop what an
    # interrupted run left behind; the harness stops recorded PIDs only.
    fixed = os.environ.get("CR_PY_LIVE_DIR")
    d = pathlib.Path(fixed).resolve() if fixed else tmp_path_factory.mktemp("cluster")
    if fixed and (d / "pids").exists():
        subprocess.run([str(HARNESS), "stop", str(d)], check=False, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
    port = os.environ.get("CR_PY_LIVE_PORT", "7561")
    subprocess.run([str(HARNESS), "cluster", "--noncontiguous", str(d), port], check=True,
                   stdout=subprocess.DEVNULL, timeout=180)
    try:
        yield read_env(d / "cluster.env")
    finally:
        subprocess.run([str(HARNESS), "stop", str(d)], check=False, stdout=subprocess.DEVNULL, timeout=60)


@contextlib.contextmanager
def harness(kind: str, tmp_path_factory: pytest.TempPathFactory, port: int, *flags: str,
            env: Optional[Dict[str, str]] = None) -> Iterator[Dict[str, str]]:
    """A scripts/redis-harness.sh setup of its own (kind 'cluster' or 'sentinel',
    on port and up: tests/PORTS.md), stopped on exit; yields its KIND.env values.
    env adds to the harness's environment (REDIS_SERVER, HARNESS_EXTRA_CONF).
    With CR_PY_HARNESS_ROOT (tests/python/run.sh sets it) the directory is fixed,
    ROOT/KIND-PORT, so a run first stops what an interrupted run left there."""
    root = os.environ.get("CR_PY_HARNESS_ROOT")
    if root:
        d = pathlib.Path(root).resolve() / f"{kind}-{port}"
        d.mkdir(parents=True, exist_ok=True)
        if (d / "pids").exists():
            subprocess.run([str(HARNESS), "stop", str(d)], check=False, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
    else:
        d = tmp_path_factory.mktemp(kind)
    subprocess.run([str(HARNESS), kind, *flags, str(d), str(port)], check=True, stdout=subprocess.DEVNULL,
                   timeout=180, env={**os.environ, **(env or {})})
    try:
        yield read_env(d / f"{kind}.env")
    finally:
        subprocess.run([str(HARNESS), "stop", str(d)], check=False, stdout=subprocess.DEVNULL, timeout=60)
