"""The with-statement of the live clients (Client, SentinelClient): close() on exit."""

from __future__ import annotations

from types import TracebackType
from typing import Optional, Protocol, Type, TypeVar


class _Closeable(Protocol):
    def close(self) -> None: ...


_C = TypeVar("_C", bound=_Closeable)


class Closing:
    """Mixed in before the native class: ``with Client(...) as c:`` closes c on exit."""

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(
        self: _Closeable,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()
