"""The interface of a table store, and the one in the host's memory (the default).

A store keeps each shared table's record (`save`, written behind: the lobby does not wait
for it, yet it lands before the table's next decision) and its log of decisions, to
which `append` adds one only if the table's version is still the one the host applied it
to: a stale decision is refused, as an illegal action is. A host reads every open table
back with `load` as it starts, with when each absent player went away (`seat_away`), so
the stand-in's grace counts on from then. `StoreAway` says the store cannot be reached
just now.

The store in memory is what `cantina serve` uses with no `--store`: it is not durable, so
the lobby records nothing in it and the tables live and die with the host process, as
they always have. Made `durable=True`, it keeps every record and log in memory, which
lets the tests run the recording path without a Redis.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol

from cantina.store.records import Entry, StoredTable, TableRecord

StatusListener = Callable[[bool], None]
"""Told True when the store can be reached again after it could not, False when not."""


class StoreAway(Exception):
    """The store cannot be reached now: nothing was changed, or it is not known whether
    it was (a lost answer), so the same call may be made again."""


def stop_if_cancelled() -> None:
    """End the task running this if it was asked to stop. A call to Redis cut short by
    the cancel can come out as a lost connection (StoreAway), and Python 3.11's
    `wait_for` (redis-py runs each command under one when the client has a socket
    timeout) drops a cancel that comes as the command's answer does, leaving the task
    running but still `cancelling()`: the lobby's loops, which go on when Redis is away
    and whose calls succeed while it is there, would then go on for ever after the host
    stopped them (and hold up the host's exit, or a test's teardown, 600 s in a CI run).
    So each loop calls this at every turn, not only when a call fails."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class TableLost(ValueError):
    """The store has lost a table a host still plays (a Redis emptied meanwhile)."""


class TableStore(Protocol):
    """Where shared tables are kept (see the module's notes)."""

    @property
    def durable(self) -> bool:
        """Whether tables outlive the host: the lobby records decisions only if so."""

    @property
    def available(self) -> bool:
        """Whether the last call reached the store."""

    async def load(self) -> list[StoredTable]:
        """Every open table, with its log, for a host that starts (StoreAway)."""

    def save(self, record: TableRecord, *, new: bool = False) -> None:
        """Keep a table's record (its newest only; it lands before the next append);
        `new` for a table just opened (a shared store opens no other)."""

    def drop(self, code: str) -> None:
        """Forget a closed table, its record and log."""

    def seat_away(self, code: str, seat: int, since: float | None) -> None:
        """Keep when a started table's seat's player went away (`since`, on the event
        loop's clock; the earliest a host says), or that they are back (None): written
        behind, as `save`, and read back with the table (`StoredTable.away`)."""

    async def append(self, code: str, version: int, entry: Entry) -> bool:
        """Add `entry` as the table's decision number `version + 1` if the table's version
        is `version` still; False, and nothing changes, if not (StoreAway)."""

    async def entries(self, code: str, after: int = 0) -> list[Entry]:
        """The table's decisions after the first `after`, in order (StoreAway)."""

    def on_status(self, listener: StatusListener) -> None:
        """Be told when the store goes away and when it is back."""

    async def close(self) -> None:
        """Write what waits, as far as the store can be reached, and let go of it."""


class InProcessStore:
    """The tables in the host's own memory (see the module's notes)."""

    def __init__(self, *, durable: bool = False) -> None:
        self.durable = durable
        self.records: dict[str, TableRecord] = {}
        self.logs: dict[str, list[Entry]] = {}
        self.gone: dict[str, dict[int, float]] = {}
        """When each seat's player went away, by table (`time.monotonic`)."""
        self.away = False
        """Tests set it: every call then raises StoreAway, as a Redis that went would."""
        self._listeners: list[StatusListener] = []
        self._was_available = True

    @property
    def available(self) -> bool:
        return not self.away

    def _reach(self) -> None:
        if self.away != (not self._was_available):
            self._was_available = not self.away
            for listener in list(self._listeners):
                listener(self._was_available)
        if self.away:
            raise StoreAway("the store is away (a test said so)")

    async def load(self) -> list[StoredTable]:
        self._reach()
        return [
            StoredTable(record, list(self.logs.get(code, [])), self._away_of(code))
            for code, record in self.records.items()
        ]

    def _away_of(self, code: str) -> dict[int, float]:
        now = time.monotonic()
        return {seat: max(now - at, 0.0) for seat, at in self.gone.get(code, {}).items()}

    def save(self, record: TableRecord, *, new: bool = False) -> None:
        if self.durable:
            self.records[record.code] = record

    def drop(self, code: str) -> None:
        self.records.pop(code, None)
        self.logs.pop(code, None)
        self.gone.pop(code, None)

    def seat_away(self, code: str, seat: int, since: float | None) -> None:
        if not self.durable or code not in self.records:
            return
        seats = self.gone.setdefault(code, {})
        if since is None:
            seats.pop(seat, None)
            return
        at = time.monotonic() - (asyncio.get_running_loop().time() - since)
        seats[seat] = min(at, seats.get(seat, at))

    async def append(self, code: str, version: int, entry: Entry) -> bool:
        self._reach()
        log = self.logs.setdefault(code, [])
        if len(log) != version:
            return False
        log.append(entry)
        return True

    async def entries(self, code: str, after: int = 0) -> list[Entry]:
        self._reach()
        return list(self.logs.get(code, [])[after:])

    def on_status(self, listener: StatusListener) -> None:
        self._listeners.append(listener)

    async def close(self) -> None:
        return None


class Journal:
    """One table's log as one host follows it: the version it has applied so far, and
    the way to record a decision (`record`) under that version."""

    def __init__(self, store: TableStore, code: str, version: int = 0) -> None:
        self.store = store
        self.code = code
        self.version = version
        """How many entries of the table's log this host has applied."""
        self.lock = asyncio.Lock()
        """Held while the version moves: a decision recorded here, or decisions another
        host recorded, read from the table's stream (`Dealer.absorb`)."""

    async def record(self, entry: Entry, at: int | None = None) -> tuple[list[Entry], bool]:
        """Append `entry`, a decision made when this host had applied `at` entries of the
        log (its version then: now, if None). The entries to apply now, in order (the
        log's since this host's version: just `entry` when it was accepted, else what
        other appliers recorded first), and whether `entry` is among them. A call whose
        answer was lost (StoreAway) may be made again with the same entry: it is found in
        the log then, and applied once. The caller applies the entries at once (with no
        await between: no other applier comes between).

        If this host has applied more than `at` entries meanwhile (read from the table's
        stream while this call waited for the lock, or while the store was away), nothing
        is appended: the decision was made on a table that has moved on, and appended now
        it would be applied to a state it was not made for (a seat acting out of turn), or
        twice. Among those entries (its first try's answer lost, the entry itself read
        back from the stream) it was taken, with nothing left to apply; else refused."""
        async with self.lock:
            if at is not None and at < self.version:
                since = await self.store.entries(self.code, at)
                return [], any(e.id == entry.id for e in since[: self.version - at])
            return await self._record(entry)

    async def _record(self, entry: Entry) -> tuple[list[Entry], bool]:
        if await self.store.append(self.code, self.version, entry):
            self.version += 1
            return [entry], True
        landed = await self.store.entries(self.code, self.version)
        if not landed:  # refused, yet nobody got there first: the table is not there
            raise TableLost(
                "the table store no longer has this table (closed by another host, or its"
                " Redis started again without its data), so it cannot go on"
            )
        self.version += len(landed)
        return landed, any(e.id == entry.id for e in landed)
