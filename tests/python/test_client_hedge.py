"""cloudroute.Client's hedged-read options (cr_client_options.hedge_*) against the
session's harness cluster: accepted in both modes, reads served, the hedge counters
in stats(), bad values refused before anything is dialed. (A stalled replica:
tests/integration/hedge_test.cc.)"""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import live

import cloudroute
from cloudroute import Client, Config

pytestmark = live


@pytest.mark.parametrize("kw", [
    {"hedge_mode": "fixed", "hedge_delay_ms": 20, "hedge_budget_percent": 5},
    {"hedge_mode": "adaptive", "hedge_min_delay_ms": 2, "hedge_percentile": 99.5},
    {"hedge_mode": "adaptive", "hedge_percentile": 99},
])
def test_hedged_reads_serve(cluster: Dict[str, str], kw: Dict[str, object]) -> None:
    cfg = Config(local_cidrs=[cluster["CLOUD_A_CIDR"]])
    with Client(cluster["SEEDS"], cfg, command_timeout_ms=3000, **kw) as c:  # type: ignore[arg-type]
        for _ in range(20):
            for n in (1, 2, 3):
                assert c.get(cluster[f"SHARD{n}_KEY"]) == cluster[f"SHARD{n}_VALUE"].encode()
        st = c.stats()
        assert st.reads >= 60
        # Loopback answers well within 20 ms; the budget caps the rest (5% + 10).
        assert st.hedges <= 10 + 60 * 5 // 100
        assert st.hedges_won <= st.hedges
        assert st.hedges_denied >= 0
        assert "cloudroute_hedges_total" in c.metrics_text()


@pytest.mark.parametrize(("kw", "exc"), [
    ({"hedge_mode": "sometimes"}, cloudroute.InvalidArgumentError),
    ({"hedge_mode": 1}, TypeError),
    ({"hedge_mode": "fixed", "hedge_delay_ms": 0}, cloudroute.InvalidArgumentError),
    ({"hedge_mode": "fixed", "hedge_budget_percent": 101}, cloudroute.InvalidArgumentError),
    ({"hedge_mode": "adaptive", "hedge_percentile": 0}, cloudroute.InvalidArgumentError),
    ({"hedge_mode": "adaptive", "hedge_percentile": "99"}, TypeError),
    ({"hedge_delay_ms": -1}, cloudroute.InvalidArgumentError),
])
def test_hedge_bad_values(cluster: Dict[str, str], kw: Dict[str, object], exc: type) -> None:
    with pytest.raises(exc):
        Client(cluster["SEEDS"], **kw)  # type: ignore[arg-type]
