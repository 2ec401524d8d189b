"""A native object whose construction failed refuses every call with a clear
error instead of crashing the interpreter.

When __init__ raises (the native factory refused an argument, or the Python
subclass refused one before super().__init__()), the half-made object stays
reachable: the traceback's frames hold `self`, and pytest formats them when it
reports. An object made with __new__ alone (any native class, with or
without a Python subclass) is in the same state. Each case
runs in a child process, so a crash fails its test instead of ending the run.
Offline: no server, no socket is opened.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# Each case: the class, and an expression that raises while constructing one
# (the object is fished out of the traceback) or makes one with __new__ alone.
N = "cloudroute._native."
CASES = {
    "Ring": ("cloudroute.Ring", "cloudroute.Ring(70000)"),
    "Ring.jedis": ("cloudroute.Ring", "cloudroute.Ring.jedis(70000)"),
    "Config": ("cloudroute.Config", "cloudroute.Config.__new__(cloudroute.Config)"),
    "Router": ("cloudroute.Router", "cloudroute.Router.__new__(cloudroute.Router)"),
    "ShardGroups": (
        "cloudroute.ShardGroups",
        "cloudroute.ShardGroups.__new__(cloudroute.ShardGroups)",
    ),
    "Topology": ("cloudroute.Topology", "cloudroute.Topology.__new__(cloudroute.Topology)"),
    "Snapshot": ("cloudroute.Snapshot", "cloudroute.Snapshot.__new__(cloudroute.Snapshot)"),
    "Client": ("cloudroute.Client", "cloudroute.Client(12345)"),
    "Client.config": ("cloudroute.Client", "cloudroute.Client('127.0.0.1:1', 12345)"),
    "SentinelClient": (
        "cloudroute.SentinelClient",
        "cloudroute.SentinelClient('127.0.0.1:1', 12345, None)",
    ),
    "ShardedClient": (
        "cloudroute.ShardedClient",
        "cloudroute.ShardedClient(['127.0.0.1:1'], 12345)",
    ),
    "Script": (N + "Script", f"{N}Script.__new__({N}Script)"),
    "Pinned": (N + "Pinned", f"{N}Pinned.__new__({N}Pinned)"),
    "Scan": (N + "Scan", f"{N}Scan.__new__({N}Scan)"),
}

# Builds the object, fishes it out of the traceback when construction raised,
# then calls every native method and property of it with 0..3 arguments (the
# arity that matches reaches the native code), and repr/len/iter. Prints
# UNINITIALIZED once a call was refused with the binding's "not initialized"
# TypeError.
CHILD = textwrap.dedent(
    """
    import sys
    import cloudroute
    cls = {cls}
    obj = None
    try:
        obj = {make}
    except Exception:
        tb = sys.exc_info()[2]
        while tb is not None:
            candidate = tb.tb_frame.f_locals.get("self")
            if isinstance(candidate, cls):
                obj = candidate
            tb = tb.tb_next
    assert isinstance(obj, cls), "no half-made object reachable: " + repr(obj)
    refused = []

    def attempt(fn):
        try:
            fn()
        except Exception as e:
            if isinstance(e, TypeError) and "was not initialized" in str(e):
                refused.append(e)

    natives = [k for k in cls.__mro__ if k.__module__ == "cloudroute._native"]
    names = sorted({{n for k in natives for n in vars(k) if not n.startswith("__")}})
    for name in names:
        attempt(lambda: getattr(obj, name))
        for args in ((), ("k",), ("k", "v"), ("k", "v", "w")):
            attempt(lambda: getattr(obj, name)(*args))
    attempt(lambda: repr(obj))
    attempt(lambda: len(obj))
    attempt(lambda: iter(obj))
    print("UNINITIALIZED" if refused else "NOT REFUSED", refused[:1])
    """
)


@pytest.mark.parametrize("case", sorted(CASES))
def test_failed_construction_refuses_calls(case: str) -> None:
    cls, make = CASES[case]
    proc = subprocess.run(
        [sys.executable, "-c", CHILD.format(cls=cls, make=make)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, f"child died ({proc.returncode}): {proc.stderr[-2000:]}"
    assert "UNINITIALIZED" in proc.stdout, proc.stdout + proc.stderr
