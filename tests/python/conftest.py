"""Shared fixtures of the Python binding tests (tests/python).

The tests import the *installed* cloudroute (scripts/test.sh installs the
wheel into a fresh virtualenv first), never the source tree.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
VECTORS = REPO / "tests" / "vectors"


def load_vectors(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def unhex(h: str) -> bytes:
    return bytes.fromhex(h)


@pytest.fixture(scope="session")
def two_clouds_reply() -> bytes:
    return (REPO / "examples" / "two-clouds.cluster-slots.resp").read_bytes()
