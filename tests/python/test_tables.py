"""The binding agrees with cloudroute.h: statuses and their exception families, enum names
and values, option fields and defaults.

cloudroute._ctables is generated from the header by scripts/gen_tables.py (ctest
tables.current holds it current); these tests hold the hand-written parts of the binding
(errors.py, _types.py, the keyword options) and the linked library to it.
"""

from __future__ import annotations

import enum
import inspect
from typing import Any, Dict

import pytest

import cloudroute
from cloudroute import _ctables, _native, _types, errors


def test_every_status_is_the_linked_librarys() -> None:
    assert _ctables.STATUSES["CR_OK"] == 0
    for name, value in _ctables.STATUSES.items():
        assert _native.status_str(value).startswith(name + ":"), (name, value)
    lowest = min(_ctables.STATUSES.values())
    assert _native.status_str(lowest - 1).startswith("CR_?")


def test_every_status_raises_its_familys_class() -> None:
    codes = {v for v in _ctables.STATUSES.values() if v != 0}
    assert set(errors._BY_STATUS) == codes
    for status, cls in errors._BY_STATUS.items():
        family = _ctables.STATUS_FAMILIES[status]
        assert cls.FAMILY == family, (status, cls, family)
        # A status's own class, or (CR_EBUFS) its family's.
        assert cls.STATUS == status or cls is errors._FAMILY_CLASSES[family], (status, cls)
    assert errors._FAMILY_CLASSES.keys() == set(_ctables.STATUS_FAMILIES.values()) - {"ok"}
    for family, cls in errors._FAMILY_CLASSES.items():
        assert cls.FAMILY == family


def test_every_class_names_a_known_status_and_family() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        if cls is errors.Error:
            continue
        assert cls.FAMILY in set(_ctables.STATUS_FAMILIES.values()), cls
        if cls.STATUS is not None:
            assert _ctables.STATUS_FAMILIES[cls.STATUS] == cls.FAMILY, cls


def test_not_found_is_its_own_family_as_in_java() -> None:
    assert _ctables.STATUS_FAMILIES[_ctables.STATUSES["CR_ENOTFOUND"]] == "not_found"
    err = errors._BY_STATUS[_ctables.STATUSES["CR_ENOTFOUND"]]("x")
    assert isinstance(err, cloudroute.NotFoundError) and isinstance(err, LookupError)
    assert not isinstance(err, ValueError)


def test_a_limit_is_a_parse_error_as_in_java(two_clouds_reply: bytes) -> None:
    with pytest.raises(cloudroute.ParseError) as info:
        cloudroute.parse_cluster_slots(two_clouds_reply, max_elements=1)
    assert isinstance(info.value, cloudroute.LimitError)
    assert info.value.status == _ctables.STATUSES["CR_ELIMIT"]
    assert info.value.FAMILY == "parse"


@pytest.mark.parametrize("ctype", sorted(_ctables.PYTHON_ENUMS))
def test_enum_names_and_values_match_the_header(ctype: str) -> None:
    cls = getattr(_types, _ctables.PYTHON_ENUMS[ctype])
    assert getattr(cloudroute, cls.__name__) is cls
    members = list(cls)
    expected = _ctables.ENUMS[ctype]
    assert [m.name for m in members] == [name for name, _ in expected]
    for member, (name, value) in zip(members, expected):
        if issubclass(cls, enum.IntEnum):
            assert member.value == value, (ctype, name)
        else:
            # A str enum's C value is its position; its value the library's name.
            assert members.index(member) == value, (ctype, name)
            assert member.value == name.lower().replace("_", "-"), (ctype, name)


def test_the_library_accepts_every_str_enum_value() -> None:
    cfg = cloudroute.Config()
    for policy in cloudroute.Policy:
        cfg.set_router_options(policy=policy)  # cr_policy_from_name
    for selection in cloudroute.Selection:
        cfg.set_selection(selection)  # cr_selection_from_name


def _header_defaults(ctype: str) -> Dict[str, Any]:
    """The header's defaults, an enum member (by short name) as the library's value of it."""
    out = {}
    for name, value in _ctables.OPTION_DEFAULTS[ctype].items():
        ftype = _ctables.OPTION_TYPES[ctype][name]
        if ftype in _ctables.ENUMS:
            out[name] = dict(_ctables.ENUMS[ftype])[str(value)]
        else:
            out[name] = value
    return out


@pytest.mark.parametrize("ctype", sorted(_native._option_defaults()))
def test_option_defaults_of_the_library_are_the_headers(ctype: str) -> None:
    native = _native._option_defaults()[ctype]
    assert list(native) == list(_ctables.OPTION_DEFAULTS[ctype])
    assert native == _header_defaults(ctype)


def test_hedge_mode_default_is_the_headers_off() -> None:
    native = _native._option_defaults()["cr_client_options"]
    assert _ctables.OPTION_DEFAULTS["cr_client_options"]["hedge_mode"] == "OFF"
    assert native["hedge_mode"] == dict(_ctables.ENUMS["cr_hedge_mode"])["OFF"]


@pytest.mark.parametrize(
    "cls, ctype, own",
    [
        (cloudroute.Client, "cr_client_options", {"seeds", "config"}),
        (cloudroute.SentinelClient, "cr_sentinel_options", {"sentinels", "names", "ring", "config"}),
    ],
)
def test_every_option_field_is_a_keyword(cls: Any, ctype: str, own: set[str]) -> None:
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    assert params - own == set(_ctables.OPTION_DEFAULTS[ctype])


@pytest.mark.parametrize("name", [n for n, _ in _ctables.ENUMS["cr_hedge_mode"]])
def test_every_hedge_mode_of_the_header_is_a_keyword_value(name: str) -> None:
    # Accepted by name (lower case, as Java's HedgeMode labels): the client then fails to
    # reach the closed port, not on the option.
    with pytest.raises(cloudroute.ConnectionError):
        cloudroute.Client("127.0.0.1:1", hedge_mode=name.lower(), connect_timeout_ms=200)
