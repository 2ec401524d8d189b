"""redis_py_suite/compare.py, which judges redis-py's own test suite run
through the adapter against plain redis-py's outcomes (recorded or from a
run beside it): it must fail when the adapter breaks a test plain redis-py
passes, and a record must round-trip. Offline: small JUnit files."""

from __future__ import annotations

import pathlib
import subprocess
import sys
from typing import Dict, List, Tuple

from conftest import REPO

COMPARE = REPO / "tests" / "python" / "redis_py_suite" / "compare.py"
SYNC = "tests.test_cluster.TestRedisClusterObj"
ASYNC = "tests.test_asyncio.test_cluster.TestRedisClusterObj"


def junit(path: pathlib.Path, cases: Dict[Tuple[str, str], str]) -> pathlib.Path:
    """A pytest --junitxml (xunit1) file: (classname, name) -> outcome."""
    body = {"passed": "", "failed": '<failure message="boom"/>', "error": '<error message="setup"/>',
            "skipped": '<skipped message="skip"/>'}
    lines = [f'<testcase classname="{c}" name="{n}" time="0.1">{body[o]}</testcase>' for (c, n), o in cases.items()]
    path.write_text('<?xml version="1.0"?><testsuites><testsuite name="pytest">' + "".join(lines) +
                    "</testsuite></testsuites>", encoding="utf-8")
    return path


def compare(*args: object) -> Tuple[int, str]:
    run = subprocess.run([sys.executable, str(COMPARE), *map(str, args)], capture_output=True, text=True,
                         timeout=60)
    return run.returncode, run.stdout + run.stderr


def says(rc: int, lines: List[str], *args: object) -> None:
    """compare.py with args exits rc and prints each of lines."""
    got, out = compare(*args)
    assert got == rc, out
    for line in lines:
        assert line in out, out


def expected_file(tmp_path: pathlib.Path, lines: List[str]) -> pathlib.Path:
    path = tmp_path / "expected.txt"
    path.write_text("# reasons\n" + "".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


PLAIN = {(SYNC, "test_a"): "passed", (SYNC, "test_b"): "passed", (SYNC, "test_ssl"): "error",
         (SYNC, "test_mod"): "skipped", (SYNC, "test_random"): "passed"}


def test_a_record_round_trips_and_keeps_the_other_half(tmp_path: pathlib.Path) -> None:
    record = tmp_path / "outcomes.txt"
    rc, out = compare("record", record, "first line\nsecond line",
                      junit(tmp_path / "sync.xml", PLAIN),
                      junit(tmp_path / "async.xml", {(ASYNC, "test_c[pool]"): "failed"}))
    assert rc == 0, out
    text = record.read_text(encoding="utf-8")
    assert text.startswith("# first line\n# second line\n")
    assert "passed tests/test_cluster.py::TestRedisClusterObj::test_a\n" in text
    assert "failed tests/test_cluster.py::TestRedisClusterObj::test_ssl\n" in text
    assert "skipped tests/test_cluster.py::TestRedisClusterObj::test_mod\n" in text
    assert "failed tests/test_asyncio/test_cluster.py::TestRedisClusterObj::test_c[pool]\n" in text
    # Recording the sync half again replaces its lines, keeps the async
    # half's, and names each change.
    rc, out = compare("record", record, "again", junit(tmp_path / "sync2.xml", {**PLAIN, (SYNC, "test_ssl"): "passed"}))
    assert rc == 0, out
    assert "changed: tests/test_cluster.py::TestRedisClusterObj::test_ssl: failed -> passed" in out
    text = record.read_text(encoding="utf-8")
    assert "passed tests/test_cluster.py::TestRedisClusterObj::test_ssl\n" in text
    assert "failed tests/test_asyncio/test_cluster.py::TestRedisClusterObj::test_c[pool]\n" in text


def test_the_adapter_is_judged_alike_against_a_record_and_a_plain_run(tmp_path: pathlib.Path) -> None:
    plain = junit(tmp_path / "plain.xml", PLAIN)
    record = tmp_path / "outcomes.txt"
    assert compare("record", record, "h", plain)[0] == 0
    expected = expected_file(tmp_path, ["tests/test_cluster.py::TestRedisClusterObj::test_random  # a reason"])
    # Passes: the listed difference, and plain redis-py's own failure.
    good = junit(tmp_path / "good.xml", {**PLAIN, (SYNC, "test_random"): "failed", (SYNC, "test_ssl"): "failed"})
    # The adapter breaks test_b (failed), test_a (skipped) and misses test_mod.
    broken = {**PLAIN, (SYNC, "test_a"): "skipped", (SYNC, "test_b"): "failed"}
    del broken[(SYNC, "test_mod")]
    bad = junit(tmp_path / "bad.xml", broken)
    for baseline in (plain, record):
        rc, out = compare("check", expected, baseline, good)
        assert rc == 0, out
        assert "expected difference (failed under the adapter): " \
               "tests/test_cluster.py::TestRedisClusterObj::test_random  # a reason" in out
        rc, out = compare("check", expected, baseline, bad)
        assert rc == 1, out
        assert "NEW difference (failed under the adapter): tests/test_cluster.py::TestRedisClusterObj::test_b" in out
        assert "NEW difference (skipped under the adapter): tests/test_cluster.py::TestRedisClusterObj::test_a" in out
        assert "NOT RUN under the adapter, skipped with plain redis-py: " \
               "tests/test_cluster.py::TestRedisClusterObj::test_mod" in out


def test_what_the_record_does_not_say_is_reported(tmp_path: pathlib.Path) -> None:
    record = tmp_path / "outcomes.txt"
    assert compare("record", record, "h", junit(tmp_path / "plain.xml", PLAIN))[0] == 0
    expected = expected_file(tmp_path, ["tests/test_cluster.py::TestRedisClusterObj::test_random  # a reason"])
    # Plain redis-py's failure passes under the adapter, and a listed test
    # passed: printed, not failing.
    fixed = junit(tmp_path / "fixed.xml", {**PLAIN, (SYNC, "test_ssl"): "passed"})
    says(0, ["fails with plain redis-py, passed under the adapter: "
             "tests/test_cluster.py::TestRedisClusterObj::test_ssl",
             "listed but passed this time: tests/test_cluster.py::TestRedisClusterObj::test_random"],
         "check", expected, record, fixed)
    # A test the record does not know fails the run when the adapter fails it.
    new = junit(tmp_path / "new.xml", {**PLAIN, (SYNC, "test_new"): "failed"})
    says(1, ["NEW failure under the adapter, a test outcomes.txt does not know: "
             "tests/test_cluster.py::TestRedisClusterObj::test_new", "--record makes it anew"],
         "check", expected, record, new)
    # Only the adapter's test files are judged (one half run alone).
    says(0, [], "check", expected, record, junit(tmp_path / "async.xml", {(ASYNC, "test_c[pool]"): "passed"}))
    # A listed test without a reason, or a malformed record line, fails.
    assert compare("check", expected_file(tmp_path, ["tests/test_cluster.py::X::test_y"]), record, fixed)[0] == 1
    broken_record = tmp_path / "broken.txt"
    broken_record.write_text("passd tests/test_cluster.py::TestRedisClusterObj::test_a\n", encoding="utf-8")
    rc, out = compare("check", expected, broken_record, fixed)
    assert rc != 0 and "not 'passed|failed|skipped TEST-ID'" in out


def test_suspects_are_judged_again_by_plain_redis_pys_rerun(tmp_path: pathlib.Path) -> None:
    record = tmp_path / "outcomes.txt"
    assert compare("record", record, "h", junit(tmp_path / "plain.xml", PLAIN))[0] == 0
    expected = expected_file(tmp_path, ["tests/test_cluster.py::TestRedisClusterObj::test_random  # a reason"])
    adapter = junit(tmp_path / "adapter.xml", {**PLAIN, (SYNC, "test_a"): "failed", (SYNC, "test_b"): "failed",
                                               (SYNC, "test_random"): "failed"})
    suspects = tmp_path / "suspects.txt"
    rc, out = compare("check", "--suspects", suspects, expected, record, adapter)
    assert rc == 1, out
    assert suspects.read_text(encoding="utf-8") == ("tests/test_cluster.py::TestRedisClusterObj::test_a\n"
                                                    "tests/test_cluster.py::TestRedisClusterObj::test_b\n")
    # Plain redis-py, run again, fails test_a too (a slow machine): only
    # test_b is the adapter's.
    rerun = junit(tmp_path / "rerun.xml", {(SYNC, "test_a"): "failed", (SYNC, "test_b"): "passed"})
    rc, out = compare("check", "--suspects", suspects, expected, record, adapter, rerun)
    assert rc == 1, out
    assert "plain redis-py again just now: failed (recorded: passed; not the adapter's doing): " \
           "tests/test_cluster.py::TestRedisClusterObj::test_a" in out
    assert "NEW difference (failed under the adapter): tests/test_cluster.py::TestRedisClusterObj::test_b" in out
    assert suspects.read_text(encoding="utf-8") == "tests/test_cluster.py::TestRedisClusterObj::test_b\n"
    rerun = junit(tmp_path / "rerun2.xml", {(SYNC, "test_a"): "failed", (SYNC, "test_b"): "error"})
    rc, out = compare("check", "--suspects", suspects, expected, record, adapter, rerun)
    assert rc == 0, out
    assert suspects.read_text(encoding="utf-8") == ""


def test_only_a_timed_out_test_is_judged_again_by_the_adapters_rerun(tmp_path: pathlib.Path) -> None:
    record = tmp_path / "outcomes.txt"
    assert compare("record", record, "h", junit(tmp_path / "plain.xml", PLAIN))[0] == 0
    expected = expected_file(tmp_path, [])
    # test_a hit pytest-timeout under the adapter, test_b failed an assertion.
    adapter = junit(tmp_path / "adapter.xml", {**PLAIN, (SYNC, "test_a"): "failed", (SYNC, "test_b"): "failed"})
    text = adapter.read_text(encoding="utf-8")
    adapter.write_text(text.replace('name="test_a" time="0.1"><failure message="boom"/>',
                                    'name="test_a" time="0.1"><failure message="Failed: Timeout (&gt;90.0s) '
                                    'from pytest-timeout."/>'), encoding="utf-8")
    suspects, timeouts = tmp_path / "suspects.txt", tmp_path / "timeouts.txt"
    rc, out = compare("check", "--suspects", suspects, "--timeouts", timeouts, expected, record, adapter)
    assert rc == 1, out
    assert timeouts.read_text(encoding="utf-8") == "tests/test_cluster.py::TestRedisClusterObj::test_a\n"
    plain_again = junit(tmp_path / "rerun.xml", {(SYNC, "test_a"): "passed", (SYNC, "test_b"): "passed"})
    # The adapter passes both when run again: test_a's first run had no
    # verdict and counts no more; test_b's failure stands.
    adapter_again = junit(tmp_path / "again.xml", {(SYNC, "test_a"): "passed", (SYNC, "test_b"): "passed"})
    rc, out = compare("check", "--suspects", suspects, "--timeouts", timeouts, "--adapter-recheck", adapter_again,
                      expected, record, adapter, plain_again)
    assert rc == 1, out
    assert "under the adapter again just now (its first run hit pytest-timeout): passed: " \
           "tests/test_cluster.py::TestRedisClusterObj::test_a" in out
    assert "pytest-timeout): passed: tests/test_cluster.py::TestRedisClusterObj::test_b" not in out
    assert suspects.read_text(encoding="utf-8") == "tests/test_cluster.py::TestRedisClusterObj::test_b\n"
    assert timeouts.read_text(encoding="utf-8") == ""
    # Timed out again under the adapter: still a difference.
    adapter_again = junit(tmp_path / "again2.xml", {(SYNC, "test_a"): "failed"})
    rc, out = compare("check", "--suspects", suspects, "--timeouts", timeouts, "--adapter-recheck", adapter_again,
                      expected, record, adapter, plain_again)
    assert rc == 1, out
    assert "NEW difference (failed under the adapter): tests/test_cluster.py::TestRedisClusterObj::test_a" in out


def test_tests_left_out_on_purpose_are_not_counted_as_not_run(tmp_path: pathlib.Path) -> None:
    record = tmp_path / "outcomes.txt"
    plain = {**PLAIN, ("tests.test_cluster.TestClusterRedisCommands", "test_get"): "passed",
             ("tests.test_cluster.TestClusterRedisCommands", "test_set[pool]"): "passed"}
    assert compare("record", record, "h", junit(tmp_path / "plain.xml", plain))[0] == 0
    expected = expected_file(tmp_path, ["tests/test_cluster.py::TestRedisClusterObj::test_random  # a reason"])
    adapter = junit(tmp_path / "adapter.xml", PLAIN)  # the class deselected
    # Without the list, the class's recorded tests count as not run.
    says(1, ["NOT RUN under the adapter, passed with plain redis-py: "
             "tests/test_cluster.py::TestClusterRedisCommands::test_get"], "check", expected, record, adapter)
    left_out = tmp_path / "left-out.txt"
    left_out.write_text("# why\ntests/test_cluster.py::TestClusterRedisCommands  # covered elsewhere\n",
                        encoding="utf-8")
    says(0, ["left out on purpose, 2 test(s): tests/test_cluster.py::TestClusterRedisCommands  # covered elsewhere"],
         "check", "--left-out", left_out, expected, record, adapter)
    # A prefix covers its class's tests only, not a class whose name it begins.
    left_out.write_text("tests/test_cluster.py::TestClusterRedis  # too short\n", encoding="utf-8")
    says(1, ["NOT RUN under the adapter"], "check", "--left-out", left_out, expected, record, adapter)
    # A line without a reason fails the run.
    left_out.write_text("tests/test_cluster.py::TestClusterRedisCommands\n", encoding="utf-8")
    says(1, ["listed without a reason"], "check", "--left-out", left_out, expected, record, adapter)
