"""Compares two runs of redis-py's cluster test suite (JUnit XML, pytest
--junitxml): plain redis-py and the same suite with every RedisCluster
replaced by cloudroute's adapter (cloudroute_swap.py).

    python compare.py EXPECTED PLAIN.xml ADAPTER.xml

Exits 1 when the adapter fails (or errors on) a test that plain redis-py
passes and the test is not listed in EXPECTED (expected-differences.txt:
``test-id  # reason`` per line), or when EXPECTED lists a test with no
reason. Listed tests that pass under the adapter are printed (a fixed
difference to take off the list) but do not fail the run: most listed tests
depend on which node a random or round-robin choice picked.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, Tuple


def outcomes(path: str) -> Dict[str, str]:
    """test id (module path::class::name) -> passed / failed / skipped."""
    result: Dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")
        # tests.test_asyncio.test_cluster.TestClusterObj -> tests/test_asyncio/test_cluster.py::TestClusterObj
        modules = [p for p in parts if not p[:1].isupper()]
        classes = parts[len(modules):]
        test_id = "::".join(["/".join(modules) + ".py", *classes, case.get("name", "")])
        kinds = {child.tag for child in case}
        if kinds & {"failure", "error"}:
            result[test_id] = "failed"
        elif "skipped" in kinds:
            result[test_id] = "skipped"
        else:
            result[test_id] = "passed"
    return result


def expected(path: str) -> Tuple[Dict[str, str], List[str]]:
    """test id -> reason, and the lines that give no reason."""
    listed: Dict[str, str] = {}
    bad: List[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test_id, _, reason = line.partition("#")
            if not reason.strip():
                bad.append(line)
            listed[test_id.strip()] = reason.strip()
    return listed, bad


def counts(run: Dict[str, str]) -> str:
    return ", ".join(f"{sum(1 for v in run.values() if v == k)} {k}" for k in ("passed", "failed", "skipped"))


def main(argv: List[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    listed, bad = expected(argv[1])
    plain, adapter = outcomes(argv[2]), outcomes(argv[3])
    print(f"  redis-py: {counts(plain)}")
    print(f"  adapter:  {counts(adapter)}")
    lost = sorted(t for t, o in plain.items() if o == "passed" and adapter.get(t) == "failed")
    unexplained = [t for t in lost if t not in listed]
    for t in lost:
        print(f"  {'expected' if t in listed else 'NEW'} difference: {t}" +
              (f"  # {listed[t]}" if t in listed else ""))
    for t in sorted(t for t in listed if t in adapter and adapter[t] == "passed" and plain.get(t) == "passed"):
        print(f"  listed but passed this time: {t}")
    for line in bad:
        print(f"  listed without a reason: {line}")
    if unexplained or bad:
        print(f"  FAIL: {len(unexplained)} test(s) redis-py passes fail under the adapter and are not "
              f"listed in {argv[1]}", file=sys.stderr)
        return 1
    print(f"  ok: {len(lost)} difference(s), each listed with its reason")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
