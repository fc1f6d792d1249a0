"""Players' campaigns kept in Redis (or Valkey), for hosts that share one: `--store redis://…`.

Each campaign is the very document a save file holds (`cantina.campaign.store.encode`: the
same bytes, schema and listing first), read back through the same checks, so a damaged
one is refused with its name and field, and never written over or renamed (only deleted,
once its player is sure, under its lease as any change). Any host can open a player's
campaigns; a lease, not a flock, keeps two from playing one.

Keys, all of one player's in one hash slot (the player's name in braces, as a Redis
Cluster wants for a script that touches several):

- `cantina:campaigns:{PLAYER}:index`, a sorted set: each document's name (a file name,
  `duo.json`), scored by when it was last written (what the list sorts by).
- `cantina:campaigns:{PLAYER}:doc:NAME`, a string: the document's bytes.
- `cantina:campaigns:{PLAYER}:from-files`, a hash: each save file of the player's folder
  on this host that was brought into Redis (its file name), and the document it became.
- `cantina:campaigns:{PLAYER}:lease:NAME`, a string with an expiry: who plays it now (a
  token of its own per opening). Taken with SET NX PX; renewed by one thread of the host
  while the campaign is open; given up on close. A host that dies (kill -9) renews it no
  more, and it expires: another host may open the campaign then. Every write checks the
  lease in the same script, so a host that lost it (Redis away longer than the lease)
  never writes over another's play; it takes the lease back only when it is free and the
  document is still the one it wrote last.
- `cantina:campaigns:{PLAYER}:written:NAME`, a string: the opening (its lease's token)
  that wrote the document last, and the number of that write in the opening. A write
  given up on (no answer in `TIMEOUT`) may still be in Redis's hands, and be run after
  the next one, sent on a new connection: the number keeps such an older save from
  landing over a newer one (last write wins).

Saves made before the host kept campaigns in Redis are brought in, not left behind: when
a player's campaigns are listed, each save file of their folder that is not yet in Redis
is copied into it (the same bytes, after the same checks; the file stays where it is).
One script per file marks it brought and writes its document, so two hosts listing at
once bring it once, and a campaign deleted from Redis does not come back. A damaged file
is not brought: it is listed as damaged, with its name and field, as the file store does
(checked whole, so one whose listing is intact but whose record is not is listed as
damaged here, where the file store lists it and refuses it on opening). A file is brought
once: what a host without Redis writes to it later stays in the file.

Synchronous client, short timeouts. The screens call their store synchronously (the list,
open, rename, delete; every decision's autosave through `Campaign.on_change`), as they
call the file store; so this uses redis-py's synchronous client (not its asyncio one) with a
socket timeout of `TIMEOUT`, each call tried once. A save is one round trip, which holds
the event loop less than a save file's atomic write (two fsyncs) does today: on this
project's 2-core machine (busy), a 29 KB campaign saved in p50 0.7 ms to a local Redis
with `appendfsync everysec` (3 ms with `always`), against 4 ms to a file. A Redis that
is down refuses at once; one that hangs holds the loop `TIMEOUT` at most.
The autosave after each decision does not wait even that: it is written by a thread of
its open campaign, in order (`RedisOpenCampaign`), so a Redis that is slow or paused
holds no session's loop; a failure is told to the screen when it comes back. The other
calls answer a screen that waits on them, so they stay synchronous. Lease renewal, which
must go on whatever the loop does, runs in one daemon thread of the host (`CampaignKeeper`).
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import itertools
import os
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import cast

import redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from cantina.campaign.errors import CampaignError, Damaged, InUse, NotFound
from cantina.campaign.listing import HEAD, Listed, listing_in
from cantina.campaign.series import Campaign, campaign_name
from cantina.campaign.store import (
    MAX_FILE,
    Entry,
    Imported,
    OpenCampaign,
    campaign_in,
    encode,
    export_bytes,
    file_stem,
    free_name,
    load,
    name_in,
    read,
    rename_in,
)
from cantina.text import clean_text

TIMEOUT = 0.5
"""Seconds a call to Redis may take before it is given up (connecting, or an answer)."""
RETRY = 1.0
"""Seconds between tries of an autosave that failed for want of Redis, while no newer
one is made: the decisions made while Redis was away are written once it is back, not
only at the next decision (a player thinking, or a host killed meanwhile, lost them)."""
LEASE_MS = 15_000
"""How long a campaign stays leased to a host that stops renewing it (it died)."""

AWAY = "the campaign store (Redis) cannot be reached"

CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
"""
"""A new document KEYS[1] (ARGV[1]) listed in KEYS[2] as ARGV[3] at time ARGV[2]; 0, and
nothing written, when a document has that name already."""

HOLD = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not holder and redis.call('EXISTS', KEYS[2]) == 1
   and redis.sha1hex(redis.call('GET', KEYS[2])) == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
"""Keep lease KEYS[1] for token ARGV[1] another ARGV[2] ms: 1 when held; when it lapsed
and nobody has written document KEYS[2] since (its SHA-1 is still ARGV[3]), taken back;
0 when another holds it, or wrote the document meanwhile."""

WRITE = """
local holder = redis.call('GET', KEYS[1])
if not holder and redis.call('EXISTS', KEYS[2]) == 1
   and redis.sha1hex(redis.call('GET', KEYS[2])) == ARGV[3] then
  holder = ARGV[1]
end
if holder ~= ARGV[1] then return 0 end
local mark = redis.call('GET', KEYS[4])
if mark then
  local space = string.find(mark, ' ', 1, true)
  if space and string.sub(mark, 1, space - 1) == ARGV[1]
     and tonumber(string.sub(mark, space + 1)) >= tonumber(ARGV[7]) then
    return 2
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[4] == '' then
  redis.call('DEL', KEYS[2], KEYS[4])
  redis.call('ZREM', KEYS[3], ARGV[6])
else
  redis.call('SET', KEYS[2], ARGV[4])
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
  redis.call('SET', KEYS[4], ARGV[1] .. ' ' .. ARGV[7])
end
return 1
"""
"""As HOLD, then, with the lease held: document KEYS[2] becomes ARGV[4] (deleted when
that is empty), listed in KEYS[3] as ARGV[6] at time ARGV[5], and KEYS[4] notes it as
write ARGV[7] of opening ARGV[1]. 0, and nothing written, when the lease is another's;
2, and nothing written, when a later write of this opening is there already (this one
was given up on by the host, and reached Redis late)."""

BRING = """
if redis.call('HEXISTS', KEYS[3], ARGV[3]) == 1 then return 0 end
local have = redis.call('GET', KEYS[1])
if have and have ~= ARGV[1] then return -1 end
if not have then
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
end
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
return 1
"""
"""Save file ARGV[3] (bytes ARGV[1], written at ARGV[2]) as document KEYS[1], named ARGV[4],
listed in KEYS[2], and marked brought in hash KEYS[3]: 1 when done (or it was there, the
same bytes), 0 when the file was brought already, -1 when another document has that name
(nothing written: try the next name)."""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _away(err: RedisError) -> OSError:
    """A Redis that could not be reached (or answered wrongly), as a save that failed (in
    words that stay plain when the app lowers their case: `os_reason`)."""
    return OSError(errno.ECONNREFUSED, "the campaign store cannot be reached")


@contextmanager
def _reaching() -> Iterator[None]:
    """Redis's errors as CampaignError: what the screens catch and show."""
    try:
        yield
    except RedisError as err:
        raise CampaignError(f"{AWAY} ({type(err).__name__}); try again") from None


def _on_loop(loop: asyncio.AbstractEventLoop, call: Callable[[bool], None], arg: bool) -> None:
    """`call(arg)` on `loop`, from another thread (nothing if the loop has closed: its
    campaign was closed first, and took every outcome in then)."""
    with suppress(RuntimeError):
        loop.call_soon_threadsafe(call, arg)


def _text(value: object) -> str:
    """A reply of Redis's as text (bytes decoded; None as nothing)."""
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return "" if value is None else str(value)


def _sha(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


class Lease:
    """One host's hold on one campaign: a Redis key with an expiry, renewed by the
    keeper's thread while the campaign is open, given up when it closes."""

    def __init__(
        self, keeper: CampaignKeeper, lease: str, doc: str, index: str, written: str
    ) -> None:
        self.keeper = keeper
        self.keys = (lease, doc, index, written)
        self.token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"
        self.sha = ""
        """The SHA-1 of the document as this host last read or wrote it."""
        self.writes = itertools.count(1)
        """The number of each write of this opening, in the order they are sent."""

    def acquire(self, name: str, raw: bytes) -> None:
        """Hold the lease (InUse, naming campaign `name`, when another host does)."""
        client = self.keeper.client
        with _reaching():
            taken = client.set(self.keys[0], self.token, nx=True, px=self.keeper.lease_ms)
            holder = None if taken else client.get(self.keys[0])
        if not taken:
            host, _, pid = _text(holder).partition(":")
            pid = pid.partition(":")[0]
            by = f" (host {clean_text(host)}, process {pid})" if pid.isdigit() else ""
            raise InUse(
                f"the campaign {name!r} is open in another cantina{by}; "
                "close it there, or wait for that player to leave"
            )
        self.sha = _sha(raw)
        self.keeper.holding(self)

    def renew(self) -> bool:
        """Keep the lease (from the keeper's thread); False when it is another's now."""
        lease, doc, _, _ = self.keys
        held = self.keeper.hold(
            keys=[lease, doc], args=[self.token, self.keeper.lease_ms, self.sha]
        )
        return bool(held)

    def write(self, file: str, data: bytes) -> None:
        """`data` as the document (b"": delete it), if the lease is this host's still
        (OSError otherwise, as a file that cannot be written)."""
        args: list[str | bytes | float] = [
            self.token, self.keeper.lease_ms, self.sha, data, time.time(), file,
            next(self.writes),
        ]  # fmt: skip
        try:
            written = self.keeper.write(keys=list(self.keys), args=args)
        except RedisError as err:
            raise _away(err) from None
        if not written:
            raise OSError(
                errno.EBUSY, "another cantina has opened the campaign since (its lease lapsed)"
            )
        if written == 1:  # (2: a later one of ours is there already, which stays)
            self.sha = _sha(data)

    def release(self) -> None:
        self.keeper.letting_go(self)
        with suppress(RedisError):  # else it expires by itself
            self.keeper.release(keys=[self.keys[0]], args=[self.token])


class RedisOpenCampaign(OpenCampaign):
    """A campaign open for play from Redis: leased, and saved after every change.

    A decision's autosave, made on a running event loop, is encoded there (the campaign as
    it stands at that decision) and written by one thread of its own, so the loop never
    waits on Redis: one write at a time, each of the newest save made when it goes out.
    An autosave made while another waits to go out takes its place (it holds every
    decision of the older one): while Redis is slow or stopped, a campaign has one write
    under way and one waiting, however many decisions are made, not a write for each
    (each given up on after `TIMEOUT`, in turn). Each outcome is taken in on the loop in
    order (a failure told to `on_error` as before, the save counted when it lands). One
    that failed for want of Redis is tried again every RETRY seconds, quietly (told once),
    until a save lands. A save made directly (`save`, `settle`, `close`) first waits for
    those on their way, so it stays in order."""

    lease: Lease

    def __init__(self, path: Path, campaign: Campaign, lease: Lease) -> None:
        super().__init__(path, campaign, lease)
        self.lease = lease
        self._writer: ThreadPoolExecutor | None = None
        self._on_way: deque[tuple[Future[int], bool]] = deque()
        """Writes handed to the writer, oldest first: each, the decisions it held, and
        whether it is a try again (its failure not told again)."""
        self._retry: asyncio.TimerHandle | None = None
        self._closed = False
        self._newest: tuple[bytes, int] | None = None
        """The save waiting to go out (its bytes, its decisions), if any: the next write
        to start takes it. Set only when a write is handed to the writer for it."""
        self._guard = threading.Lock()

    def write(self, data: bytes) -> None:
        self.lease.write(self.path.name, data)

    def autosave(self, again: bool = False) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside a loop: nothing to keep free, saved now
            return super().autosave()
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="cantina-campaign-save")
        save = (encode(self.campaign), self.campaign.decisions)
        with self._guard:
            waiting, self._newest = self._newest is not None, save
        if waiting:  # the write handed over for the older one, not started, takes this
            return
        saving = self._writer.submit(self._write_newest)
        self._on_way.append((saving, again))
        saving.add_done_callback(lambda _: _on_loop(loop, self._landed, False))

    def _write_newest(self) -> int:
        """(The writer's thread) Write the newest save made; the decisions it holds."""
        with self._guard:
            newest, self._newest = self._newest, None
        assert newest is not None  # one write handed over for each save that waits
        data, decisions = newest
        self.write(data)
        return decisions

    def _landed(self, wait: bool) -> None:
        """Take in the outcomes of the autosaves that have ended (`wait`: of every one on
        its way, waiting for them), oldest first, each once."""
        while self._on_way and (wait or self._on_way[0][0].done()):
            saving, again = self._on_way.popleft()
            try:
                decisions = saving.result()
            except OSError as err:
                self.failure = err
                if self.on_error is not None and not again:
                    self.on_error(err)
                if err.errno == errno.ECONNREFUSED:  # Redis away (`_away`), not the lease
                    self._try_again_later()
                continue
            self.saves += 1
            self.failure = None
            self._saved_decisions = decisions

    def _try_again_later(self) -> None:
        if self._retry is not None or self._closed:
            return
        with suppress(RuntimeError):  # no loop running: `settle` tries it again
            self._retry = asyncio.get_running_loop().call_later(RETRY, self._try_again)

    def _try_again(self) -> None:
        self._retry = None
        if self._closed or self.failure is None:
            return
        if self._on_way:  # a newer one is on its way: its outcome decides
            return
        self.autosave(again=True)

    def save(self) -> None:
        self._landed(True)
        super().save()

    def settle(self) -> bool:
        self._landed(True)
        return super().settle()

    def close(self) -> None:
        self._landed(True)
        self._closed = True
        if self._retry is not None:
            self._retry.cancel()
        if self._writer is not None:
            self._writer.shutdown()
        super().close()


class CampaignKeeper:
    """The host's link to the campaigns in Redis: one client, one renewal thread, and a
    `RedisCampaigns` for each player."""

    def __init__(
        self, client: redis.Redis, *, prefix: str = "cantina:", lease_ms: int = LEASE_MS
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.lease_ms = lease_ms
        self.create = client.register_script(CREATE)
        self.hold = client.register_script(HOLD)
        self.write = client.register_script(WRITE)
        self.release = client.register_script(RELEASE)
        self.bring = client.register_script(BRING)
        self._leases: set[Lease] = set()
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_url(cls, url: str, **options: int | str) -> CampaignKeeper:
        client = redis.Redis.from_url(
            url,
            socket_timeout=TIMEOUT,
            socket_connect_timeout=TIMEOUT,
            retry=Retry(NoBackoff(), 0),  # a call tried once: the event loop waits on it
        )
        return cls(client, **options)  # type: ignore[arg-type]

    def player(self, name: str, files: Path | None = None) -> RedisCampaigns:
        """The campaigns of the player called `name` here (their key's fingerprint, hashed);
        `files`, their folder of save files on this host, brought in when listed."""
        return RedisCampaigns(self, name, files)

    def holding(self, lease: Lease) -> None:
        with self._guard:
            self._leases.add(lease)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._renew, name="cantina-campaign-leases", daemon=True
                )
                self._thread.start()

    def letting_go(self, lease: Lease) -> None:
        with self._guard:
            self._leases.discard(lease)

    def _renew(self) -> None:
        """Every third of a lease, renew every lease held until its campaign closes. One
        another host holds now is left to it (the campaign's next save says so); one that
        lapsed while Redis was away is taken back if nobody wrote the campaign since."""
        while not self._stop.wait(self.lease_ms / 3000):
            with self._guard:
                leases = list(self._leases)
            for lease in leases:
                with suppress(RedisError):  # tried again in a third of a lease
                    lease.renew()

    def close(self) -> None:
        """Stop renewing and let every lease go (the host is closing)."""
        self._stop.set()
        with self._guard:
            leases = list(self._leases)
        for lease in leases:
            lease.release()
        self.client.close()


class RedisCampaigns:
    """One player's campaigns in Redis, as `cantina.campaign.store.Store` keeps a folder's
    (the `Campaigns` protocol): each known by a path that is its document's name."""

    def __init__(self, keeper: CampaignKeeper, player: str, files: Path | None = None) -> None:
        self.keeper = keeper
        self.client = keeper.client
        self.base = f"{keeper.prefix}campaigns:{{{player}}}:"
        self.index = self.base + "index"
        self.files = files
        """The player's folder of save files on this host (kept before Redis was), if any."""
        self.brought = self.base + "from-files"

    @property
    def folder(self) -> Path:
        """What the campaigns list is titled with (a Redis key, not a folder on disk)."""
        return Path(self.base + "doc:")

    def _doc(self, file: str) -> str:
        return f"{self.base}doc:{file}"

    def _lease(self, file: str) -> str:
        return f"{self.base}lease:{file}"

    def _written(self, file: str) -> str:
        return f"{self.base}written:{file}"

    def _read(self, file: str) -> bytes:
        """A document's bytes (NotFound when there is none; Damaged when too big)."""
        with _reaching():
            return self._get(file)

    def _get(self, file: str) -> bytes:
        """As `_read`, but RedisError as it comes (for the list, which says so in a row)."""
        size = self.client.strlen(self._doc(file))
        if size > MAX_FILE:
            raise Damaged(file, "", f"{size} bytes is too big for a save (limit {MAX_FILE})")
        raw = self.client.get(self._doc(file))
        if raw is None:
            raise NotFound(f"no campaign called {file!r} here")
        return raw if isinstance(raw, bytes) else _text(raw).encode()

    def _bring_files(self) -> list[Entry]:
        """Copy into Redis each save file of the player's folder not brought yet, whole and
        checked as a save is loaded (the file stays); the damaged ones, as entries that say
        why (RedisError when Redis is away: a file half-way is brought on the next list)."""
        if self.files is None:
            return []
        try:
            paths = sorted(self.files.iterdir())
        except OSError:  # no folder (nothing was ever saved there), or none to read
            return []
        brought = {_text(file) for file in cast("list[bytes]", self.client.hkeys(self.brought))}
        damaged = []
        for path in paths:
            if path.suffix != ".json" or path.name.startswith(".") or path.name in brought:
                continue
            try:
                if not path.is_file():
                    continue
                modified = path.stat().st_mtime
                raw = read(path)
                campaign_in(raw, path.name)
            except OSError:
                continue  # gone since the folder was read
            except Damaged as problem:
                damaged.append(Entry(path, None, problem, modified))
                continue
            self._bring(path.name, raw, modified)
        return damaged

    def _bring(self, file: str, raw: bytes, modified: float) -> None:
        """The save file `file` as a document: under its own name, else numbered."""
        stem = Path(file).stem
        for n in range(1, 1000):
            name = file if n == 1 else f"{stem}-{n}.json"
            done = self.keeper.bring(
                keys=[self._doc(name), self.index, self.brought], args=[raw, modified, file, name]
            )
            if done != -1:
                return

    def _heads(self) -> list[tuple[str, float, Listed | None, str | None]]:
        """Each document, newest first: its name, time, listing (None when its head has
        none) and the campaign name its head holds (RedisError when Redis is away)."""
        files = cast(
            "list[tuple[bytes, float]]",
            self.client.zrevrange(self.index, 0, -1, withscores=True),
        )
        pipe = self.client.pipeline(transaction=False)
        for file, _ in files:
            key = self._doc(file.decode())
            pipe.getrange(key, 0, HEAD - 1)
            pipe.getrange(key, -2, -1)
        ends = pipe.execute()
        found = []
        for n, (file, modified) in enumerate(files):
            head, tail = ends[2 * n], ends[2 * n + 1]
            if not head:
                continue  # deleted since the index was read
            listing = listing_in(head, tail)
            name = listing.name if listing is not None else None
            found.append(
                (file.decode(), float(modified), Listed(listing) if listing else None, name)
            )
        return found

    def entries(self) -> list[Entry]:
        """Every campaign, newest first; damaged ones carry their reason and are left as
        found (listed from their listing; one without is read whole, to say why). With
        Redis out of reach, one entry, `Redis`, whose problem says so."""
        # The screens list without catching: a Redis away is a row that says why, not a
        # session ended.
        try:
            found = self._bring_files()
            for file, modified, listed, _ in self._heads():
                path = Path(file)
                if listed is not None:
                    found.append(Entry(path, listed, None, modified))
                    continue
                try:
                    campaign = campaign_in(self._get(file), file)
                except NotFound:
                    continue
                except Damaged as problem:
                    found.append(Entry(path, None, problem, modified))
                else:
                    found.append(Entry(path, Listed(campaign.listing()), None, modified))
        except RedisError as err:
            why = f"cannot be reached ({type(err).__name__}); try again in a moment"
            return [Entry(Path("Redis"), None, Damaged("Redis", "", why), time.time())]
        found.sort(key=lambda e: e.modified, reverse=True)
        return found

    def names(self, but: Path | None = None) -> dict[str, Path]:
        """The campaign names taken, case-folded, each with its document (a damaged one's
        too, when its name can still be read)."""
        taken: dict[str, Path] = {}
        with _reaching():
            self._bring_files()
            heads = self._heads()
        for file, _, _, name in heads:
            if but is not None and file == but.name:
                continue
            if name is None:
                try:
                    name = name_in(self._read(file))
                except CampaignError:
                    continue
            if name:
                taken.setdefault(name.casefold(), Path(file))
        return taken

    def create(self, campaign: Campaign) -> Path:
        """Keep a new campaign under a name and a document name of its own."""
        campaign.data.name = free_name(campaign.name, self.names())
        data = encode(campaign)
        stem = file_stem(campaign.name)
        for n in range(1, 1000):
            file = f"{stem}.json" if n == 1 else f"{stem}-{n}.json"
            with _reaching():
                made = self.keeper.create(
                    keys=[self._doc(file), self.index], args=[data, time.time(), file]
                )
            if made:
                return Path(file)
        raise CampaignError(f"too many campaigns called {campaign.name!r}")

    def import_file(self, source: Path) -> Imported:
        """A copy of the save file at `source`, checked as every save is loaded."""
        campaign = load(source)
        was = campaign.name
        return Imported(self.create(campaign), campaign.name, was)

    def load(self, path: Path) -> Campaign:
        """A document's whole campaign, checked (Damaged when it cannot be played)."""
        return campaign_in(self._read(path.name), path.name)

    def open(self, path: Path) -> RedisOpenCampaign:
        """Lease a campaign and load it for play (InUse, or Damaged, when that cannot be)."""
        file = path.name
        raw = self._read(file)
        lease = Lease(
            self.keeper, self._lease(file), self._doc(file), self.index, self._written(file)
        )
        lease.acquire(campaign_name(name_in(raw) or file), raw)
        try:
            campaign = campaign_in(raw, file)
        except BaseException:
            lease.release()
            raise
        return RedisOpenCampaign(Path(file), campaign, lease)

    def rename(self, path: Path, name: str) -> None:
        """A new display name; the document keeps its name."""
        rename_in(self, path, name)

    def delete(self, path: Path) -> None:
        """Delete a document no cantina has open (InUse otherwise), whole or damaged: only
        its lease is needed, not its campaign (as `Store.delete` takes only a save's lock).
        A damaged one can never be played, so its player may want it gone."""
        file = path.name
        with _reaching():
            raw = self.client.get(self._doc(file))
        if raw is None:
            raise NotFound(f"no campaign called {file!r} here")
        raw = raw if isinstance(raw, bytes) else _text(raw).encode()
        lease = Lease(
            self.keeper, self._lease(file), self._doc(file), self.index, self._written(file)
        )
        lease.acquire(campaign_name(name_in(raw) or Path(file).stem), raw)
        try:
            lease.write(file, b"")
        finally:
            lease.release()

    def export(self, path: Path, destination: Path) -> Path:
        """The document, byte for byte, as a save file at `destination` (a new file, or a
        folder: `Store.export`'s rules). A damaged one is copied as it is."""
        if self.files is not None and path.parent == self.files:
            raw = read(path)  # a damaged save file of the folder, never brought in
        else:
            raw = self._read(path.name)
        return export_bytes(raw, name_in(raw) or path.stem, destination)
