"""The exceptions of cloudroute: one class per C status code (cr_status).

Every error libcloudroute reports is a :class:`Error`; its message is the C
library's (``cr_last_error()``) and ``status`` holds the C code. Classes also
derive from the matching built-in exception, so ``except ValueError`` catches
a bad argument or a malformed reply, ``except LookupError`` an unknown node.

Each status belongs to an exception family, named in cloudroute.h and the
same in Java (docs/errors.md); ``FAMILY`` is the class's. A status without a
class of its own raises its family's class.

Wrong argument *types* (``keyslot(None)``) raise the built-in TypeError.

::

    Error
    ├── InvalidArgumentError (ValueError)     CR_EINVAL
    ├── ParseError (ValueError)               CR_EPARSE
    │   └── IncompleteError                   CR_EINCOMPLETE
    │   └── LimitError                        CR_ELIMIT
    ├── RoutingError
    │   ├── NoTopologyError                   CR_ENOTOPOLOGY
    │   ├── SlotUncoveredError                CR_ESLOT_UNCOVERED
    │   └── UnavailableError                  CR_EUNAVAILABLE
    ├── NotFoundError (LookupError)           CR_ENOTFOUND
    ├── OutOfMemoryError (MemoryError)        CR_ENOMEM
    ├── InternalError                         CR_EINTERNAL, CR_EBUFS
    ├── ConnectionError (ConnectionError)     CR_ECONN      (the live client)
    ├── TimeoutError (TimeoutError)           CR_ETIMEOUT   (the live client)
    ├── ResponseError                         CR_EREDIS     (the live client)
    └── VersionError                          CR_EVERSION
"""

from __future__ import annotations

import builtins
from typing import ClassVar, Dict, Type

from ._ctables import STATUS_FAMILIES

__all__ = [
    "Error",
    "InvalidArgumentError",
    "ParseError",
    "IncompleteError",
    "LimitError",
    "RoutingError",
    "NoTopologyError",
    "SlotUncoveredError",
    "UnavailableError",
    "NotFoundError",
    "OutOfMemoryError",
    "InternalError",
    "ConnectionError",
    "TimeoutError",
    "ResponseError",
    "VersionError",
]


class Error(Exception):
    """Base class of every error reported by libcloudroute."""

    #: The C status code this class stands for (None: several or none).
    STATUS: ClassVar[int | None] = None

    #: The exception family of the class's statuses (docs/errors.md; None: any).
    FAMILY: ClassVar[str | None] = None

    #: The C status code of this error (cr_status, e.g. -4 for CR_EPARSE).
    status: int

    def __init__(self, message: str = "", status: int | None = None) -> None:
        super().__init__(message)
        code = status if status is not None else type(self).STATUS
        self.status = code if code is not None else 0


class InvalidArgumentError(Error, ValueError):
    """An argument is invalid: out of range, an unknown name, a bad option."""

    FAMILY = "invalid_argument"

    STATUS = -1


class OutOfMemoryError(Error, MemoryError):
    """The library could not allocate memory."""

    FAMILY = "internal"

    STATUS = -2


class ParseError(Error, ValueError):
    """Malformed input: a RESP reply, static topology text, a CIDR, an address."""

    FAMILY = "parse"

    STATUS = -4


class LimitError(ParseError):
    """Input exceeds a safety cap (elements, bulk length, size, ring points)."""

    STATUS = -5


class IncompleteError(ParseError):
    """The input ends before the reply does (read more bytes and parse again)."""

    STATUS = -6


class RoutingError(Error):
    """A key cannot be routed."""

    FAMILY = "unavailable"


class NoTopologyError(RoutingError):
    """The router (or shard-group table) has not been given a topology or ring yet."""

    STATUS = -7


class SlotUncoveredError(RoutingError):
    """The key's slot is served by no shard (like CLUSTERDOWN)."""

    STATUS = -8


class UnavailableError(RoutingError):
    """Every candidate is marked down, or the node's endpoint is unknown."""

    STATUS = -9


class NotFoundError(Error, LookupError):
    """The named node, shard or group is not known."""

    FAMILY = "not_found"

    STATUS = -10


class InternalError(Error):
    """A bug in libcloudroute or this binding: please report it."""

    FAMILY = "internal"

    STATUS = -11


class ConnectionError(Error, builtins.ConnectionError):
    """A Redis node could not be reached or dropped the connection (the live client)."""

    FAMILY = "connection"

    STATUS = -12


class TimeoutError(Error, builtins.TimeoutError):
    """A connect or command deadline passed (the live client)."""

    FAMILY = "connection"

    STATUS = -13


class ResponseError(Error):
    """The server answered with an error reply; the message is its text (the live client)."""

    FAMILY = "server"

    STATUS = -14


class VersionError(Error):
    """A struct from a newer cloudroute.h than the loaded library: upgrade the library."""

    FAMILY = "version"

    STATUS = -15


# The one status -> exception mapping of the Python binding (the extension
# raises the class found here): a status's own class, else its family's
# class. The families are the header's (_ctables, generated from it).
_FAMILY_CLASSES: Dict[str, Type[Error]] = {
    "invalid_argument": InvalidArgumentError,
    "parse": ParseError,
    "unavailable": RoutingError,
    "not_found": NotFoundError,
    "connection": ConnectionError,
    "server": ResponseError,
    "version": VersionError,
    "internal": InternalError,
}
_OWN_CLASSES: Dict[int, Type[Error]] = {
    c.STATUS: c
    for c in (
        InvalidArgumentError,
        OutOfMemoryError,
        ParseError,
        LimitError,
        IncompleteError,
        NoTopologyError,
        SlotUncoveredError,
        UnavailableError,
        NotFoundError,
        InternalError,
        ConnectionError,
        TimeoutError,
        ResponseError,
        VersionError,
    )
    if c.STATUS is not None
}
_BY_STATUS: Dict[int, Type[Error]] = {
    status: _OWN_CLASSES.get(status, _FAMILY_CLASSES[family])
    for status, family in STATUS_FAMILIES.items()
    if status != 0
}
