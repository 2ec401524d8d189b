"""cloudroute.Client's replica lag options (cr_client_options.replica_max_lag_bytes
/ replica_max_lag_s) against the session's harness cluster: accepted, reads still
served (a replica in sync is within any bound), bad values refused."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import live

import cloudroute
from cloudroute import Client, Config

pytestmark = live


def test_replica_lag_bounds(cluster: Dict[str, str]) -> None:
    cfg = Config(local_cidrs=[cluster["CLOUD_A_CIDR"]])
    with Client(cluster["SEEDS"], cfg, replica_max_lag_bytes=1 << 20, replica_max_lag_s=30,
                command_timeout_ms=3000) as c:
        for n in (1, 2, 3):
            assert c.get(cluster[f"SHARD{n}_KEY"]) == cluster[f"SHARD{n}_VALUE"].encode()
        assert c.stats().reads >= 3 and c.stats().refreshes >= 1


@pytest.mark.parametrize(("kw", "exc"), [
    ({"replica_max_lag_bytes": -1}, cloudroute.InvalidArgumentError),
    ({"replica_max_lag_s": 1 << 32}, cloudroute.InvalidArgumentError),
    ({"replica_max_lag_s": "10"}, TypeError),
])
def test_replica_lag_bad_values(cluster: Dict[str, str], kw: Dict[str, object], exc: type) -> None:
    with pytest.raises(exc):
        Client(cluster["SEEDS"], **kw)  # type: ignore[arg-type]
