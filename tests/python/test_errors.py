"""The status -> exception mapping: one class per C status, with the C message."""

from __future__ import annotations

import builtins

import pytest

import cloudroute
from cloudroute import errors


def test_hierarchy_and_builtin_bases() -> None:
    for cls in [
        cloudroute.InvalidArgumentError,
        cloudroute.ParseError,
        cloudroute.IncompleteError,
        cloudroute.LimitError,
        cloudroute.RoutingError,
        cloudroute.NoTopologyError,
        cloudroute.SlotUncoveredError,
        cloudroute.UnavailableError,
        cloudroute.NotFoundError,
        cloudroute.OutOfMemoryError,
        cloudroute.InternalError,
        cloudroute.ConnectionError,
        cloudroute.TimeoutError,
        cloudroute.ResponseError,
        cloudroute.VersionError,
    ]:
        assert issubclass(cls, cloudroute.Error)
    assert issubclass(cloudroute.InvalidArgumentError, ValueError)
    assert issubclass(cloudroute.ParseError, ValueError)
    assert issubclass(cloudroute.IncompleteError, cloudroute.ParseError)
    assert issubclass(cloudroute.LimitError, ValueError)
    for cls in [cloudroute.NoTopologyError, cloudroute.SlotUncoveredError, cloudroute.UnavailableError]:
        assert issubclass(cls, cloudroute.RoutingError)
    assert issubclass(cloudroute.NotFoundError, LookupError)
    assert issubclass(cloudroute.OutOfMemoryError, MemoryError)
    assert issubclass(cloudroute.ConnectionError, builtins.ConnectionError)
    assert issubclass(cloudroute.TimeoutError, builtins.TimeoutError)
    assert cloudroute.ConnectionError is not builtins.ConnectionError


def test_every_status_of_the_library_is_mapped() -> None:
    # The statuses the linked library names (cr_status_str), all of them mapped.
    known = [s for s in range(-64, 0) if not cloudroute._native.status_str(s).startswith("CR_?")]
    assert known[-11:] == list(range(-11, 0))
    assert sorted(errors._BY_STATUS) == known
    for status, cls in errors._BY_STATUS.items():
        assert cls.__doc__
        if cls is not cloudroute.InternalError:
            assert cls.STATUS == status
    assert cloudroute._native.status_str(-4).startswith("CR_EPARSE")


def test_errors_carry_the_c_status_and_message() -> None:
    with pytest.raises(cloudroute.IncompleteError) as info:
        cloudroute.parse_cluster_slots(b"*1\r\n")
    assert info.value.status == -6
    assert "byte" in str(info.value)
    with pytest.raises(cloudroute.NoTopologyError) as no_topo:
        cloudroute.Router().route_read(b"k")
    assert no_topo.value.status == -7
    assert str(no_topo.value)


def test_binding_side_argument_errors_are_invalid_argument() -> None:
    with pytest.raises(cloudroute.InvalidArgumentError) as info:
        cloudroute.Router().report_moved(1, "10.0.0.1", 70000)
    assert info.value.status == -1
    assert "port must be in 0..65535, not 70000" in str(info.value)


def test_error_can_be_raised_from_python() -> None:
    e = cloudroute.ParseError("x")
    assert e.status == -4 and str(e) == "x"
    assert cloudroute.Error("y").status == 0
    assert cloudroute.Error("z", status=-9).status == -9
