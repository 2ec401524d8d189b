"""Smoke test of an installed cloudroute wheel (tests/package/python_test.sh runs
it in a fresh virtualenv, outside the repository): key slots, a saved CLUSTER
SLOTS reply parsed, reads routed to the client's cloud, writes to masters.

    python smoke.py CLUSTER_SLOTS_REPLY_FILE
"""

import pathlib
import sys

import cloudroute

assert "site-packages" in pathlib.Path(cloudroute.__file__).parts, cloudroute.__file__
assert cloudroute.keyslot("user:1000") == 1649
assert cloudroute.keyslot("{user:1000}.followers") == 1649
assert cloudroute.keyslots([b"a", "b"]) == [15495, 3300]

# examples/two-clouds.cluster-slots.resp: 3 shards, cloud A = 127.0.1.0/24.
topology = cloudroute.parse_cluster_slots(pathlib.Path(sys.argv[1]).read_bytes())
assert topology.shard_count == 3, topology.shard_count
config = cloudroute.Config(local_cidrs=["127.0.1.0/24"], policy="local-replicas-first")
router = cloudroute.Router(config, topology)
for key in ("user:1000", "foo", "bar", "baz"):
    read, write = router.route_read(key), router.route_write(key)
    assert read.host.startswith("127.0.1."), (key, read)
    assert read.tier == cloudroute.Tier.LOCAL, (key, read)
    assert write.role == cloudroute.Role.MASTER, (key, write)

# Errors carry the C library's message.
try:
    cloudroute.parse_static("shard master=nowhere")
except cloudroute.ParseError as e:
    assert "nowhere" in str(e) or "line 1" in str(e), str(e)
else:
    raise AssertionError("a bad topology parsed")
print(f"smoke: cloudroute {cloudroute.__version__} from {pathlib.Path(cloudroute.__file__).parent}: ok")
