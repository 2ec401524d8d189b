"""The clients of the peer benchmark: each one's natural "read N keys over all shards".

A client spec is a name from CLIENTS. make(name, env) returns (family, request, close):
family "thread" means request(keys) performs one fan-out read and C threads share the one
client object; family "async" means request is a GlideAsync whose coroutine request(keys)
C tasks on one event loop share (close is then None: it closes with aclose()).

Locality given to each client is the same fact, in each client's own terms: the client
runs in zone ZONE_A of cloud A; every node reports its `availability-zone`. GLIDE gets
client_az; cloudroute gets the client location, what the two zone names mean, and (as a
fallback before a node's zone is learned) the CIDR of each cloud's announced addresses.
Timeouts: each library's default, except redis-py, whose default is to wait forever;
it gets socket_timeout=1 s (a value a user would set).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

Request = Callable[[List[str]], Any]

CLIENTS: Dict[str, str] = {
    "redispy-primary": "redis-py RedisCluster, primary only (default), mget_nonatomic",
    "redispy-rr-replicas": "redis-py RedisCluster, load_balancing_strategy=ROUND_ROBIN_REPLICAS, mget_nonatomic",
    "redispy-rr-replicas-pipe": "redis-py RedisCluster, ROUND_ROBIN_REPLICAS, pipeline of GETs",
    "glide-primary": "GLIDE (asyncio) ReadFrom.PRIMARY, mget",
    "glide-prefer-replica": "GLIDE (asyncio) ReadFrom.PREFER_REPLICA, mget",
    "glide-az": "GLIDE (asyncio) ReadFrom.AZ_AFFINITY, client_az set, mget",
    "glide-az-rp": "GLIDE (asyncio) ReadFrom.AZ_AFFINITY_REPLICAS_AND_PRIMARY, client_az set, mget",
    "glide-sync-az-rp": "GLIDE sync, AZ_AFFINITY_REPLICAS_AND_PRIMARY, client_az set, mget",
    "cr-master": "cloudroute.Client policy=master (primary only), mget",
    "cr-local": "cloudroute.Client policy=local (default), mget",
    "cr-local-rf": "cloudroute.Client policy=local-replicas-first, mget",
    "cr-adapter": "cloudroute.redis_py.CloudRouteCluster policy=local, mget_nonatomic",
}


def _seed(env: Dict[str, str]) -> Tuple[str, int]:
    host, port = env["CLOUD_A_NODES"].split(",")[0].split(":")
    return host, int(port)


def cr_config(env: Dict[str, str], policy: str) -> Any:
    import cloudroute

    loc_a = f"cloud-a/region-a/{env['ZONE_A']}"
    loc_b = f"cloud-b/region-b/{env['ZONE_B']}"
    return cloudroute.Config(
        client_location=loc_a,
        zones={env["ZONE_A"]: loc_a, env["ZONE_B"]: loc_b},
        location_rules={env["CLIENT_CIDR_A"]: loc_a, env["PROXY_CIDR_B"]: loc_b},
        policy=policy,
    )


def _redispy(env: Dict[str, str], strategy: Any) -> Any:
    from redis.cluster import RedisCluster

    host, port = _seed(env)
    kw: Dict[str, Any] = {"socket_timeout": 1.0, "socket_connect_timeout": 1.0}
    if strategy is not None:
        kw["load_balancing_strategy"] = strategy
    return RedisCluster(host=host, port=port, **kw)


def _pipeline_gets(rc: Any) -> Request:
    """N GETs in one cluster pipeline: redis-py applies load_balancing_strategy to these
    (its mget_nonatomic sends every per-slot MGET to the primary, see docs/BENCHMARKS.md)."""

    def request(keys: List[str]) -> Any:
        p = rc.pipeline()
        for k in keys:
            p.get(k)
        return p.execute()

    return request


def _glide_config(env: Dict[str, str], mode: str) -> Any:
    from glide_shared.config import GlideClusterClientConfiguration, NodeAddress, ReadFrom

    host, port = _seed(env)
    az = env["ZONE_A"] if mode.startswith("AZ_") else None
    return GlideClusterClientConfiguration(
        addresses=[NodeAddress(host, port)], read_from=getattr(ReadFrom, mode), client_az=az
    )


class GlideAsync:
    """GLIDE's asyncio client; created inside the driver's event loop."""

    def __init__(self, env: Dict[str, str], mode: str) -> None:
        self.config = _glide_config(env, mode)
        self.client: Any = None

    async def open(self) -> None:
        from glide import GlideClusterClient

        self.client = await GlideClusterClient.create(self.config)

    async def request(self, keys: List[str]) -> Any:
        return await self.client.mget(keys)

    async def aclose(self) -> None:
        await self.client.close()


def make(name: str, env: Dict[str, str]) -> Tuple[str, Any, Any]:
    if name not in CLIENTS:
        raise SystemExit(f"unknown client {name!r}; known: {', '.join(CLIENTS)}")
    if name.startswith("glide-") and not name.startswith("glide-sync"):
        mode = {
            "glide-primary": "PRIMARY",
            "glide-prefer-replica": "PREFER_REPLICA",
            "glide-az": "AZ_AFFINITY",
            "glide-az-rp": "AZ_AFFINITY_REPLICAS_AND_PRIMARY",
        }[name]
        return "async", GlideAsync(env, mode), None
    if name == "glide-sync-az-rp":
        from glide_sync import GlideClusterClient

        gc = GlideClusterClient.create(_glide_config(env, "AZ_AFFINITY_REPLICAS_AND_PRIMARY"))
        return "thread", gc.mget, gc.close
    if name.startswith("redispy-"):
        from redis.cluster import LoadBalancingStrategy

        strategy = None if name == "redispy-primary" else LoadBalancingStrategy.ROUND_ROBIN_REPLICAS
        rc = _redispy(env, strategy)
        req = _pipeline_gets(rc) if name == "redispy-rr-replicas-pipe" else rc.mget_nonatomic
        return "thread", req, rc.close
    if name == "cr-adapter":
        from cloudroute.redis_py import CloudRouteCluster

        host, port = _seed(env)
        ad = CloudRouteCluster(host=host, port=port, config=cr_config(env, "local"),
                               socket_timeout=1.0, socket_connect_timeout=1.0)
        return "thread", ad.mget_nonatomic, ad.close
    import cloudroute

    policy = {"cr-master": "master", "cr-local": "local", "cr-local-rf": "local-replicas-first"}[name]
    c = cloudroute.Client(env["CLOUD_A_NODES"], cr_config(env, policy))
    return "thread", c.mget, c.close


__all__ = ["CLIENTS", "GlideAsync", "make", "cr_config"]
