"""redis-py's cluster test suite through cloudroute's adapter
(cloudroute_swap.py), judged against the same suite with plain redis-py.

    python compare.py check [--suspects FILE] [--timeouts FILE] [--adapter-recheck FILE.xml] [--left-out FILE]
                            EXPECTED BASELINE ADAPTER.xml [RECHECK.xml]
    python compare.py record OUTCOMES HEADER PLAIN.xml...

``check`` exits 1 when a test plain redis-py passes does not pass under the
adapter (fails, errors or is skipped) and the test is not listed in EXPECTED
(expected-differences.txt: ``test-id  # reason`` per line); when EXPECTED
lists a test with no reason; when the adapter fails a test BASELINE does not
know; or when BASELINE holds tests of the adapter's test files that the
adapter's run did not run. BASELINE is the JUnit XML of plain redis-py's run
(pytest --junitxml) or the recorded outcomes of such runs (``record``): one
``outcome test-id`` line per test. Printed, not failing: listed tests that
passed under the adapter this time (most listed tests depend on which node a
random or round-robin choice picked) and tests plain redis-py fails that pass
under the adapter. RECHECK.xml: plain redis-py run again on some tests just
now; its outcomes replace BASELINE's for those tests (each change printed).
--suspects FILE: write there the tests that fail the run by the first rule
(one id a line; empty when none), for such a rerun; --timeouts FILE: those of
them the adapter lost to pytest-timeout (a slow machine can do that to either
client). --adapter-recheck FILE.xml: the adapter run again just now on such
tests; for a test whose first run under the adapter timed out, its outcome
replaces that run's (each printed). A test that failed otherwise keeps its
first outcome. --left-out FILE
(left-out.txt: ``test-id-prefix  # reason`` per line): tests the adapter's run
deselected on purpose; BASELINE's tests under those prefixes are not counted
as not run (their number is printed with the reason).

``record`` writes OUTCOMES from plain redis-py's runs: HEADER (``#`` comment
lines) and every test of the PLAIN.xml files with its outcome, keeping the
lines of OUTCOMES for test files those runs did not cover (one half recorded
at a time), and prints each test whose recorded outcome changed.
"""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional, Set, Tuple

OUTCOMES = ("passed", "failed", "skipped")


def case_id(case: ET.Element) -> str:
    """A JUnit testcase's test id (module path::class::name)."""
    parts = case.get("classname", "").split(".")
    # tests.test_asyncio.test_cluster.TestClusterObj -> tests/test_asyncio/test_cluster.py::TestClusterObj
    modules = [p for p in parts if not p[:1].isupper()]
    classes = parts[len(modules):]
    return "::".join(["/".join(modules) + ".py", *classes, case.get("name", "")])


def junit_outcomes(path: str) -> Dict[str, str]:
    """test id (module path::class::name) -> passed / failed / skipped."""
    result: Dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        test_id = case_id(case)
        kinds = {child.tag for child in case}
        if kinds & {"failure", "error"}:
            result[test_id] = "failed"
        elif "skipped" in kinds:
            result[test_id] = "skipped"
        else:
            result[test_id] = "passed"
    return result


def timed_out(path: str) -> Set[str]:
    """The tests of a JUnit file that pytest-timeout stopped."""
    found: Set[str] = set()
    for case in ET.parse(path).getroot().iter("testcase"):
        if any(child.tag in ("failure", "error") and "from pytest-timeout" in child.get("message", "")
               for child in case):
            found.add(case_id(case))
    return found


def recorded_outcomes(path: str) -> Dict[str, str]:
    """The ``outcome test-id`` lines of a record; a malformed line is an error."""
    result: Dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            outcome, _, test_id = line.partition(" ")
            if outcome not in OUTCOMES or not test_id.strip():
                raise ValueError(f"{path}:{number}: not 'passed|failed|skipped TEST-ID': {line}")
            result[test_id.strip()] = outcome
    return result


def outcomes(path: str) -> Dict[str, str]:
    return junit_outcomes(path) if path.endswith(".xml") else recorded_outcomes(path)


def test_file(test_id: str) -> str:
    return test_id.split("::", 1)[0]


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


def left_out_prefix(test_id: str, prefixes: Dict[str, str]) -> Optional[str]:
    """The prefix of ``prefixes`` (a class or a test) that ``test_id`` falls under, if any."""
    for p in prefixes:
        if test_id == p or test_id.startswith((p + "::", p + "[")):
            return p
    return None


def counts(run: Dict[str, str]) -> str:
    return ", ".join(f"{sum(1 for v in run.values() if v == k)} {k}" for k in OUTCOMES)


def check(expected_path: str, baseline_path: str, adapter_path: str, recheck_path: Optional[str],
          suspects_path: Optional[str], left_out_path: Optional[str] = None,
          timeouts_path: Optional[str] = None, adapter_recheck_path: Optional[str] = None) -> int:
    listed, bad = expected(expected_path)
    left_out: Dict[str, str] = {}
    if left_out_path is not None:
        left_out, bad_left_out = expected(left_out_path)
        bad += bad_left_out
    adapter = junit_outcomes(adapter_path)
    files = {test_file(t) for t in adapter}
    plain = {t: o for t, o in outcomes(baseline_path).items() if test_file(t) in files}
    print(f"  redis-py: {counts(plain)} ({os.path.basename(baseline_path)})")
    print(f"  adapter:  {counts(adapter)}")
    if recheck_path is not None:
        for t, o in sorted(junit_outcomes(recheck_path).items()):
            print(f"  plain redis-py again just now: {o}" +
                  (f" (recorded: {plain[t]}; not the adapter's doing)" if plain.get(t, o) != o else "") + f": {t}")
            plain[t] = o
    stopped = timed_out(adapter_path)
    if adapter_recheck_path is not None:
        for t, o in sorted(junit_outcomes(adapter_recheck_path).items()):
            if t in stopped:
                print(f"  under the adapter again just now (its first run hit pytest-timeout): {o}: {t}")
                adapter[t] = o
    lost = sorted(t for t, o in plain.items() if o == "passed" and adapter.get(t, "passed") != "passed")
    unexplained = [t for t in lost if t not in listed]
    if suspects_path is not None:
        with open(suspects_path, "w", encoding="utf-8") as f:
            f.writelines(f"{t}\n" for t in unexplained)
    if timeouts_path is not None:
        with open(timeouts_path, "w", encoding="utf-8") as f:
            f.writelines(f"{t}\n" for t in unexplained if t in stopped and adapter[t] == "failed")
    for t in lost:
        print(f"  {'expected' if t in listed else 'NEW'} difference ({adapter[t]} under the adapter): {t}" +
              (f"  # {listed[t]}" if t in listed else ""))
    unknown = sorted(t for t in adapter if t not in plain)
    unknown_failed = [t for t in unknown if adapter[t] == "failed"]
    for t in unknown:
        print(f"  {'NEW failure' if adapter[t] == 'failed' else adapter[t]} under the adapter, "
              f"a test {os.path.basename(baseline_path)} does not know: {t}")
    skipped_on_purpose: Dict[str, int] = {}
    not_run = []
    for t in sorted(t for t in plain if t not in adapter):
        p = left_out_prefix(t, left_out)
        if p is None:
            not_run.append(t)
        else:
            skipped_on_purpose[p] = skipped_on_purpose.get(p, 0) + 1
    for p, n in sorted(skipped_on_purpose.items()):
        print(f"  left out on purpose, {n} test(s): {p}  # {left_out[p]}")
    for t in not_run:
        print(f"  NOT RUN under the adapter, {plain[t]} with plain redis-py: {t}")
    for t in sorted(t for t in plain if plain[t] == "failed" and adapter.get(t) == "passed"):
        print(f"  fails with plain redis-py, passed under the adapter: {t}")
    for t in sorted(t for t in listed if adapter.get(t) == "passed" and plain.get(t) == "passed"):
        print(f"  listed but passed this time: {t}")
    for line in bad:
        print(f"  listed without a reason: {line}")
    if unexplained or unknown_failed or not_run or bad:
        print(f"  FAIL: {len(unexplained)} test(s) plain redis-py passes do not pass under the adapter and are "
              f"not listed in {expected_path}; {len(unknown_failed)} failure(s) of tests "
              f"{baseline_path} does not know; {len(not_run)} of its tests not run"
              + (" (an outdated record? tests/python/run_redis_py_suite.sh --record makes it anew)"
                 if not baseline_path.endswith(".xml") and (unknown or not_run) else ""),
              file=sys.stderr)
        return 1
    print(f"  ok: {len(lost)} difference(s), each listed with its reason")
    return 0


def record(path: str, header: str, runs: List[str]) -> int:
    new: Dict[str, str] = {}
    for run in runs:
        new.update(junit_outcomes(run))
    files = {test_file(t) for t in new}
    old = recorded_outcomes(path) if os.path.exists(path) else {}
    merged = {t: o for t, o in old.items() if test_file(t) not in files}
    merged.update(new)
    if any(test_file(t) in files for t in old):
        for t in sorted(set(old) | set(new)):
            if test_file(t) in files and old.get(t) != new.get(t):
                print(f"  changed: {t}: {old.get(t, 'not recorded')} -> {new.get(t, 'gone')}")
    with open(path, "w", encoding="utf-8") as f:
        for line in header.splitlines():
            f.write(f"# {line}".rstrip() + "\n")
        for t in sorted(merged):
            f.write(f"{merged[t]} {t}\n")
    print(f"  recorded {path}: {counts(merged)}")
    return 0


def main(argv: List[str]) -> int:
    if len(argv) >= 2 and argv[1] == "check":
        args = argv[2:]
        options: Dict[str, str] = {}
        while args[:1] in (["--suspects"], ["--left-out"], ["--timeouts"], ["--adapter-recheck"]) and len(args) >= 2:
            options[args[0]], args = args[1], args[2:]
        if len(args) in (3, 4):
            return check(args[0], args[1], args[2], args[3] if len(args) == 4 else None,
                         options.get("--suspects"), options.get("--left-out"), options.get("--timeouts"),
                         options.get("--adapter-recheck"))
    if len(argv) >= 5 and argv[1] == "record":
        return record(argv[2], argv[3], argv[4:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
