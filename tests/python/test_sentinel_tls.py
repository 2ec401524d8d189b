"""cloudroute.SentinelClient over TLS against a real Sentinel group whose
sentinel and instances speak TLS only (scripts/redis-tls-harness.sh: a
throwaway CA and certificates; its Sentinel group on 127.0.1.71-73, ports
9145-9147 of the harness's 9131-9147): the sentinel is asked over TLS, master
and replica are dialed over TLS, and a CA that did not sign the sentinel's
certificate is refused naming the verification failure.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
from typing import Dict, Iterator

import pytest
from conftest import REPO, live, read_env

import cloudroute
from cloudroute import Ring, SentinelClient

pytestmark = [live, pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")]

TLS_HARNESS = REPO / "scripts" / "redis-tls-harness.sh"


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    root = os.environ.get("CR_PY_HARNESS_ROOT")
    d = pathlib.Path(root).resolve() / "tls-9131" if root else tmp_path_factory.mktemp("tls")
    subprocess.run([str(TLS_HARNESS), "start", str(d), "9131"], check=True, stdout=subprocess.DEVNULL,
                   timeout=180)
    try:
        yield read_env(d / "tls.env")
    finally:
        subprocess.run([str(TLS_HARNESS), "stop", str(d)], check=False, stdout=subprocess.DEVNULL, timeout=60)


def make(env: Dict[str, str], ca: str) -> SentinelClient:
    group = env["TLS_SENTINEL_GROUP"]
    return SentinelClient(env["TLS_SENTINEL"], [group], Ring.jedis([group]), tls=True, tls_ca_file=ca,
                          command_timeout_ms=3000)


def test_a_sentinel_group_is_served_over_tls(tls: Dict[str, str]) -> None:
    with make(tls, tls["TLS_CA"]) as c:
        assert c.set("tls:py", "over-tls") is True
        assert c.execute_command("GET", "tls:py", read=False) == b"over-tls"
        # Reads go to either instance (one locality tier): every read finds the
        # value once the replica holds it.
        values = [c.get("tls:py") for _ in range(50)]
        assert values.count(b"over-tls") >= 45, values
        addresses = {f"{n.host}:{n.port}" for n in c.read_order("tls:py")}
        assert addresses == {tls["TLS_SENTINEL_MASTER"], tls["TLS_SENTINEL_REPLICA"]}


def test_a_ca_that_did_not_sign_the_sentinel_is_refused(tls: Dict[str, str]) -> None:
    with pytest.raises(cloudroute.ConnectionError) as e:
        make(tls, tls["TLS_EVIL_CA"])
    assert "certificate" in str(e.value)
    assert tls["TLS_SENTINEL"] in str(e.value)
