"""With a Redis store the lobby is shared by every host using it (`cantina serve --store
redis://…` on any number of processes or machines). Each host follows the lobby's stream
of changes (a Redis stream, not pub/sub: a host that lost its connection for a moment
reads on from the last change it saw, and misses none) and the log stream of each
started table it has a reason to (a screen of its own on it, its AI lease, its own
people seated there), in one blocking read (`_follow`): a table opened, joined, started
or closed on one host shows on the others at once, and each decision recorded at a
table is applied by the dealer of every host following it as it arrives. Another host's
dealer of the table stands where it was, and reads on from there, missing nothing, once
it has a reason to (`_catch_up`): a decision at one table does not wake every host. A
seat is claimed by one script in Redis (`RedisStore.seat`): two hosts cannot give it to
two people; a host that loses the race takes the table as Redis has it. A table starts in
Redis first (`start`), checked there against the seats claimed: a seat taken through
another host as its creator pressed s plays, and one claimed after it is refused. Each second
(`_beat`) a host says who follows each table from it (so a player at a table through
another host is not away, and the table is not swept as empty) and takes or keeps the
lease on the AI seats of the started tables: the host holding it plays them, and the
stand-in; when it dies, its lease lapses and another host, reaching for it each beat,
takes over (its dealer caught up first). The chat of the lobby and of each table goes
through a capped stream per room, read in the same blocking read: a line said on one
host (cleaned, and counted against its speaker's pace there) shows on every other at
once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from functools import partial

from cantina.chat import ChatLine
from cantina.games.table import IllegalAction
from cantina.lobby.code_pool import CodePool
from cantina.lobby.dealers import Dealers
from cantina.lobby.notices import StoreNotices
from cantina.lobby.presence import BEAT, ON_THE_WAY, Presence
from cantina.lobby.rooms import HOST_VOICE, ChatRooms
from cantina.lobby.table import (
    MAX_TABLES,
    Player,
    SharedTable,
    record_of,
    seat_people,
    seated_of,
)
from cantina.store.memory import StoreAway, stop_if_cancelled
from cantina.store.records import StoredTable, decode_setup
from cantina.store.redis_store import RedisStore, Seating
from cantina.tasks import detached

log = logging.getLogger("cantina.lobby")

CODE_TAKEN = (
    "That table closed before it opened: while Redis was out of reach, its code went to"
    " another host's table. Please set it again."
)
STARTED_WITHOUT = (
    "{name}: the table started through another host a moment before your seat {seat} reached"
    " it, so it plays without you; you may watch, or leave for another table."
)
START_AGAIN = (
    "{name}: the seats kept changing through other hosts as you started the table, so it"
    " has not started; see who sits where now, and press s again."
)
START_WAITS = (
    "{name}: the table store (Redis) is out of reach, so the table starts once it is back"
    " (its seats are checked there first)."
)
START_TRIES = 5
"""Deals a start tries (each after a claim through another host changed the seats)
before the starter is asked to press s again."""
FOLLOW_BLOCK_MS = 1000
"""How long one blocking read of the streams waits before it looks again (well under the
client's socket timeout)."""
FOLLOW_GAP = 0.02
"""Seconds at least from one read of the streams to the next: at 96 tables on one host
every decision logged at any of them woke the read at once, each time a read over every
table's log and room (5.5% of the host's work in a profile of benchmarks/bench_ssh.py
--playing); waiting out the gap, one read takes what came meanwhile together. Another
host's move shows here at most this much later, and only while moves come that fast."""
PEOPLE = "lobby"
"""The presence room (beside each table's, under `RedisStore.here_key`) of everyone
connected to any host of a shared lobby: not a table's code (those are upper-case)."""
LEASE_DEFER = 3.0
"""Seconds a host waits, after another host's table starts, before it reaches for the
lease on its AI seats, unless a screen of its own follows the table: the host of the
table's players takes it first (its AI moves then need no trip through Redis to be seen
there, and each host of `--workers N` plays the AI of its own players' tables, not one
host every table's). Once past it, any host takes a lease that lapsed."""
HELD_NEW = 5.0
"""Seconds a table another host opened is not swept here as left by its people: the
other host says who follows it at its next beat."""


class ManyHosts:
    """Keeps a lobby's tables in step with the other hosts of a Redis store (with no
    Redis, it does nothing). The `Lobby` owns it and tells it what changes here (a seat
    claimed, a table started or closed); it shares the lobby's tables (the one dict) and
    never calls the lobby: a table read from the store is made by `Dealers`, and one
    gone from it is ended here (`_end`)."""

    def __init__(
        self,
        tables: dict[str, SharedTable],
        shared: RedisStore | None,
        host_id: str,
        *,
        presence: Presence,
        rooms: ChatRooms,
        pool: CodePool,
        dealers: Dealers,
        notices: StoreNotices,
        max_tables: int = MAX_TABLES,
    ) -> None:
        self.tables = tables
        self.max_tables = max_tables
        """Tables this host keeps: past it, another host's new one is not taken up here."""
        self.shared = shared
        self.host_id = host_id
        self.presence = presence
        self.rooms = rooms
        self.pool = pool
        self.dealers = dealers
        self.notices = notices
        self._tasks: list[asyncio.Task[None]] = []
        """Following the lobby, beating and sending chat (`share`), once begun."""
        self._claims: set[asyncio.Task[None]] = set()
        self._starts: dict[str, asyncio.Task[bool]] = {}
        """Starts on their way to Redis (`start`), by table."""
        self._catching: set[asyncio.Task[None]] = set()
        """Catch-ups of tables a screen came to (`_screen_came`)."""
        self._stale: set[str] = set()
        """Tables to read again once this host's own record of them has been written."""
        self._dealt_elsewhere: dict[str, float] = {}
        """Tables started by another host, by code: when this host's dealer began
        following them (for LEASE_DEFER)."""
        self._claiming: dict[str, int] = {}
        """Seat claims of this host on their way to the store, by table."""
        self._lobby_id = "0-0"
        self._following: set[str] = set()
        """The tables whose log the last blocking read asked for (`_worth_following`)."""
        self._leases: set[str] = set()
        """The tables whose AI lease this host held at its last beat."""
        self._beaten = asyncio.Event()
        self._sat: dict[str, dict[str, tuple[int, Player]]] = {}
        """Seats Redis gave through this host at tables not yet started, by table, then
        identity: once the table has started, each not among its seats as played is told
        (`_started_without`)."""
        self._lost: dict[str, list[tuple[int, Player]]] = {}
        """Seats given here that Redis gave to someone else, by table: their people are
        told once this host has the table as Redis has it."""
        self._starting: set[str] = set()
        self._stopped = False
        """Tables this host is starting, their start on its way to Redis (`start`)."""
        if shared is not None:
            shared.host = host_id
            shared.on_taken(self._code_taken)

    @property
    def following(self) -> bool:
        """Whether this host follows the shared lobby (since the lobby's `restore`)."""
        return bool(self._tasks)

    async def begin(self) -> None:
        """Before the lobby reads its tables back: Redis answers (StoreAway, StoreRefused),
        the lobby's changes are followed from here on, and this host holds codes."""
        if self.shared is not None:
            await self.shared.ping()
            self._lobby_id = await self.shared.lobby_id()
            await self.pool.reserve(self.shared)

    def adopt(self, table: SharedTable) -> None:
        """A table read back from the store: its AI waits until this host holds the
        table's lease, and a screen coming to it catches it up (`_screen_came`)."""
        if self.shared is not None and table.dealer is not None:
            table.dealer.plays_ai = False
            table.dealer.on_follow = partial(self._screen_came, table.code)

    def forget(self, code: str) -> None:
        """A table closed here: what this host knew of it goes (its code may come again)."""
        self._lost.pop(code, None)
        self._sat.pop(code, None)
        self._dealt_elsewhere.pop(code, None)

    def stop(self) -> None:
        """The host stops: it follows, beats and claims no more."""
        self._stopped = True  # for a loop whose cancel Python 3.11 dropped (`claim`)
        for task in [*self._tasks, *self._claims, *self._starts.values(), *self._catching]:
            task.cancel()
        self._tasks.clear()

    def _end(self, table: SharedTable) -> None:
        """Close a table here only: another host closed it, or its code is another's (what
        Redis has under the code is not this host's to drop)."""
        self.tables.pop(table.code, None)
        self.forget(table.code)
        table.end()

    def claim(
        self, table: SharedTable, seat: int, mode: str, player: Player, before: str = ""
    ) -> None:
        """Claim (or free, or pass on) a seat in the shared store, for every host: if
        another host gave it to someone first, this host takes the table as Redis has it."""
        if self.shared is None or table.campaign is not None:
            return
        who = Seating(player.identity, player.name, table.rejoin.get(seat, ""))
        shared = self.shared

        async def claim() -> None:
            try:
                while True:  # until Redis answers: a start waits for its claims to land
                    try:
                        done = await shared.seat(table.code, seat, mode, who, before)
                        break
                    except StoreAway:
                        stop_if_cancelled()
                        if self._stopped or self.tables.get(table.code) is not table:
                            return  # closed here meanwhile, or the host stopped
                        await asyncio.sleep(0.5)
            finally:
                self._claiming[table.code] -= 1
                if not self._claiming[table.code]:
                    del self._claiming[table.code]
            if done and mode == "sit":
                self._sat.setdefault(table.code, {})[player.identity] = (seat, player)
            elif done and mode == "leave":
                self._sat.get(table.code, {}).pop(player.identity, None)
            if not done:
                log.info("seat %d of table %s went to someone else", seat, table.code)
            if not done and mode != "leave":
                self._lost.setdefault(table.code, []).append((seat, player))
            await self._refresh(table.code)

        self._claiming[table.code] = self._claiming.get(table.code, 0) + 1

        self._claims.add(detached(claim(), done=self._claims.discard))

    def start(
        self, table: SharedTable, by: Player, deal: Callable[[SharedTable], object]
    ) -> asyncio.Task[bool]:
        """Start a table in Redis, then `deal` it here: the start is checked there, in one
        script (START), against the seats Redis holds, so a seat claimed through another
        host as the creator pressed s is played, not dropped. If the seats changed, the
        table is read again and dealt from the seats as Redis has them, up to START_TRIES
        times; then the creator is told in one line to press s again. Its seats take no
        new claim here meanwhile (`SharedTable.starting`). Whether it started here."""
        assert self.shared is not None
        shared, code = self.shared, table.code
        table.starting = True
        self._starting.add(code)

        async def start() -> bool:
            answer = -2
            try:
                for _ in range(START_TRIES):
                    answer = await self._start_once(shared, table, by)
                    if answer != -2:
                        break
            finally:
                table.starting = False
                self._starting.discard(code)
            dealt = answer == 1 and self.tables.get(code) is table and table.dealer is None
            if dealt:
                deal(table)
            elif answer == -2 and self.tables.get(code) is table:
                line = START_AGAIN.format(name=by.name)
                table.chat.hear(ChatLine(HOST_VOICE, "Cantina", line))
            if not dealt:  # as Redis has it now (its changes were held meanwhile)
                with contextlib.suppress(StoreAway):
                    await self._refresh(code)
            return dealt

        task = self._starts[code] = detached(start(), done=lambda _: self._starts.pop(code, None))
        return task

    async def started(self, code: str) -> None:
        """Until this host's start of the table, if one is on its way, is done."""
        task = self._starts.get(code)
        if task is not None:
            await asyncio.wait([task])

    async def _start_once(self, shared: RedisStore, table: SharedTable, by: Player) -> int:
        """One try at a table's start in Redis (START's answer), after this host's own
        claims at it have landed; when the seats had changed (-2), the table takes them
        as Redis has them, for the next try. While Redis is away, it waits for it (the
        starter told so, once)."""
        code = table.code
        told = False

        def waits() -> None:
            nonlocal told
            if not told:
                told = True
                line = START_WAITS.format(name=by.name)
                table.chat.hear(ChatLine(HOST_VOICE, "Cantina", line))

        while True:
            try:
                while code in self._claiming:  # this host's own claims land first
                    stop_if_cancelled()
                    if self._stopped:
                        return -1
                    if not shared.available:
                        waits()
                    await asyncio.sleep(0.01)
                if self.tables.get(code) is not table:
                    return -1
                answer = await shared.start(record_of(table, seat_people(table), started=True))
                if answer != -2:
                    return answer
                stored = await shared.table(code, entries=False)
                if stored is None:
                    return -1
                table.seated = seated_of(stored.record, table.setup)
                table.rejoin = dict(stored.record.rejoin)
                return -2
            except StoreAway:
                stop_if_cancelled()
                if self._stopped:
                    return -1
                waits()
                await asyncio.sleep(0.5)

    def _code_taken(self, code: str) -> None:
        """A table set here while Redis was out of reach found its code gone to another
        host's table when Redis came back (the store wrote nothing of it): it closes here,
        its people told why, and the code's table, the other host's, is read instead."""
        table = self.tables.get(code)
        if table is None or table.campaign is not None:
            return
        table.closed_why = CODE_TAKEN
        self._end(table)  # what Redis has under the code is not ours
        self._stale.add(code)

    def _seat_lost(self, table: SharedTable, seat: int, player: Player) -> None:
        """Tell the person a seat given here went to someone else through another host, in
        one line of the table's chat on this host (their waiting room shows it): they are
        not left looking at a seat that is not theirs."""
        if table.seat_of(player.identity) is not None:
            return
        winner = table.seated.get(seat)
        by = f" to {winner.name}" if winner is not None else ""
        table.chat.hear(
            ChatLine(
                HOST_VOICE,
                "Cantina",
                f"{player.name}: seat {seat + 1} went{by} a moment before you, through"
                " another host; you may watch, or leave for another table.",
            )
        )

    def _started_without(self, table: SharedTable, seat: int, player: Player) -> None:
        """Tell the person seated through this host whom the table's start, on another
        host, left out: their claim reached Redis after the start (START), which refused
        it (or, from a host of an older version, took it and undid it: KEEP). One line of
        the table's chat, as for a seat lost (`_seat_lost`): they are not left watching
        with no word why."""
        if table.seat_of(player.identity) is not None:
            return
        table.chat.hear(
            ChatLine(HOST_VOICE, "Cantina", STARTED_WITHOUT.format(name=player.name, seat=seat + 1))
        )

    def share(self) -> None:
        """Follow the shared lobby and beat, from now on (a lobby on a Redis store)."""
        if self.shared is not None and not self._tasks:
            self._tasks = [
                detached(self._follow(self.shared), name="lobby-follow"),
                detached(self._beat(self.shared), name="lobby-beat"),
                detached(self.rooms.send(self.shared), name="lobby-chat"),
            ]

    def wake_beat(self) -> None:
        """Beat at once: a table started, or a code taken from the pool."""
        self._beaten.set()

    def _worth_following(self) -> set[str]:
        """The started tables whose log this host reads: one a screen of its own shows,
        one whose AI lease it holds, one its own people sit at (connected here, or seated
        through this host). Another host's decisions at any other table wake nothing
        here; its dealer stands where it was, and reads on from there once the table is
        worth following (`_catch_up`). Not a table that has stopped (its log could not
        be applied): read again and again, it would hold up the others'."""
        return {
            code
            for code, table in self.tables.items()
            if table.dealer is not None
            and table.dealer.failure is None
            and (
                table.dealer.followed
                or code in self._leases
                or any(
                    who in table.seated_here or self.presence.here(who)
                    for who in (player.identity for player in table.seated.values())
                )
            )
        }

    async def _follow(self, shared: RedisStore) -> None:
        """Follow the lobby's changes and the logs of the started tables worth following
        (`_worth_following`), in one blocking read: a changed table is read again, a
        logged decision applied by its dealer. A table that becomes worth following first
        catches up from the version its dealer stands at (`_catch_up`): nothing is
        missed, and what went by unread is applied at once, not shown step by step."""
        away = False
        loop = asyncio.get_running_loop()
        read_at = -FOLLOW_GAP
        while not self._stopped:
            stop_if_cancelled()  # a cancel redis-py's `wait_for` dropped: see there
            try:
                gap = read_at + FOLLOW_GAP - loop.time()
                if gap > 0:
                    await asyncio.sleep(gap)
                read_at = loop.time()
                if away:  # back after a gap: read every table again
                    away = False
                    for code in (await shared.codes()) | set(self.tables):
                        await self._refresh(code)
                worth = self._worth_following()
                for code in sorted(worth - self._following):  # newly: what it missed, at once
                    await self._catch_up(shared, code)
                logs = {
                    code: table.dealer.journal.version
                    for code, table in self.tables.items()
                    if code in worth
                    and table.dealer is not None
                    and table.dealer.journal is not None
                }
                self._following = set(logs)
                rooms = [""] + [c for c, t in self.tables.items() if t.campaign is None]
                chat = {room: self.rooms.read.get(room, "0-0") for room in rooms}
                self.rooms.read = chat  # a closed table's room is read no more
                changes = await shared.follow(self._lobby_id, logs, FOLLOW_BLOCK_MS, chat)
                self._lobby_id = changes.lobby_id
                for room, (read, lines) in changes.chat.items():
                    self.rooms.read[room] = read
                    self.rooms.heard(room, lines)
                for code in sorted(changes.tables | self._stale):
                    await self._refresh(code)
                for code, items in changes.logs.items():
                    table = self.tables.get(code)
                    if table is not None and table.dealer is not None:
                        await table.dealer.absorb(items)
            except StoreAway:
                stop_if_cancelled()
                away = True
                self.pool.renew_at = 0.0  # its codes too, at the first beat Redis answers
                await asyncio.sleep(0.5)
            except asyncio.CancelledError:
                raise
            except Exception:  # one bad table must not stop this host following the rest
                stop_if_cancelled()
                log.exception("following the shared lobby failed")
                await asyncio.sleep(0.5)

    async def _refresh(self, code: str) -> None:
        """Take a table as the shared store has it now: new here, changed (seats, its
        creator, started), or gone (closed by another host) (StoreAway)."""
        assert self.shared is not None
        table = self.tables.get(code)
        if table is not None and table.campaign is not None:
            return  # a campaign's table is its host's alone
        if self.shared.pending(code) or code in self._claiming or code in self._starting:
            self._stale.add(code)  # this host's own change is on its way: read it after
            return
        self._stale.discard(code)
        stored = await self.shared.table(code, entries=False)
        if self.shared.pending(code) or code in self._claiming or code in self._starting:
            self._stale.add(code)  # a change of this host's came as it was read: after it
            return
        table = self.tables.get(code)
        if table is not None and table.campaign is not None:
            return
        if stored is None:
            if table is not None:
                self._end(table)  # the store has forgotten it already
            return
        record = stored.record
        if table is None:
            if len(self.tables) >= self.max_tables:
                return
            entries = await self.shared.entries(code) if record.started else []
            try:
                table = self.dealers.rebuilt(StoredTable(record, entries, stored.away))
            except (ValueError, IllegalAction) as err:
                log.warning("table %s cannot be rebuilt from the store: %s", code, err)
                return
            self.adopt(table)
            if code in self.tables:  # made here meanwhile
                return
            now = asyncio.get_running_loop().time()
            table.held_until = now + HELD_NEW
            self.tables[code] = table
            if table.dealer is not None:
                self._dealt_elsewhere[code] = now
                table.dealer.start()
            return
        if record.started and table.dealer is None:
            table.setup = decode_setup(record.setup)  # as played
        table.creator = Player(record.creator.identity, record.creator.name)
        table.seated = seated_of(record, table.setup)
        table.rejoin = dict(record.rejoin)
        lost = self._lost.pop(code, [])
        for seat, player in lost:
            if record.started and seat not in table.seated:  # refused: it had started
                self._started_without(table, seat, player)
            else:
                self._seat_lost(table, seat, player)
        if record.started:
            told = {player.identity for _, player in lost}
            for seat, player in self._sat.pop(code, {}).values():
                if player.identity not in told:
                    self._started_without(table, seat, player)
        if table.dealer is not None:
            table.hand_seats()
            return
        if record.started:
            entries = await self.shared.entries(code)
            if table.dealer is not None or self.tables.get(code) is not table:
                return
            dealer = self.dealers.replayed(table, entries, stored.away)  # shown from its start
            self.adopt(table)
            now = asyncio.get_running_loop().time()
            table.on_the_way_until = now + ON_THE_WAY
            self._dealt_elsewhere[code] = now
            dealer.start()

    async def _beat(self, shared: RedisStore) -> None:
        """Each second: say who follows each table from this host, learn who does from
        any, and take or keep the lease on the AI seats of the started tables."""
        while not self._stopped:
            self._beaten.clear()
            here: dict[str, dict[str, str]] = {}
            for code, table in self.tables.items():
                if table.dealer is not None:
                    who_here = table.dealer.present()
                else:
                    seated = {p.identity for p in table.seated.values()}
                    who_here = {who for who in seated if self.presence.here(who)}
                    who_here |= set(table.watchers)
                here[code] = {who: self.presence.name_of(who) for who in who_here}
            people = self.presence.people
            here[PEOPLE] = {identity: person.name for identity, person in people.items()}
            now = asyncio.get_running_loop().time()
            leases = [
                code
                for code, table in self.tables.items()
                if table.dealer is not None
                and table.dealer.journal is not None
                and (
                    table.dealer.followed
                    or now >= self._dealt_elsewhere.get(code, now - LEASE_DEFER) + LEASE_DEFER
                )
            ]
            try:
                await self.pool.reserve(shared)
                present, held = await shared.beat(self.host_id, here, leases)
                self.presence.everyone = present.pop(PEOPLE, {})
                self.presence.elsewhere = present
            except StoreAway:
                stop_if_cancelled()
                held = set()
                self.pool.renew_at = 0.0  # the whole pool again once Redis is back
            for code, table in self.tables.items():
                table.elsewhere = set(self.presence.elsewhere.get(code, ()))
                if table.dealer is not None:
                    table.dealer.elsewhere = table.elsewhere
            for code in leases:
                dealer = self.tables[code].dealer if code in self.tables else None
                if dealer is None:
                    continue
                if code in held and not dealer.plays_ai and code not in self._following:
                    await self._catch_up(shared, code)  # taken over: from where it stands
                dealer.set_plays_ai(code in held)
            self._leases = held
            with contextlib.suppress(TimeoutError):  # not wait_for: see stop_if_cancelled
                async with asyncio.timeout(BEAT):
                    await self._beaten.wait()
            stop_if_cancelled()

    def _screen_came(self, code: str) -> None:
        """A screen here began to follow a table: if this host was not reading its log,
        it catches up at once, so the screen shows the table as it stands (the blocking
        read under way would come round to it only when it ends, up to a second on).
        While Redis is out of reach, the table is told so again (`StoreNotices.came`)."""
        if code in self.tables:
            self.notices.came(self.tables[code])
        if self.shared is None or code in self._following:
            return
        self._catching.add(detached(self._catch_up(self.shared, code), done=self._catching.discard))

    async def _catch_up(self, shared: RedisStore, code: str) -> None:
        """Apply at once what a table's log holds past its dealer here (a table this host
        did not follow: a screen came to it, or it takes its AI lease), and count it as
        shown: its viewers and its AI take the table as it is now (StoreAway: left to
        the next blocking read, which reads the table on from its dealer's version)."""
        table = self.tables.get(code)
        dealer = table.dealer if table is not None else None
        if dealer is None or dealer.journal is None:
            return
        after = dealer.journal.version
        try:
            missed = await shared.entries(code, after)
        except StoreAway:
            stop_if_cancelled()
            return
        if await dealer.absorb([(after + 1 + i, e) for i, e in enumerate(missed)]):
            dealer.caught_up()
