"""A tiny RESP2 encoder, to build CLUSTER SHARDS / SLOTS replies in tests."""

from __future__ import annotations

from typing import Union

Value = Union[str, bytes, int, list]  # type: ignore[type-arg]


def encode(v: Value) -> bytes:
    if isinstance(v, int):
        return b":%d\r\n" % v
    if isinstance(v, str):
        v = v.encode()
    if isinstance(v, bytes):
        return b"$%d\r\n%s\r\n" % (len(v), v)
    return b"*%d\r\n" % len(v) + b"".join(encode(x) for x in v)


def shard(slots: list[int], nodes: list[dict[str, Union[str, int]]]) -> list:  # type: ignore[type-arg]
    flat: list[Value] = []
    out_nodes: list[Value] = []
    for n in nodes:
        kv: list[Value] = []
        for k, val in n.items():
            kv += [k, val]
        out_nodes.append(kv)
    flat = ["slots", list(slots), "nodes", out_nodes]
    return flat


def node(nid: str, ip: str, port: int, role: str, zone: str = "", health: str = "online") -> dict[str, Union[str, int]]:
    d: dict[str, Union[str, int]] = {
        "id": nid,
        "port": port,
        "ip": ip,
        "endpoint": ip,
        "role": role,
        "replication-offset": 100,
        "health": health,
    }
    if zone:
        d["availability-zone"] = zone
    return d
