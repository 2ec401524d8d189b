"""Everyday commands beyond one key, for :class:`cloudroute.Client`.

Per-call timeouts (``timeout=`` on ``execute_command``), commands sent to
chosen nodes (``execute_on_nodes``, ``dbsize``, ``script_load``), SCAN over
the whole cluster (``scan_iter``), scripts and functions routed by their
keys (``register_script``, ``fcall``, ``fcall_ro``) and transactions on a
connection pinned to one slot's master (``pinned``). The logic runs in the
C library (``cr_client_command_opts``, ``cr_client_command_nodes``,
``cr_scan_*``, ``cr_client_eval``, ``cr_client_fcall``, ``cr_client_pin``).
"""

from __future__ import annotations

import math
from types import TracebackType
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Type, Union

from . import _native
from .errors import InvalidArgumentError

__all__ = ["ClientCommands", "Pinned", "Script"]

#: A command argument: bytes, str (UTF-8), int, float or a bytes-like object.
Arg = Union[bytes, str, int, float, bytearray, memoryview]
#: A key: bytes, str (UTF-8) or a bytes-like object.
KeyT = Union[bytes, str, bytearray, memoryview]

_TARGETS = {"masters": 1, "all": 2}


def _timeout_ms(timeout: Optional[float]) -> Optional[int]:
    """A call timeout in seconds (as redis-py's timeouts) as milliseconds."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds, not {type(timeout).__name__}")
    if not timeout > 0 or math.isinf(timeout):
        raise InvalidArgumentError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return max(1, math.ceil(timeout * 1000))


class Script:
    """A Lua script registered with :meth:`ClientCommands.register_script`.

    Calling it runs ``EVALSHA`` routed by its keys (all in one slot); a node
    that answers ``NOSCRIPT`` gets ``SCRIPT LOAD`` of the body and the call
    once more. ``read_only=True`` sends ``EVALSHA_RO``, which a replica may
    serve.
    """

    def __init__(self, client: "ClientCommands", body: Union[str, bytes]) -> None:
        self._client = client
        self._script = _native.Script(body)

    @property
    def sha(self) -> str:
        """The SHA1 of the body, as ``EVALSHA`` names it."""
        return self._script.sha

    def __call__(
        self,
        keys: Sequence[KeyT] = (),
        args: Sequence[Arg] = (),
        read_only: bool = False,
        timeout: Optional[float] = None,
    ) -> Any:
        return self._client.eval_script(self._script, read_only, keys, args, _timeout_ms(timeout))


class Pinned:
    """A connection pinned to the master of one slot, for a transaction::

        with client.pinned("{user:1}") as p:
            p.watch("{user:1}:balance")
            balance = int(p.execute_command("GET", "{user:1}:balance"))
            p.multi()
            p.execute_command("SET", "{user:1}:balance", balance - 10)
            if p.execute() is None:
                ...  # the balance changed since WATCH: retry

    Each command's keys are its arguments at ``keys`` (positions; by default
    the first argument after the command name, none for a command alone); a
    key of another slot raises :class:`cloudroute.InvalidArgumentError`
    (CROSSSLOT) before the command is sent. Closing (or leaving the ``with``)
    discards an open MULTI and drops a WATCH.
    """

    def __init__(self, pinned: _native.Pinned) -> None:
        self._pinned = pinned

    @property
    def slot(self) -> int:
        """The pinned slot."""
        return self._pinned.slot

    def execute_command(
        self, *args: Arg, keys: Optional[Sequence[int]] = None, timeout: Optional[float] = None
    ) -> Any:
        """Any command on the pinned connection (``QUEUED`` inside MULTI)."""
        positions = keys if keys is not None else ((1,) if len(args) > 1 else ())
        return self._pinned.command(positions, args, _timeout_ms(timeout))

    def watch(self, *names: KeyT) -> bool:
        """WATCH names (all in the pinned slot)."""
        return bool(self.execute_command("WATCH", *names, keys=range(1, len(names) + 1)) == "OK")

    def unwatch(self) -> bool:
        """UNWATCH."""
        return bool(self.execute_command("UNWATCH") == "OK")

    def multi(self) -> bool:
        """MULTI: the commands up to execute() are queued."""
        return bool(self.execute_command("MULTI") == "OK")

    def execute(self) -> Optional[List[Any]]:
        """EXEC: the replies in order, or None when a WATCHed key changed."""
        result: Optional[List[Any]] = self.execute_command("EXEC")
        return result

    def discard(self) -> bool:
        """DISCARD the queued commands."""
        return bool(self.execute_command("DISCARD") == "OK")

    def close(self) -> None:
        """Release the connection. Idempotent."""
        self._pinned.close()

    def __enter__(self) -> "Pinned":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()


class ClientCommands(_native.Client):
    """The commands of this module; :class:`cloudroute.Client` inherits them."""

    def execute_on_nodes(
        self,
        *args: Arg,
        node: Optional[str] = None,
        target: str = "masters",
        timeout: Optional[float] = None,
        raise_on_error: bool = True,
    ) -> Dict[str, Any]:
        """A keyless command on chosen nodes: ``node="host:port"``, or
        ``target="masters"`` (every master) or ``"all"`` (every node)::

            client.execute_on_nodes("FLUSHALL", target="masters")
            client.execute_on_nodes("INFO", "replication", target="all")

        Returns ``{"host:port": reply}`` (masters in slot order, each followed
        by its replicas for ``"all"``). A node that answered with an error or
        not at all raises its exception (the first one, naming every failed
        node) unless ``raise_on_error=False``, which puts the exception in its
        place.
        """
        if node is not None:
            code = 0
        elif target in _TARGETS:
            code = _TARGETS[target]
        else:
            raise InvalidArgumentError(f"target must be 'masters' or 'all', not {target!r}")
        replies = self.command_nodes(code, node, args, _timeout_ms(timeout))
        out = {address: value for address, _role, value in replies}
        if raise_on_error:
            failed = [v for v in out.values() if isinstance(v, Exception)]
            if failed:
                raise failed[0]
        return out

    def dbsize(self) -> int:
        """DBSIZE summed over every master: the keys in the cluster."""
        return sum(int(v) for v in self.execute_on_nodes("DBSIZE", target="masters").values())

    def script_load(self, body: Union[str, bytes]) -> str:
        """SCRIPT LOAD on every master: the script's SHA1."""
        replies = self.execute_on_nodes("SCRIPT", "LOAD", body, target="masters")
        sha: bytes = next(iter(replies.values()))
        return sha.decode()

    def scan_iter(
        self,
        match: Optional[KeyT] = None,
        count: Optional[int] = None,
        _type: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Iterator[bytes]:
        """Every key of the cluster (as redis-py's ``scan_iter``): each shard
        scanned once, on the node a read would use (a local replica where the
        read policy prefers one), with MATCH / COUNT / TYPE."""
        scan = self.scan(match, count, _type, _timeout_ms(timeout))
        try:
            while True:
                batch = scan.next()
                if batch is None:
                    return
                yield from batch
        finally:
            scan.close()

    def register_script(self, body: Union[str, bytes]) -> Script:
        """A callable :class:`Script` (redis-py's ``register_script``)."""
        return Script(self, body)

    def fcall(  # type: ignore[override]
        self, function: str, numkeys: int, *keys_and_args: Arg, timeout: Optional[float] = None
    ) -> Any:
        """FCALL function numkeys keys... args..., routed by its keys."""
        return self._fcall(False, function, numkeys, keys_and_args, timeout)

    def fcall_ro(
        self, function: str, numkeys: int, *keys_and_args: Arg, timeout: Optional[float] = None
    ) -> Any:
        """FCALL_RO: as fcall, and a replica may serve it."""
        return self._fcall(True, function, numkeys, keys_and_args, timeout)

    def _fcall(
        self,
        read_only: bool,
        function: str,
        numkeys: int,
        keys_and_args: Sequence[Arg],
        timeout: Optional[float],
    ) -> Any:
        if isinstance(numkeys, bool) or not isinstance(numkeys, int):
            raise TypeError(f"numkeys must be an int, not {type(numkeys).__name__}")
        if not 0 <= numkeys <= len(keys_and_args):
            raise InvalidArgumentError(
                f"numkeys {numkeys} is not in 0-{len(keys_and_args)} (the arguments given)"
            )
        keys: Iterable[Arg] = keys_and_args[:numkeys]
        return super().fcall(
            function, read_only, keys, keys_and_args[numkeys:], _timeout_ms(timeout)
        )

    def pinned(self, key: KeyT) -> Pinned:
        """A connection pinned to the master of key's slot (see :class:`Pinned`)."""
        return Pinned(self.pin(key))
