"""A pytest plugin for redis-py's own cluster test suite
(tests/python/run_redis_py_suite.sh): every RedisCluster the suite makes is
cloudroute's adapter — cloudroute.redis_py.CloudRouteCluster for
redis.cluster.RedisCluster, cloudroute.redis_asyncio.CloudRouteCluster for
redis.asyncio.cluster.RedisCluster — made with the suite's own arguments and
no cloudroute config (the adapter's defaults).

Loaded with ``-p cloudroute_swap`` (this directory on PYTHONPATH), it is
imported before the suite's conftest.py and test modules, and rebinds the
name in the modules they take it from (``redis``, ``redis.cluster``,
``redis.asyncio``, ``redis.asyncio.cluster``): ``from redis.cluster import
RedisCluster`` and ``redis.RedisCluster.from_url(...)`` then give the adapter.
redis-py's code that names the class at run time (class attributes,
isinstance checks) sees the adapter too, a subclass; the adapter modules
keep the original base they were defined on.
"""

from __future__ import annotations

import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster

from cloudroute import redis_asyncio, redis_py

redis.RedisCluster = redis.cluster.RedisCluster = redis_py.CloudRouteCluster  # type: ignore[misc]
redis.asyncio.RedisCluster = redis.asyncio.cluster.RedisCluster = redis_asyncio.CloudRouteCluster  # type: ignore[misc]


def pytest_report_header() -> str:
    return (f"cloudroute_swap: RedisCluster is cloudroute's adapter (redis-py {redis.__version__}, "
            f"{redis_py.__file__})")
