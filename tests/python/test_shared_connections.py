"""Shared connections (``Client(shared_connections=n)``), on the live session
cluster: threads' GETs, SETs, MGETs and pipelines on at most n connections per
node, each reply its own request's; and the option's range.
"""

from __future__ import annotations

import threading
from typing import Dict, List

import pytest
from conftest import live

import cloudroute
from cloudroute import Client, Config

pytestmark = live


def test_threads_share_two_connections_per_node_and_get_their_own_values(cluster: Dict[str, str]) -> None:
    cfg = Config(local_cidrs=[cluster["CLOUD_A_CIDR"]], policy="local")
    errors: List[BaseException] = []
    with Client(cluster["SEEDS"], cfg, shared_connections=2, read_your_writes_ms=60000) as c:
        keys = [f"shared:{i}" for i in range(60)]
        c.mset({k: f"v:{k}" for k in keys})

        def worker(t: int) -> None:
            try:
                for n in range(150):
                    k = keys[(t * 7 + n) % len(keys)]
                    assert c.get(k) == f"v:{k}".encode()
                    mine = f"shared:t{t}:{n % 5}"
                    c.set(mine, str(n))
                    assert c.get(mine) == str(n).encode()  # read your writes: the master
                    if n % 10 == 0:
                        assert c.mget(keys) == [f"v:{k}".encode() for k in keys]
                        with c.pipeline() as p:
                            for k in keys[:20]:
                                p.get(k)
                            assert p.execute() == [f"v:{k}".encode() for k in keys[:20]]
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads)
        assert not errors, errors[:3]
        # Eight threads, two connections per node at most (the pooled ones
        # serve nothing here: no blocking command, no transaction).
        for n in c.node_stats():
            assert n.connections <= 2, (n.host, n.port, n.connections)
        assert c.stats().poisoned == 0
        c.delete(*keys, *[f"shared:t{t}:{i}" for t in range(8) for i in range(5)])


def test_shared_connections_range(cluster: Dict[str, str]) -> None:
    with pytest.raises(cloudroute.InvalidArgumentError, match="shared_connections must be 0"):
        Client(cluster["SEEDS"], shared_connections=17)
    with pytest.raises(cloudroute.InvalidArgumentError, match="shared_connections"):
        Client(cluster["SEEDS"], shared_connections=-1)
