"""The package itself: one version with the C library, docs that run, no ctypes,
a self-contained extension, and the typing files."""

from __future__ import annotations

import doctest
import importlib.metadata
import pathlib
import re
import sys

import cloudroute
import cloudroute._native
from conftest import REPO


def header_version() -> str:
    text = (REPO / "capi" / "include" / "cloudroute.h").read_text()
    parts = [re.search(rf"#define CR_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]  # type: ignore[union-attr]
    return ".".join(parts)


def test_one_version_everywhere() -> None:
    v = header_version()
    assert cloudroute.__version__ == v
    assert cloudroute._native.HEADER_VERSION == v
    assert importlib.metadata.version("cloudroute") == v
    assert ".".join(map(str, cloudroute.version_info)) == v


def test_installed_not_source_tree() -> None:
    # The tests run against the wheel installed in a virtualenv.
    assert "bindings" not in pathlib.Path(cloudroute.__file__).parts


def test_typing_files_are_shipped() -> None:
    pkg = pathlib.Path(cloudroute.__file__).parent
    assert (pkg / "py.typed").exists()
    assert (pkg / "_native.pyi").exists()


def test_docstrings_run() -> None:
    failures, tests = doctest.testmod(cloudroute, verbose=False)
    assert tests >= 4 and failures == 0
    assert cloudroute.keyslot.__doc__ and "CLUSTER KEYSLOT" in cloudroute.keyslot.__doc__
    assert cloudroute.Router.route_read.__doc__


def test_no_ctypes() -> None:
    assert "ctypes" not in sys.modules or not any(
        "cloudroute" in (getattr(m, "__file__", "") or "") for m in [sys.modules.get("ctypes")]
    )
    for path in pathlib.Path(cloudroute.__file__).parent.glob("*.py"):
        assert "ctypes" not in path.read_text(), path


def test_records_are_tuples_with_names_and_pickle() -> None:
    import pickle

    r = cloudroute.Router(topology=cloudroute.parse_static("shard master=10.0.0.1:6379"))
    route = r.route_read("k")
    assert isinstance(route, tuple) and route.host == "10.0.0.1"
    assert type(route).__module__ == "cloudroute" and type(route).__name__ == "Route"
    assert pickle.loads(pickle.dumps(route)) == route
    assert "Route(host='10.0.0.1'" in repr(route)
    assert str(cloudroute.Tier.LOCAL) == "local" and f"{cloudroute.Policy.LOCAL}" == "local"


def test_all_is_complete() -> None:
    for name in cloudroute.__all__:
        assert hasattr(cloudroute, name), name
