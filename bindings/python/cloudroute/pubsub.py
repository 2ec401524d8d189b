"""Publish / subscribe on a :class:`cloudroute.Client`.

>>> with client.subscribe(channels=["news"], patterns=["user:*"], shard_channels=["{s}orders"]) as sub:
...     for msg in sub:
...         if msg.type == cloudroute.MessageType.MESSAGE:
...             print(msg.channel, msg.payload)

A :class:`Subscription` has connections and a thread of its own (never the
client's pooled connections). Channels and patterns share one connection to
the node a read would use first (the read policy's order: a local replica
first); a shard channel is subscribed on its slot's shard, on the node a read
of the slot would use. When a name loses its subscription — its node failed,
its slot moved — a ``MOVING`` event comes with the reason, then, once it is
subscribed on the next node, a ``RESUBSCRIBED`` event naming that node: every
message published after that event is delivered (messages published while it
was moving may be lost). The placement and the resubscription run in the C
library (``cr_client_subscribe``, ``cr_subscription_*``).

Messages and events arrive in order as :class:`cloudroute.Message` records:
``type`` (:class:`cloudroute.MessageType`), ``kind``
(:class:`cloudroute.ChannelKind`), ``channel`` (bytes: a message's channel, an
event's name), ``pattern`` (bytes or None), ``payload`` (bytes, None for
events), ``node`` (``"host:port"``) and ``reason`` (a ``MOVING`` event's).
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, List, Optional, Union

from . import _native
from ._lifecycle import Closing
from ._native import Message
from ._types import ChannelKind, MessageType
from .errors import InvalidArgumentError

__all__ = ["ChannelKind", "Message", "MessageType", "Subscription", "Names"]

#: A name (channel, pattern or shard channel): bytes, str (UTF-8) or a bytes-like object.
Name = Union[bytes, str, bytearray, memoryview]
#: One name, or an iterable of them.
Names = Union[Name, Iterable[Name]]

def _names(names: Names) -> List[Name]:
    if isinstance(names, (str, bytes, bytearray, memoryview)):
        return [names]
    return list(names)


def _timeout_ms(timeout: Optional[float]) -> Optional[int]:
    """A wait in seconds (None: no bound) as milliseconds."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds or None, not {type(timeout).__name__}")
    if not timeout >= 0:
        raise InvalidArgumentError(f"timeout must be 0 or more seconds, not {timeout!r}")
    return min(int(timeout * 1000 + 0.999), 0xFFFFFFFE)


class Subscription(Closing):
    """Messages of channels, patterns and shard channels (from
    :meth:`cloudroute.Client.subscribe`).

    Iterating gives every message and event as a :class:`cloudroute.Message`,
    waiting for the next one, until the subscription is closed;
    :meth:`get_message` waits at most ``timeout`` seconds. Waiting releases
    the GIL, and on the main thread Ctrl-C ends it (KeyboardInterrupt).

    Thread-safe: :meth:`add`, :meth:`remove` and :meth:`close` may be called
    from any thread while another waits for a message (a close makes every
    waiter return None, and its iteration end). ``with client.subscribe(...)
    as sub:`` closes it on exit. It keeps its client's connections open until
    it is closed.
    """

    def __init__(self, native: _native.Subscription) -> None:
        self._sub = native

    def add(self, channels: Names = (), patterns: Names = (), shard_channels: Names = ()) -> None:
        """Subscribes more names. Returns at once: each name's ``SUBSCRIBED``
        event (or ``MOVING``, while its node cannot be reached) follows. A name
        already subscribed is left as it is."""
        self._each(self._sub.add, channels, patterns, shard_channels)

    def remove(self, channels: Names = (), patterns: Names = (), shard_channels: Names = ()) -> None:
        """Unsubscribes names; each subscribed one gives an ``UNSUBSCRIBED``
        event (its messages already received stay to be read)."""
        self._each(self._sub.remove, channels, patterns, shard_channels)

    @staticmethod
    def _each(
        call: Callable[[int, List[Name]], None], channels: Names, patterns: Names, shard_channels: Names
    ) -> None:
        # By ChannelKind's C value: CHANNEL 0, PATTERN 1, SHARD 2.
        for kind, names in enumerate((channels, patterns, shard_channels)):
            listed = _names(names)
            if listed:
                call(kind, listed)

    def get_message(self, timeout: Optional[float] = None) -> Optional[Message]:
        """The next message or event; waits at most ``timeout`` seconds (None:
        until one comes; 0: not at all). None when none came in time, or once
        the subscription is closed."""
        return self._sub.next(_timeout_ms(timeout))

    def __iter__(self) -> Iterator[Message]:
        return self

    def __next__(self) -> Message:
        msg = self._sub.next(None)
        if msg is None:
            raise StopIteration
        return msg

    @property
    def closed(self) -> bool:
        return self._sub.closed

    def close(self) -> None:
        """Closes the subscription's connections and thread (nothing is sent to
        unsubscribe: the servers see the connections close); messages not read
        yet are dropped. Idempotent."""
        self._sub.close()

    def __repr__(self) -> str:
        return f"<cloudroute.Subscription{' closed' if self.closed else ''}>"

