"""The tables in Redis (or Valkey), through redis-py's asyncio client: `--store redis://…`.

Keys (`cantina:` by default, then the table's code in braces, so a Redis Cluster keeps a
table's keys on one node and the append script may touch them together):

- `cantina:tables`, a set: the codes of the open tables (the lobby's index).
- `cantina:{CODE}:table`, a hash: `record` (the table's setup and seats, JSON) and
  `version` (how many decisions its log holds).
- `cantina:{CODE}:log`, a stream: one item per decision, its ID `0-N` for decision N and
  its field `e` the entry (JSON); a host that follows the table reads it from any ID on.

A decision is appended by one Lua script, which checks the table's version, adds the item
and bumps the version at once: a host applying a decision to a version no longer current
is refused. A call that cannot reach Redis raises `StoreAway`; the store says so to its
listeners, and again when a call gets through.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from cantina.store.memory import StatusListener, StoreAway
from cantina.store.records import (
    Entry,
    StoredTable,
    TableRecord,
    decode_entry,
    decode_record,
    encode,
)

log = logging.getLogger("cantina.store")

T = TypeVar("T")

APPEND = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return -1 end
version = tonumber(version)
if version ~= tonumber(ARGV[1]) then return version end
redis.call('XADD', KEYS[2], '0-' .. (version + 1), 'e', ARGV[2])
redis.call('HSET', KEYS[1], 'version', version + 1)
return -2
"""
"""Append entry ARGV[2] if the table's version is ARGV[1]: -2 when appended, -1 when the
table is not there, else the table's version (the entry came too late)."""

RETRY_WRITES = 0.5
"""Seconds between tries of a record that could not be written (Redis away)."""
AWAY_ERRORS = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)


class RedisStore:
    """Shared tables kept in one Redis (see the module's notes)."""

    durable = True

    def __init__(self, client: aioredis.Redis, *, prefix: str = "cantina:") -> None:
        self.client = client
        self.prefix = prefix
        self.available = True
        self._reached = False
        self._listeners: list[StatusListener] = []
        self._append = client.register_script(APPEND)
        self._waiting: dict[str, TableRecord | None] = {}
        """Records to write (None: a table to forget), newest only, by code."""
        self._writing = asyncio.Lock()
        self._woken = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 2.0) -> RedisStore:
        """A store at `redis://HOST:PORT/DB` (ValueError for an address it cannot read).
        No retries inside the client: a call that fails says so at once, and the host
        decides what waits."""
        try:
            client = aioredis.Redis.from_url(
                url,
                socket_connect_timeout=timeout,
                socket_timeout=timeout,
                retry=Retry(NoBackoff(), 0),
            )
        except (ValueError, RedisError) as err:
            raise ValueError(f"--store: the address cannot be read ({err})") from None
        return cls(client)

    # --- keys ------------------------------------------------------------------------------

    @property
    def index(self) -> str:
        return f"{self.prefix}tables"

    def table_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:table"

    def log_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:log"

    # --- reaching Redis --------------------------------------------------------------------

    def on_status(self, listener: StatusListener) -> None:
        self._listeners.append(listener)

    def _status(self, available: bool) -> None:
        if available != self.available:
            self.available = available
            if self._reached:  # not before it ever answered: the host says so as it starts
                log.warning("redis is %s", "back" if available else "out of reach")
            for listener in list(self._listeners):
                try:
                    listener(available)
                except Exception:
                    log.exception("a store listener failed")

    async def _call(self, call: Awaitable[T]) -> T:
        try:
            result = await call
        except AWAY_ERRORS as err:
            self._status(False)
            raise StoreAway(str(err) or type(err).__name__) from None
        self._status(True)
        self._reached = True
        return result

    async def ping(self) -> None:
        """Reach Redis once (StoreAway if it cannot be): a host checks as it starts."""
        await self._call(self.client.ping())

    # --- tables ----------------------------------------------------------------------------

    async def load(self) -> list[StoredTable]:
        members: Any = await self._call(self.client.smembers(self.index))
        codes = sorted(bytes(c).decode() for c in members)
        found: list[StoredTable] = []
        for code in codes:
            raw: Any = await self._call(self.client.hget(self.table_key(code), "record"))
            if raw is None:
                continue
            try:
                record = decode_record(raw)
                entries = await self.entries(code)
            except ValueError as err:  # damaged: said, and left where it is
                log.warning("table %s in redis cannot be read: %s", code, err)
                continue
            found.append(StoredTable(record, entries))
        return found

    def save(self, record: TableRecord) -> None:
        self._waiting[record.code] = record
        self._wake_writer()

    def drop(self, code: str) -> None:
        self._waiting[code] = None
        self._wake_writer()

    def _wake_writer(self) -> None:
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_all())
        self._woken.set()

    async def _write_all(self) -> None:
        """Write every waiting record, in the order they came, until none waits; while
        Redis is away, try again every RETRY_WRITES seconds."""
        while self._waiting:
            self._woken.clear()
            code = next(iter(self._waiting))
            try:
                await self._flush(code)
            except StoreAway:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._woken.wait(), RETRY_WRITES)
                await asyncio.sleep(RETRY_WRITES / 5)

    async def _flush(self, code: str) -> None:
        """Write the table's waiting record, if one waits (StoreAway: it waits still)."""
        async with self._writing:
            if code not in self._waiting:
                return
            record = self._waiting[code]
            async with self.client.pipeline(transaction=True) as pipe:
                if record is None:
                    pipe.srem(self.index, code)
                    pipe.delete(self.table_key(code), self.log_key(code))
                else:
                    pipe.hset(self.table_key(code), "record", encode(record))
                    pipe.hsetnx(self.table_key(code), "version", 0)
                    pipe.sadd(self.index, code)
                await self._call(pipe.execute())
            if self._waiting.get(code, record) is record:  # nothing newer came meanwhile
                self._waiting.pop(code, None)

    async def append(self, code: str, version: int, entry: Entry) -> bool:
        await self._flush(code)  # the table's record first: its setup, before decisions
        answer: Any = await self._call(
            self._append(
                keys=[self.table_key(code), self.log_key(code)], args=[version, encode(entry)]
            )
        )
        return int(answer) == -2

    async def entries(self, code: str, after: int = 0) -> list[Entry]:
        items: Any = await self._call(self.client.xrange(self.log_key(code), min=f"(0-{after}"))
        try:
            return [decode_entry(fields[b"e"]) for _, fields in items]
        except (KeyError, ValueError) as err:
            raise ValueError(f"a damaged log: {err}") from None

    async def close(self) -> None:
        """Write what waits (if Redis can be reached, within a few seconds), let go."""
        try:
            async with asyncio.timeout(3):
                for code in list(self._waiting):
                    with contextlib.suppress(StoreAway):
                        await self._flush(code)
        except TimeoutError:
            log.warning("redis: %d table records were not written", len(self._waiting))
        if self._writer is not None:
            self._writer.cancel()
        await self.client.aclose()
