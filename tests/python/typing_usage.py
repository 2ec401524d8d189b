"""A typed user of cloudroute, checked by `mypy --strict` in tests/python/run.sh
(not collected by pytest): the stubs must accept real usage and give precise types."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import cloudroute
from cloudroute import Candidate, Config, Policy, Ring, Role, Route, Router, ShardGroups, Tier, Topology


def slots(keys: List[bytes]) -> List[int]:
    one: int = cloudroute.keyslot(b"user:1000") + cloudroute.keyslot("user:1000")
    many: List[int] = cloudroute.keyslots(keys)
    return [one, *many, cloudroute.keyslot(bytearray(b"x")), cloudroute.keyslot(memoryview(b"x"))]


def route(reply: bytes) -> Tuple[str, int, Tier, Role]:
    topo: Topology = cloudroute.parse_cluster_slots(reply, default_host="10.0.0.1", max_elements=1000)
    cfg = Config(client_location="aws/us-east-1/a", local_cidrs=["10.0.0.0/24"],
                 location_rules={"10.1.0.0/16": "gcp/us-central1"}, policy=Policy.LOCAL, seed=1)
    cfg.add_zone("a", "aws/us-east-1/a").set_weight("10.0.0.1:6379", 2)
    router = Router(cfg, topo)
    r: Route = router.route_read("user:1000")
    cands: List[Candidate] = router.candidates(b"user:1000")
    down: bool = cands[0].down
    router.report_failure(r.node_handle)
    text: str = router.explain("user:1000")
    snap = router.snapshot()
    gen: int = snap.generation
    ranges: List[Tuple[int, int]] = snap.topology.shard_ranges(0)
    del down, text, gen, ranges
    host, port, role, tier, slot, shard, node = r
    return host, port, tier, role


def rings() -> int:
    ring = Ring.jedis(["a", ("b", 2), None], key_tags=True)
    groups = ShardGroups(Config(local_cidrs=["127.0.1.0/24"]))
    groups.add("a")
    groups.set_master("a", "127.0.1.1", 6379)
    groups.set_replicas(0, [("127.0.1.2", 6379)])
    total: int = ring.locate("k") + cloudroute.jump_hash(cloudroute.jedis_hash("k"), 10)
    fk: str = cloudroute.family_key("user", b"1")
    del fk
    return total + len(ring.locate_many(["a", b"b"]))


def errors() -> str:
    try:
        cloudroute.parse_static("nonsense")
    except cloudroute.ParseError as e:
        status: int = e.status
        return f"{status}: {e}"
    return ""


def live(seeds: str) -> int:
    cfg = Config(local_cidrs=["127.0.1.0/24"], address_remap={"10.0.0.1:6379": "127.0.0.1:16379"})
    with cloudroute.Client(seeds, cfg, command_timeout_ms=(200, 500, 500, 1000, 1000), tls=False) as c:
        ok: bool = c.set("k", "v", ex=10)
        value = c.get("k")
        values: List[object] = list(c.mget(["a", b"b"]))
        c.mset({"a": 1, b"b": 2.5})
        n: int = c.delete("a", "b") + c.exists("k") + c.incr("n") + c.ttl("k") + c.hset("h", "f", "v")
        h = c.hgetall("h")
        reply = c.execute_command("LRANGE", "l", 0, -1, read=True)
        stats: cloudroute.ClientStats = c.stats()
        local: int = stats.reads_by_tier[Tier.LOCAL]
        nodes: List[cloudroute.NodeStats] = c.node_stats()
        r: Route = c.router.route_read_slot(0)
        c.refresh()
        del ok, value, values, h, reply, nodes, r
        return n + local


def parity(router: Router, sentinels: str) -> int:
    router.set_replica_lagging("10.0.0.2", 6379)
    router.set_replica_lagging("10.0.0.2", 6379, lagging=False)
    router.report_migrating(100)
    migrating: bool = router.slot_migrating(100)
    names = ["g0", "g1"]
    with cloudroute.SentinelClient(sentinels, names, Ring.jedis(names), Config(), command_timeout_ms=500,
                                   sentinel_timeout_ms=1000) as sc:
        sc.set("k", b"v", ex=10)
        value: object = sc.get("k")
        stats: cloudroute.SentinelStats = sc.stats()
        subscribed: bool = stats.subscribed
        order: List[Candidate] = sc.read_order("k")
        w: Route = sc.route_write("k")
        groups: ShardGroups = sc.groups
        del value, subscribed, order, w, migrating
        return sc.locate("k") + len(groups) + stats.reads + sc.exists("k") + sc.delete("k")


def everyday_commands(c: cloudroute.Client) -> int:
    popped = c.execute_command("BLPOP", "l", 1, timeout=2.5)
    masters: Dict[str, object] = c.execute_on_nodes("PING", target="masters")
    one = c.execute_on_nodes("INFO", node="127.0.1.1:7001", raise_on_error=False)
    keys: List[bytes] = list(c.scan_iter(match="user:*", count=100, _type="string"))
    script: cloudroute.Script = c.register_script("return redis.call('GET', KEYS[1])")
    value = script(keys=["k"], read_only=True, timeout=1)
    sha: str = c.script_load("return 1") + script.sha
    f = c.fcall("fn", 1, "k", "arg") or c.fcall_ro("fn", 0)
    with c.pinned("{u}a") as p:
        p.watch("{u}a")
        p.multi()
        p.execute_command("SET", "{u}a", 1)
        done: Optional[List[Any]] = p.execute()
        slot: int = p.slot
    del popped, one, value, f, done
    return len(masters) + len(keys) + len(sha) + slot + c.dbsize()
