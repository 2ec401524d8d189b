"""What an operator sees from Python, against the live harness cluster
(conftest.py's session fixture): the client's events in logging (logger
"cloudroute") and its statistics as Prometheus text, parsed by
prometheus_client's own parser."""

from __future__ import annotations

import logging
from typing import Dict, List

import pytest
from conftest import live
from prometheus_client.parser import text_string_to_metric_families

import cloudroute

pytestmark = live


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: List[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def records() -> List[logging.LogRecord]:
    logger = logging.getLogger("cloudroute")
    handler = Records()
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


def local_replica(cluster: Dict[str, str]) -> tuple[str, str]:
    """(a cloud-A replica's address, a key of its shard)."""
    for s in (1, 2, 3):
        for r in cluster[f"SHARD{s}_REPLICAS"].split(","):
            if r.startswith("127.0.1."):
                return r, cluster[f"SHARD{s}_KEY"]
    pytest.skip("no shard has a replica in cloud A")


def test_events_reach_logging_and_the_scrape_parses(cluster: Dict[str, str], records: List[logging.LogRecord]) -> None:
    dead, key = local_replica(cluster)
    cfg = cloudroute.Config(local_cidrs=["127.0.1.0/24"], policy="replica-only", failure_threshold=1,
                            down_cooldown_ms=60000, address_remap={dead: "127.0.0.1:8198"})
    client = cloudroute.Client(cluster["NODE1_ADDR"], cfg, refresh_interval_ms=0)
    try:
        for _ in range(10):
            client.get(key)
        messages = [r.getMessage() for r in records]
        assert any(m.startswith("refresh done shards=3") for m in messages), messages
        down = [r for r in records if r.getMessage().startswith("node marked down")]
        assert down and down[0].levelno == logging.WARNING
        assert down[0].cloudroute["node"] == dead  # type: ignore[attr-defined]
        assert any(m.startswith("read fell back") for m in messages)

        families = {f.name: f for f in text_string_to_metric_families(client.metrics_text())}
        reads = {s.labels["tier"]: s.value for s in families["cloudroute_reads"].samples}
        assert sum(reads.values()) == 10 and reads["local"] + reads["unknown"] == 10
        assert families["cloudroute_read_fallbacks"].samples[0].value == 1
        up = {s.labels["node"]: s.value for s in families["cloudroute_node_up"].samples}
        assert up[dead] == 0
        hist = families["cloudroute_node_latency_seconds"]
        assert hist.type == "histogram"
        counts = {s.labels["node"]: s.value for s in hist.samples if s.name.endswith("_count")}
        inf = {s.labels["node"]: s.value for s in hist.samples if s.labels.get("le") == "+Inf"}
        assert counts and counts == inf
    finally:
        client.close()


def test_silent_above_the_loggers_level(cluster: Dict[str, str], records: List[logging.LogRecord]) -> None:
    logging.getLogger("cloudroute").setLevel(logging.WARNING)
    client = cloudroute.Client(cluster["NODE1_ADDR"], refresh_interval_ms=0)
    try:
        client.refresh()
        assert records == []  # the refresh events are debug
    finally:
        client.close()
