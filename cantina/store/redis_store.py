"""The tables in Redis (or Valkey), through redis-py's asyncio client: `--store redis://…`.

Keys (`cantina:` by default, then the table's code in braces, so a Redis Cluster keeps a
table's keys on one node and the append script may touch them together):

- `cantina:tables`, a set: the codes of the open tables (the lobby's index).
- `cantina:{CODE}:table`, a hash: `record` (the table's setup and seats, JSON) and
  `version` (how many decisions its log holds).
- `cantina:{CODE}:log`, a stream: one item per decision, its ID `0-N` for decision N and
  its field `e` the entry (JSON); a host that follows the table reads it from any ID on.
- `cantina:{CODE}:seats`, a hash: who sits at each seat (JSON), claimed by one script, so
  two hosts cannot give one seat to two people (`seat`).
- `cantina:{CODE}:here`, a hash: who follows the table from some host, each until when
  (ms on Redis's own clock, so hosts' clocks need not agree); `cantina:{CODE}:ai`: the
  lease of the host that plays the AI seats (`beat`).
- `cantina:{CODE}:away`, a hash: when each seat's player went away from the started
  table (ms on Redis's clock, the earliest a host said; `AWAY`), so a host that takes the
  table up after every host restarted counts the stand-in's grace from then.
- `cantina:{CODE}:code`: a join code a host has drawn and holds for its next tables
  (`reserve`, renewed at each beat): two hosts opening tables at once never share a code.
- `cantina:lobby:chat` and `cantina:{CODE}:chat`, capped streams: the lines said in the
  lobby and at each table, through any host (`say`), read by every host in `follow`.
- `cantina:lobby`, a stream: one item (`c`, the code) each time a table's record or seats
  change or it closes, so every host's lobby learns of it at once (`follow`).

A decision is appended by one Lua script, which checks the table's version, adds the item
and bumps the version at once: a host applying a decision to a version no longer current
is refused. A call that cannot reach Redis raises `StoreAway`; the store says so to its
listeners, and again when a call gets through.

Every script is sent by its digest (EVALSHA), loaded as the host starts and again, all of
them at once, when Redis says it lacks one (it was started again without them): not as
redis-py runs a pipeline's scripts, which asks Redis first whether it has them (SCRIPT
EXISTS), a round trip more at every beat.

A single script (a decision's append above all) goes through a connection of the store's
own (`Line`), not the client's pool: see there why.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, TypeVar

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import AuthenticationError, NoScriptError, RedisError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from cantina.store.memory import StatusListener, StoreAway, stop_if_cancelled
from cantina.store.patience import patient_timeout
from cantina.store.records import (
    Entry,
    SeatedRecord,
    StoredTable,
    TableRecord,
    decode_entry,
    decode_record,
    encode,
)
from cantina.store.redis_compat import take_idle
from cantina.tasks import detached

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

KEEP = """
if ARGV[4] == '1' then
  local holder = redis.call('GET', KEYS[5])
  if holder and holder ~= ARGV[6] then return -1 end
  local maker = redis.call('HGET', KEYS[1], 'host')
  if redis.call('EXISTS', KEYS[1]) == 1 and maker ~= ARGV[6] then return -1 end
  redis.call('HSET', KEYS[1], 'host', ARGV[6])
end
if ARGV[2] ~= '1' and redis.call('HGET', KEYS[1], 'started') == '1' then return 0 end
if ARGV[2] ~= '1' and ARGV[4] ~= '1' and redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1])
redis.call('HSETNX', KEYS[1], 'version', 0)
if ARGV[2] == '1' and redis.call('HGET', KEYS[1], 'started') ~= '1' then
  redis.call('HSET', KEYS[1], 'started', '1')
  redis.call('DEL', KEYS[4])
  for seat, who in pairs(cjson.decode(ARGV[5])) do
    redis.call('HSET', KEYS[4], seat, cjson.encode(who))
  end
end
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', 10000, '*', 'c', ARGV[3])
return 1
"""
"""Keep a table's record ARGV[1] (started: ARGV[2] is '1'; a new table: ARGV[4] is '1'),
unless the table has started and this record is one from before, or it is gone and this
is not a new one: a host that had not heard of the start (or the close) yet does not take
the table back to its waiting room (or open it again). A table starts through START, which
checks its seats first; a started record reaching a table Redis has not started (written by
a host of an older version) sets its seats as played (ARGV[5]). The lobby is told. A new
table's record is refused (-1) if another host holds its code (KEYS[5]) or made a table
under it: this host's hold on the code lapsed while Redis was out of its reach
(RESERVE_MS), and the code went to another; the table made under it notes its host
(ARGV[6]), so this host's own write made again is not refused."""

_APPEND_AFTER = APPEND.replace("KEYS[2]", "KEYS[6]")
KEEP_AND_APPEND = (
    f"local kept = (function()\n{KEEP}end)()\nif kept == -1 then return -3 end\n"
    + _APPEND_AFTER.replace("ARGV[1]", "ARGV[7]").replace("ARGV[2]", "ARGV[8]")
)
"""KEEP (KEYS[1..5], ARGV[1..6]), then APPEND (the log KEYS[6], the version ARGV[7], the
entry ARGV[8]) unless KEEP refused the record (-3): a table's first decision after its
record changed (its start) goes in one round trip, not two."""

START = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'started') == '1' then return 0 end
local want = cjson.decode(ARGV[3])
local held = redis.call('HGETALL', KEYS[4])
local count = 0
for i = 1, #held, 2 do
  if want[held[i]] ~= cjson.decode(held[i + 1]).identity then return -2 end
  count = count + 1
end
for _ in pairs(want) do count = count - 1 end
if count ~= 0 then return -2 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'started', '1')
redis.call('HSETNX', KEYS[1], 'version', 0)
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', 10000, '*', 'c', ARGV[2])
return 1
"""
"""Start table ARGV[2] with its record ARGV[1] (its setup as played), if the seats hash
KEYS[4] holds exactly the people ARGV[3] (seat: identity) the record was dealt for: 1 when
started (and the lobby told), -2 when the seats changed (a claim through another host
landed first: the host deals again from the seats as Redis has them), 0 when it has
started already, -1 when the table is gone. A claim that comes after the start is refused
by SEAT: no seat Redis gave is ever left out of the game, and none is given after."""

SEAT = """
local seat, who, mode = ARGV[1], ARGV[2], ARGV[4]
local held = redis.call('HGET', KEYS[2], seat)
local holder = held and cjson.decode(held).identity or nil
if mode == 'sit' then
  if redis.call('HGET', KEYS[1], 'started') == '1' then return 0 end
  if holder then return holder == who and 1 or 0 end
  for _, value in ipairs(redis.call('HVALS', KEYS[2])) do
    if cjson.decode(value).identity == who then return 0 end
  end
  redis.call('HSET', KEYS[2], seat, ARGV[3])
elseif mode == 'leave' then
  if holder ~= who then return 0 end
  redis.call('HDEL', KEYS[2], seat)
else
  if holder ~= ARGV[5] then return 0 end
  redis.call('HSET', KEYS[2], seat, ARGV[3])
end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', 10000, '*', 'c', ARGV[6])
return 1
"""
"""Change who sits at seat ARGV[1], as identity ARGV[2] (record ARGV[3]): `sit` takes a
free seat of a table not started (not a second seat for one person), `leave` frees one's
own, `reseat` gives the seat held by ARGV[5] to another (a guest's rejoin code). 1 when
done (and the lobby told), 0 when refused."""

AWAY = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', KEYS[2], ARGV[i])
  else
    local at = now - tonumber(ARGV[i + 1])
    local was = tonumber(redis.call('HGET', KEYS[2], ARGV[i]))
    if not was or at < was then redis.call('HSET', KEYS[2], ARGV[i], at) end
  end
end
return 1
"""
"""For each seat ARGV[i] of the table KEYS[1], its player went away ARGV[i + 1] ms ago
(kept in KEYS[2] on Redis's clock, the earliest said), or is back ('')."""

LEASE = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""
"""Take or keep the lease KEYS[1] for host ARGV[1], for ARGV[2] ms: 1 if it is held."""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
"""Let go of lease KEYS[1] if host ARGV[1] holds it."""

RESERVE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1
"""
"""Hold a join code for host ARGV[1] for ARGV[2] ms (or keep holding it): 1 if held, 0
when a table has the code or another host holds it."""

HERE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[1])
for i = 2, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], (now + ms) .. ':' .. ARGV[i + 1])
end
if #ARGV > 1 then redis.call('PEXPIRE', KEYS[1], ms * 3) end
local live = {}
local got = redis.call('HGETALL', KEYS[1])
for j = 1, #got, 2 do
  local value = got[j + 1]
  local colon = string.find(value, ':', 1, true)
  local expiry = colon and tonumber(string.sub(value, 1, colon - 1))
  if expiry and expiry > now then
    live[#live + 1] = got[j]
    live[#live + 1] = string.sub(value, colon + 1)
  end
end
return live
"""
"""Say that each (who, name) of ARGV[2..] follows the table of presence hash KEYS[1] for
ARGV[1] ms more; who follows it now, as a flat who, name list. Every expiry is set and
read on Redis's clock (TIME), so hosts whose clocks disagree still agree on who is here."""

ScriptCall = tuple[AsyncScript, list[str], list[Any]]
"""A script to run, with its keys and arguments."""

RESERVE_MS = 60_000
"""How long a drawn code stays a host's unless renewed (each beat, or the table's
record lands under it)."""
LEASE_MS = 4000
"""How long a host's lease on a table's AI seats lasts unless renewed (every beat)."""
HERE_MS = 4000
"""How long a host's word that someone follows a table holds unless said again."""
BEAT_CHUNK = 16
"""Scripts a beat sends in one round trip at most: a round trip's answers are read and
decoded in one step of the event loop, in which no keystroke is answered (with 44 tables,
a beat's 89 scripts in one round trip held the loop for 5 ms on a quiet machine, 13 to 19
ms in a busy benchmark run; in round trips of 16, for about 1 ms at a time)."""


class Seating(msgspec.Struct, frozen=True):
    """Who sits at a seat, as the seats hash keeps it."""

    identity: str
    name: str
    rejoin: str = ""


def seats_of(record: TableRecord) -> bytes:
    """A record's seats as the seats hash keeps them (JSON, by seat)."""
    seats = {
        str(seat): Seating(who.identity, who.name, record.rejoin.get(seat, ""))
        for seat, who in record.seated.items()
    }
    return msgspec.json.encode(seats)


class Said(msgspec.Struct, frozen=True):
    """A line of chat as its stream keeps it: the host it was said through, and the line."""

    host: str
    identity: str
    name: str
    text: str
    watching: bool = False


CHAT_KEEP = 200
"""Lines each room's stream keeps (about: trimmed as Redis finds cheap)."""


class Changes(NamedTuple):
    """What `follow` read: the lobby's tables that changed, new log entries by table
    (each with its number in the log), and new chat by room ("" the lobby's; with the
    ID read up to)."""

    lobby_id: str
    tables: set[str]
    logs: dict[str, list[tuple[int, Entry]]]
    chat: dict[str, tuple[str, list[Said]]]


RETRY_WRITES = 0.5
"""Seconds between tries of a record that could not be written (Redis away)."""
AWAY_ERRORS = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)


class Line:
    """The store's own connection to Redis for one script at a time (a decision's append
    above all), beside the client's pool. Through the pool, redis-py takes a connection
    and checks it, then gives it back, at every command, and with a socket timeout set (as
    the pool had one, before the store's limit took its place) it runs each write as a
    task of its own under `asyncio.wait_for`: two turns of the event loop more. A profile
    of `Journal.record` on a quiet 2-core VM (medians): 0.30 ms, of it 0.08 ms the write's
    task and 0.03 ms the pool; through this connection, 0.18 ms (0.07 ms of it the
    socket's send); a bare asyncio socket sending the same EVALSHA, 0.14 ms. No socket
    timeout here or in the pool now: the store's one limit guards each whole call
    (`RedisStore._call`, patient with the host's own stalls). A call that finds this
    connection busy (another table's decision waits on it) goes through the pool instead,
    not after it.

    It is redis-py's own connection (its packing, parsing, handshake, errors): made from
    the pool's settings, connected at its first call, and again after a call that lost
    it; closed by Redis (started again), it is found so before a call is sent, and
    connects again. (redis-py 8.1's pool skips that check while it awaits maintenance
    notices, its default: the pool's first call after a restart fails. redis-py #4252,
    #4260.)"""

    def __init__(self, client: aioredis.Redis) -> None:
        pool = client.connection_pool
        settings = dict(pool.connection_kwargs)
        settings["socket_timeout"] = None
        self.connection = pool.connection_class(**settings)
        self.busy = False

    async def call(self, *args: Any) -> Any:
        """Send one command (EVALSHA, say): its answer (redis-py's errors as they come:
        NoScriptError, ConnectionError). Cut short (cancelled: the caller's time limit),
        redis-py closes the connection, so a late answer is never read as the next
        call's."""
        line = self.connection
        self.busy = True
        try:
            if line.is_connected and await _closed_or_dirty(line):
                await line.disconnect()
            await line.send_packed_command(line.pack_command(*args), check_health=False)
            return await line.read_response()
        finally:
            self.busy = False

    async def close(self) -> None:
        await self.connection.disconnect()


async def _closed_or_dirty(connection: Any) -> bool:
    """Whether a connection was closed by Redis, or holds an answer no call read: the
    check redis-py's pool makes as it hands out a connection (`can_read`, named
    `can_read_destructive` before redis-py 8)."""
    check = getattr(connection, "can_read", None) or connection.can_read_destructive
    return bool(await check())


def _streams_read(answer: Any) -> list[tuple[bytes, list[tuple[bytes, dict[bytes, bytes]]]]]:
    """XREAD's answer as redis-py's `xread` gives it (each stream's key, and its entries:
    ID, fields), from Redis's own: None (nothing came), or each stream's key and entries
    (ID, then field and value after field and value), as a list or (RESP3) a map."""
    if not answer:
        return []
    streams = answer.items() if isinstance(answer, dict) else answer
    return [
        (key, [(entry, dict(zip(flat[::2], flat[1::2], strict=True))) for entry, flat in items])
        for key, items in streams
    ]


class StoreRefused(Exception):
    """Redis answered, with an error that trying again will not mend (a DB out of range,
    a password it wants, or a wrong one): the host cannot start on it."""


class RedisStore:
    """Shared tables kept in one Redis (see the module's notes)."""

    durable = True

    def __init__(
        self, client: aioredis.Redis, *, prefix: str = "cantina:", timeout: float | None = 2.0
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.timeout = timeout
        """Seconds a call may take (None: no limit), counted patiently (`patient_timeout`):
        the client has no socket timeout of its own."""
        self.available = True
        self._reached = False
        self._listeners: list[StatusListener] = []
        self.line = Line(client)
        """The connection of the store's own for single scripts (see `Line`)."""
        self.reader = Line(client)
        """The connection of the store's own for the lobby's blocking read (`follow`),
        whose timeout counts from the end of the block (see `follow`)."""
        self._append = client.register_script(APPEND)
        self._keep = client.register_script(KEEP)
        self._keep_append = client.register_script(KEEP_AND_APPEND)
        self._seat = client.register_script(SEAT)
        self._start = client.register_script(START)
        self._away = client.register_script(AWAY)
        self._lease = client.register_script(LEASE)
        self._release = client.register_script(RELEASE)
        self._reserve = client.register_script(RESERVE)
        self._here = client.register_script(HERE)
        self._scripts = [
            self._append,
            self._keep,
            self._keep_append,
            self._seat,
            self._start,
            self._away,
            self._lease,
            self._release,
            self._reserve,
            self._here,
        ]
        self._held: tuple[str, set[str]] = ("", set())
        """The host that beats through this store, and the leases it held at its last
        beat: let go of as the store closes, so another host takes over at once."""
        self._new: set[str] = set()
        self.host = ""
        """The host writing through this store (its lobby's `host_id`): a new table's
        record notes it, so that host's write made again is not taken for another's."""
        self._taken_listeners: list[Callable[[str], None]] = []
        """Tables opened here whose first record is still to be written."""
        self._waiting: dict[str, TableRecord | None] = {}
        """Records to write (None: a table to forget), newest only, by code."""
        self._writing = asyncio.Lock()
        self._woken = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._gone: dict[str, dict[int, float | None]] = {}
        """When seats' players went away (None: they are back) still to write, by table
        then seat, on the event loop's clock (`seat_away`)."""
        self._gone_writer: asyncio.Task[None] | None = None
        self._closed = False
        """Closed (`close`): the writers' loops, which go on while Redis is away, end (a
        cancel Python 3.11 dropped left one retrying on a closed client for ever)."""

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 2.0) -> RedisStore:
        """A store at `redis://HOST:PORT/DB` (ValueError for an address it cannot read).
        No retries inside the client: a call that fails says so at once, and the host
        decides what waits."""
        try:
            client = aioredis.Redis.from_url(
                url,
                # each call's limit is the store's (`_call`), a connect's within it: the
                # client's own, not patient with a busy host, cut connects short as a
                # crowd arrived ("Timeout connecting to server")
                socket_connect_timeout=None,
                socket_timeout=None,
                retry=Retry(NoBackoff(), 0),
            )
        except (ValueError, RedisError) as err:
            raise ValueError(f"--store: the address cannot be read ({err})") from None
        return cls(client, timeout=timeout)

    # --- keys ------------------------------------------------------------------------------

    @property
    def index(self) -> str:
        return f"{self.prefix}tables"

    def table_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:table"

    def log_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:log"

    def seats_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:seats"

    def here_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:here"

    def lease_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:ai"

    def away_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:away"

    def code_key(self, code: str) -> str:
        return f"{self.prefix}{{{code}}}:code"

    @property
    def lobby_key(self) -> str:
        return f"{self.prefix}lobby"

    def chat_key(self, room: str) -> str:
        """The stream of a room's chat: a table's code, or "" for the lobby."""
        return f"{self.prefix}{{{room}}}:chat" if room else f"{self.prefix}lobby:chat"

    # --- reaching Redis --------------------------------------------------------------------

    def on_status(self, listener: StatusListener) -> None:
        self._listeners.append(listener)

    def _status(self, available: bool, why: BaseException | None = None) -> None:
        """Redis answered (`available`), or a call could not reach it (`why`: said in
        the host's log, as a timeout and a refused connection call for different cures)."""
        if available != self.available:
            self.available = available
            if self._reached:  # not before it ever answered: the host says so as it starts
                if available:
                    log.warning("redis is back")
                else:
                    kind = type(why).__name__
                    log.warning(
                        "redis is out of reach (%s)", f"{kind}: {why}" if str(why) else kind
                    )
            for listener in list(self._listeners):
                try:
                    listener(available)
                except Exception:
                    log.exception("a store listener failed")

    async def _call(self, call: Awaitable[T], blocks: float = 0.0) -> T:
        """`call`'s answer, within the store's time limit (plus `blocks`, the seconds an
        XREAD's BLOCK may wait); StoreAway if Redis cannot be reached or does not answer,
        said to the listeners, as Redis answering again is."""
        limit = None if self.timeout is None else self.timeout + blocks
        try:
            async with patient_timeout(limit):
                result = await call
        except AWAY_ERRORS as err:
            self._status(False, err)
            raise StoreAway(str(err) or type(err).__name__) from None
        except ResponseError:  # Redis answered (NoScriptError, say): it is there
            await self._answered()
            raise
        await self._answered()
        return result

    async def _answered(self) -> None:
        """Redis answered a call: if it was out of reach, it is back (`_fresh_pool`)."""
        if not self.available:
            await self._fresh_pool()
        self._status(True)
        self._reached = True

    async def _fresh_pool(self) -> None:
        """Redis answers again after it was out of reach: the pool's idle connections,
        made before it went (if it was started again, closed at its end), are dropped, so
        the next calls connect afresh. redis-py 8.1's pool does not check a connection as
        it hands it out while it awaits maintenance notices, its default (redis-py #4252,
        #4260): each would fail once, and the host flap "out of reach", "back". They are
        taken out of the pool first, all at once (`take_idle`), and closed after: none is
        handed to a call as it closes."""
        for connection in take_idle(self.client.connection_pool):
            with contextlib.suppress(*AWAY_ERRORS):
                await connection.disconnect()

    async def ping(self) -> None:
        """Reach Redis once (StoreAway if it cannot be; StoreRefused if it answers with an
        error, as for a DB it does not have): a host checks as it starts. Its scripts are
        loaded at once too, so no decision pays the round trip of loading one."""
        try:
            async with patient_timeout(self.timeout):
                await self.client.ping()
                await self._load_scripts()
        except AuthenticationError as err:
            if "HELLO must be called" in str(err):  # no password given (RESP3's words)
                why = "it wants a password: redis://:PASSWORD@HOST:PORT/DB"
            else:
                why = str(err).rstrip(".")
            raise StoreRefused(why) from None
        except ResponseError as err:
            raise StoreRefused(str(err) or type(err).__name__) from None
        except AWAY_ERRORS as err:
            self._status(False, err)
            raise StoreAway(str(err) or type(err).__name__) from None

    async def _load_scripts(self) -> None:
        """Load every script in one round trip (RedisError as it comes)."""
        async with self.client.pipeline(transaction=False) as pipe:
            for script in self._scripts:
                pipe.script_load(script.script)
            await pipe.execute()

    async def _run(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Any:
        """Run one script by its digest (StoreAway), through the store's `Line` (the pool
        if it is busy); if Redis lacks it, every script is loaded and it is sent again
        (Redis ran nothing of it)."""
        try:
            return await self._call(self._send(script, keys, args))
        except NoScriptError:
            await self._call(self._load_scripts())
            return await self._call(self._send(script, keys, args))

    async def _send(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Any:
        if self.line.busy:
            return await self.client.evalsha(script.sha, len(keys), *keys, *args)
        return await self.line.call("EVALSHA", script.sha, len(keys), *keys, *args)

    async def _run_all(self, calls: list[ScriptCall]) -> list[Any]:
        """Run scripts in one round trip, by their digests, their answers in order
        (StoreAway). If Redis lacks one, every script is loaded and they are all sent
        again: only for scripts that may run twice (HERE, LEASE, RESERVE)."""
        try:
            return await self._pipelined(calls)
        except NoScriptError:
            await self._call(self._load_scripts())
            return await self._pipelined(calls)

    async def _pipelined(self, calls: list[ScriptCall]) -> list[Any]:
        async with self.client.pipeline(transaction=False) as pipe:
            for script, keys, args in calls:
                pipe.evalsha(script.sha, len(keys), *keys, *args)
            answers: list[Any] = await self._call(pipe.execute())
        return answers

    # --- tables ----------------------------------------------------------------------------

    async def load(self) -> list[StoredTable]:
        members: Any = await self._call(self.client.smembers(self.index))
        codes = sorted(bytes(c).decode() for c in members)
        found: list[StoredTable] = []
        for code in codes:
            stored = await self.table(code)
            if stored is not None:
                found.append(stored)
        return found

    async def codes(self) -> set[str]:
        """The codes of every open table (StoreAway)."""
        members: Any = await self._call(self.client.smembers(self.index))
        return {bytes(c).decode() for c in members}

    async def table(self, code: str, *, entries: bool = True) -> StoredTable | None:
        """One table with its seats as claimed (and its log, unless not asked): None when
        it is not there, or cannot be read (said in the log) (StoreAway)."""
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.hget(self.table_key(code), "record")
            pipe.hgetall(self.seats_key(code))
            pipe.hgetall(self.away_key(code))
            pipe.time()
            raw, seats, gone, (seconds, micros) = await self._call(pipe.execute())
        if raw is None:
            return None
        try:
            now = seconds * 1000 + micros // 1000
            away = {int(k): max(now - int(v), 0) / 1000 for k, v in gone.items()}
            record = decode_record(raw)
            if seats:
                held = {int(k): msgspec.json.decode(v, type=Seating) for k, v in seats.items()}
                record = msgspec.structs.replace(
                    record,
                    seated={k: SeatedRecord(s.identity, s.name) for k, s in held.items()},
                    rejoin={k: s.rejoin for k, s in held.items() if s.rejoin},
                )
            log_entries = await self.entries(code) if entries else []
        except (ValueError, msgspec.DecodeError) as err:  # damaged: said, and left there
            log.warning("table %s in redis cannot be read: %s", code, err)
            return None
        return StoredTable(record, log_entries, away)

    def save(self, record: TableRecord, *, new: bool = False) -> None:
        """Keep a table's record (behind: see the module's notes); `new` for a table just
        opened, the only record that may make one in Redis."""
        if new:
            self._new.add(record.code)
        self._waiting[record.code] = record
        self._wake_writer()

    def pending(self, code: str) -> bool:
        """Whether this host has a record of the table (or its closing) still to write."""
        return code in self._waiting

    def drop(self, code: str) -> None:
        self._waiting[code] = None
        self._gone.pop(code, None)
        self._wake_writer()

    def seat_away(self, code: str, seat: int, since: float | None) -> None:
        """Keep when a seat's player went away (`since`, on the loop's clock), or that they
        are back (None), in the table's away hash (AWAY), written behind in order; while
        Redis is away, tried again every RETRY_WRITES seconds."""
        self._gone.setdefault(code, {})[seat] = since
        if self._gone_writer is None or self._gone_writer.done():
            self._gone_writer = detached(self._write_gone())

    async def _write_gone(self) -> None:
        """Write every seat's going away (or coming back) that waits, until none does."""
        while self._gone and not self._closed:
            stop_if_cancelled()
            code = next(iter(self._gone))
            seats = self._gone.pop(code)
            now = asyncio.get_running_loop().time()
            args: list[Any] = []
            for seat, since in seats.items():
                args += [seat, "" if since is None else max(round((now - since) * 1000), 0)]
            try:
                await self._run(self._away, [self.table_key(code), self.away_key(code)], args)
            except StoreAway:
                stop_if_cancelled()
                if self._closed:
                    return
                waiting = self._gone.setdefault(code, {})
                for seat, since in seats.items():  # unless newer news of the seat came
                    waiting.setdefault(seat, since)
                await asyncio.sleep(RETRY_WRITES)

    def _wake_writer(self) -> None:
        if self._writer is None or self._writer.done():
            self._writer = detached(self._write_all())
        self._woken.set()

    async def _write_all(self) -> None:
        """Write every waiting record, in the order they came, until none waits; while
        Redis is away, try again every RETRY_WRITES seconds."""
        while self._waiting and not self._closed:
            stop_if_cancelled()
            self._woken.clear()
            code = next(iter(self._waiting))
            try:
                await self._flush(code)
            except StoreAway:
                stop_if_cancelled()
                if self._closed:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._woken.wait(), RETRY_WRITES)
                await asyncio.sleep(RETRY_WRITES / 5)

    def _keep_call(self, record: TableRecord) -> tuple[list[str], list[Any]]:
        """The keys and arguments of KEEP for a record."""
        code = record.code
        keys = [
            self.table_key(code),
            self.index,
            self.lobby_key,
            self.seats_key(code),
            self.code_key(code),
        ]
        args: list[Any] = [
            encode(record),
            "1" if record.started else "0",
            code,
            "1" if code in self._new else "0",
            seats_of(record),
            self.host,
        ]
        return keys, args

    def _kept(self, code: str, record: TableRecord | None) -> None:
        """The table's waiting record was written: it waits no more, unless a newer one
        came meanwhile."""
        self._new.discard(code)
        if self._waiting.get(code, record) is record:
            self._waiting.pop(code, None)

    async def _flush(self, code: str) -> bool:
        """Write the table's waiting record, if one waits (StoreAway: it waits still);
        False if it was a new table's, refused for its code (`_taken`)."""
        if code not in self._waiting:  # nothing of it waits, nor is on its way
            return True
        async with self._writing:
            if code not in self._waiting:
                return True
            record = self._waiting[code]
            if record is None:
                async with self.client.pipeline(transaction=True) as pipe:
                    pipe.srem(self.index, code)
                    pipe.delete(
                        self.table_key(code),
                        self.log_key(code),
                        self.seats_key(code),
                        self.away_key(code),
                        self.here_key(code),
                        self.lease_key(code),
                        self.code_key(code),
                        self.chat_key(code),
                    )
                    pipe.xadd(self.lobby_key, {"c": code}, maxlen=10000, approximate=True)
                    await self._call(pipe.execute())
            else:
                keys, args = self._keep_call(record)
                answer: Any = await self._run(self._keep, keys, args)
                if int(answer) == -1:
                    self._new.discard(code)
                    self._taken(code)
                    return False
            self._kept(code, record)
        return True

    def _taken(self, code: str) -> None:
        """This host's new table came too late for its code (see KEEP): nothing of it is
        written, and the host is told, to close it here and say why."""
        log.warning("table %s: its code went to another host while Redis was away", code)
        self._waiting.pop(code, None)
        for listener in list(self._taken_listeners):
            listener(code)

    def on_taken(self, listener: Callable[[str], None]) -> None:
        """Be told of a new table of this host whose code another host had taken."""
        self._taken_listeners.append(listener)

    async def flush(self) -> None:
        """Write every record waiting now, at once (StoreAway: they wait still)."""
        for code in list(self._waiting):
            await self._flush(code)

    async def append(self, code: str, version: int, entry: Entry) -> bool:
        """Add a decision (see APPEND), in one round trip: with the table's record first
        if one waits to be written (its setup, then its moves; see KEEP_AND_APPEND)."""
        if self._waiting.get(code) is not None:
            async with self._writing:
                record = self._waiting.get(code)
                if record is not None:
                    keys, args = self._keep_call(record)
                    keys.append(self.log_key(code))
                    args += [version, encode(entry)]
                    answer: Any = await self._run(self._keep_append, keys, args)
                    if int(answer) == -3:  # its code went to another host's table: nothing
                        self._new.discard(code)  # of it goes there
                        self._taken(code)
                        return False
                    self._kept(code, record)
                    return int(answer) == -2
        if not await self._flush(code):  # a table dropped here: gone from the store first
            return False
        keys = [self.table_key(code), self.log_key(code)]
        answer = await self._run(self._append, keys, [version, encode(entry)])
        return int(answer) == -2

    async def entries(self, code: str, after: int = 0) -> list[Entry]:
        items: Any = await self._call(self.client.xrange(self.log_key(code), min=f"(0-{after}"))
        try:
            return [decode_entry(fields[b"e"]) for _, fields in items]
        except (KeyError, ValueError) as err:
            raise ValueError(f"a damaged log: {err}") from None

    # --- many hosts ------------------------------------------------------------------------

    async def seat(
        self,
        code: str,
        seat: int,
        mode: str,
        who: Seating,
        before: str = "",
    ) -> bool:
        """Change a seat at once for every host (see SEAT): `sit`, `leave`, or `reseat`
        (from identity `before`); whether it was done (StoreAway)."""
        answer: Any = await self._run(
            self._seat,
            [self.table_key(code), self.seats_key(code), self.lobby_key],
            [seat, who.identity, msgspec.json.encode(who), mode, before, code],
        )
        return int(answer) == 1

    async def start(self, record: TableRecord) -> int:
        """Start a table as START does, its record written first if one of this host's
        waits: 1 started, -2 its seats in Redis are not the record's, 0 started already,
        -1 gone (StoreAway)."""
        code = record.code
        if not await self._flush(code):
            return -1
        seats = {str(seat): who.identity for seat, who in record.seated.items()}
        answer: Any = await self._run(
            self._start,
            [self.table_key(code), self.index, self.lobby_key, self.seats_key(code)],
            [encode(record), code, msgspec.json.encode(seats)],
        )
        return int(answer)

    async def reserve(self, host: str, codes: list[str]) -> set[str]:
        """Hold (or keep holding) join codes for `host`: those it holds now; a code a table
        has, or another host holds, is not among them. One round trip for them all: a host
        keeps a pool of them at every beat (StoreAway)."""
        if not codes:
            return set()
        answers = await self._run_all(
            [
                (self._reserve, [self.table_key(code), self.code_key(code)], [host, RESERVE_MS])
                for code in codes
            ]
        )
        return {code for code, answer in zip(codes, answers, strict=True) if int(answer) == 1}

    async def lobby_id(self) -> str:
        """The ID of the lobby's newest change, to follow it from (StoreAway)."""
        newest: Any = await self._call(self.client.xrevrange(self.lobby_key, count=1))
        return bytes(newest[0][0]).decode() if newest else "0-0"

    async def say(self, room: str, said: Said) -> None:
        """Add a line to a room's chat, for every host (StoreAway)."""
        line: Any = {"s": msgspec.json.encode(said)}
        await self._call(
            self.client.xadd(self.chat_key(room), line, maxlen=CHAT_KEEP, approximate=True)
        )

    async def follow(
        self,
        lobby_id: str,
        logs: dict[str, int],
        block_ms: int,
        chat: dict[str, str] | None = None,
    ) -> Changes:
        """Wait (up to `block_ms`) for the lobby to change after `lobby_id`, a table of
        `logs` (code: the version this host is at) to log a decision, or a room of `chat`
        (room: the ID read up to) to hear a line (StoreAway). Through a connection of
        its own (`reader`), its limit the block and the store's limit after it: a host
        whose loop was busy for more than the second left of it after a block that came
        back empty (a crowd logging in at once) took Redis for gone."""
        streams: dict[Any, Any] = {self.lobby_key: lobby_id}
        streams |= {self.log_key(code): f"0-{version}" for code, version in logs.items()}
        rooms = {self.chat_key(room): room for room in chat or {}}
        streams |= {key: (chat or {})[room] for key, room in rooms.items()}
        read = ["XREAD", "BLOCK", block_ms, "STREAMS", *streams, *streams.values()]
        answer = await self._call(self.reader.call(*read), blocks=block_ms / 1000)
        changes = Changes(lobby_id, set(), {}, {})
        by_key = {self.log_key(code): code for code in logs}
        for key, items in _streams_read(answer):
            name = bytes(key).decode()
            if name == self.lobby_key:
                changes.tables.update(bytes(f[b"c"]).decode() for _, f in items)
                changes = changes._replace(lobby_id=bytes(items[-1][0]).decode())
            elif name in by_key:
                changes.logs[by_key[name]] = [
                    (int(bytes(i).split(b"-")[1]), decode_entry(f[b"e"])) for i, f in items
                ]
            elif name in rooms:
                lines: list[Said] = []
                for _, fields in items:
                    try:
                        lines.append(msgspec.json.decode(fields[b"s"], type=Said))
                    except (KeyError, msgspec.DecodeError):  # damaged: left out
                        log.warning("a damaged chat line in %s", name)
                changes.chat[rooms[name]] = (bytes(items[-1][0]).decode(), lines)
        return changes

    async def beat(
        self, host: str, here: dict[str, dict[str, str]], leases: list[str]
    ) -> tuple[dict[str, dict[str, str]], set[str]]:
        """One beat of a host (each second): say who follows each of its tables from it
        (identity: name), take or keep the lease on the AI seats of `leases`; who follows
        each table from any host, and the leases this host holds (StoreAway)."""
        codes = list(here)
        if not codes and not leases:
            self._held = (host, set())
            return {}, set()
        calls: list[ScriptCall] = []
        for code in codes:
            said = [part for who, name in here[code].items() for part in (who, name)]
            calls.append((self._here, [self.here_key(code)], [HERE_MS, *said]))
        calls += [(self._lease, [self.lease_key(code)], [host, LEASE_MS]) for code in leases]
        answers: list[Any] = []
        for start in range(0, len(calls), BEAT_CHUNK):  # the loop runs between round trips
            answers += await self._run_all(calls[start : start + BEAT_CHUNK])
        present: dict[str, dict[str, str]] = {}
        for code, flat in zip(codes, answers[: len(codes)], strict=True):
            pairs = iter(bytes(part).decode() for part in flat)
            present[code] = dict(zip(pairs, pairs, strict=True))
        kept = zip(leases, answers[len(codes) :], strict=True)
        held = {code for code, answer in kept if int(answer) == 1}
        self._held = (host, held)
        return present, held

    async def close(self) -> None:
        """Write what waits (if Redis can be reached, within a few seconds), give up the
        leases this host held (its tables have stopped here), let go."""
        try:
            async with asyncio.timeout(3):
                for code in list(self._waiting):
                    with contextlib.suppress(StoreAway):
                        await self._flush(code)
                if self._gone:
                    await self._write_gone()
                host, held = self._held
                for code in held:
                    with contextlib.suppress(StoreAway):
                        await self._run(self._release, [self.lease_key(code)], [host])
        except TimeoutError:
            log.warning("redis: %d table records were not written", len(self._waiting))
        self._closed = True
        for writer in (self._writer, self._gone_writer):
            if writer is not None:
                writer.cancel()
        await self.line.close()
        await self.reader.close()
        await self.client.aclose()
