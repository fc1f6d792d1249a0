"""Many hosts, each reading only the logs of the tables it has a reason to: a screen of
its own on the table, its AI lease, its own people seated there. Another host's table
wakes nothing here, until one of those comes; then the host reads it on from where its
dealer stood, and misses nothing (real redis-server, what each host asks Redis counted)."""

from __future__ import annotations

import asyncio
import random
from functools import partial
from typing import Any

import msgspec
import waiting
from redis_server import needs_redis, redis_server  # noqa: F401
from test_multihost import ANA, host, stop

from cantina.dealer import ASKING, OVER, Place
from cantina.games.table import Move
from cantina.games.valdes import ValDesSettings
from cantina.live import LiveTable
from cantina.lobby import Lobby
from cantina.seating import Seat, TableSetup
from cantina.store.memory import Journal
from cantina.store.records import SeatedRecord, TableRecord, encode_setup, move_entry
from cantina.store.redis_store import RedisStore

until = partial(waiting.until, timeout=15.0)  # its limit here, as before

pytestmark = needs_redis


def count_reads(lobby: Lobby) -> list[set[str]]:
    """The streams each of the lobby's blocking reads asks Redis for, one set a read
    (XREAD BLOCK ms STREAMS, its keys, then as many IDs)."""
    assert lobby.shared is not None
    reader = lobby.shared.reader
    call = reader.call
    asked: list[set[str]] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        if args[0] == "XREAD":
            streams = args[4:]
            asked.append({str(key) for key in streams[: len(streams) // 2]})
        return call(*args, **kwargs)

    reader.call = counted  # type: ignore[method-assign]
    return asked


def three_seats() -> TableSetup:
    seats = (Seat("Ana"), Seat("Cyd", "Expert"), Seat("Dee", "Bold"))
    return TableSetup("valdes", ValDesSettings(seats=3), seats, seed=21)


async def play(lobby: Lobby, code: str, decisions: int, rng: random.Random) -> None:
    """Ana's picks (and the AI's moves between them) at her table on `lobby`."""
    dealer = lobby.tables[code].dealer
    assert dealer is not None
    ana = lobby.tables[code].place_of(ANA)
    target = dealer.journal.version + decisions
    while dealer.journal.version < target:
        await until(lambda: dealer.turn.kind in (ASKING, OVER) or dealer.journal.version >= target)
        if dealer.journal.version >= target or dealer.turn.kind == OVER:
            break
        if dealer.turn.seat == 0:
            version = dealer.journal.version
            dealer.pick(ana, rng.choice(dealer.turn.decision.options))
            await until(lambda version=version: dealer.journal.version > version)


async def test_a_host_reads_no_log_of_a_table_it_has_no_reason_to_until_a_screen_comes(
    redis_server,  # noqa: F811
):
    """Ana plays on host A; host B has the table in its lobby, and no screen, lease or
    player of its own there: B's blocking reads never ask for the table's log while A
    records decisions. A spectator's screen on B: B reads the log on from where its
    dealer stood, applies what it missed at once, and follows each decision after."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        a.arrived(ANA)
        table = a.create(three_seats(), ANA)
        await a.started(table, ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].started)
        await until(lambda: table.dealer.plays_ai)  # A holds the AI lease
        log_key = a.shared.log_key(table.code)
        asked = count_reads(b)
        there = b.tables[table.code].dealer
        assert there is not None
        stood = there.journal.version
        rng = random.Random(3)
        await play(a, table.code, 6, rng)
        await until(lambda: len(asked) >= 3)  # B has read the streams since, more than once
        assert asked and not any(log_key in streams for streams in asked)
        assert there.journal.version == stood < table.dealer.journal.version
        assert not there.plays_ai

        seen: list[int] = []
        there.follow(lambda: seen.append(1), Place(frozenset(), player=False, who="key:cy"))
        await until(lambda: there.journal.version == table.dealer.journal.version)
        assert there.table.moves == table.live.moves
        assert there.shown == len(there.table.log)  # applied at once, not replayed
        await until(lambda: any(log_key in streams for streams in asked))  # read on from here
        await play(a, table.code, 4, rng)
        await until(lambda: there.table.log == table.live.log)
    finally:
        await stop(a, b)


async def test_a_screen_coming_to_a_table_its_host_did_not_read_catches_up_by_itself(
    redis_server,  # noqa: F811
):
    """A spectator's screen on host B, at a table B has not read the log of, shows the
    table as it stands at once: B catches up as the screen comes, not when its blocking
    read under way next comes round (up to a second on). B's reading loop is stopped
    here, so only the screen's coming can bring the table up to date."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        a.arrived(ANA)
        table = a.create(three_seats(), ANA)
        await a.started(table, ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].started)
        await until(lambda: table.dealer.plays_ai)
        await play(a, table.code, 5, random.Random(8))
        there = b.tables[table.code].dealer
        assert there is not None
        assert there.journal.version < table.dealer.journal.version
        reading = next(task for task in b.hosts._tasks if task.get_name() == "lobby-follow")
        reading.cancel()
        await asyncio.gather(reading, return_exceptions=True)

        there.follow(lambda: None, Place(frozenset(), player=False, who="key:cy"))
        await until(lambda: there.journal.version == table.dealer.journal.version, timeout=5)
        assert there.table.moves == table.live.moves
        assert there.shown == len(there.table.log)
    finally:
        await stop(a, b)


async def test_a_host_that_did_not_follow_a_table_takes_its_lease_from_where_it_stands(
    redis_server,  # noqa: F811
):
    """Host A plays a table host B has not read the log of; A stops: B takes the AI lease,
    reads what went by unread first, and its AI plays on from the table as it stands,
    every decision in the log once and in order."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        a.arrived(ANA)
        table = a.create(three_seats(), ANA)
        await a.started(table, ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].started)
        await until(lambda: table.dealer.plays_ai)
        await play(a, table.code, 4, random.Random(5))
        there = b.tables[table.code].dealer
        assert there is not None
        assert there.journal.version < table.dealer.journal.version  # B reads it not
        done = table.dealer.journal.version
        await stop(a)
        await until(lambda: there.plays_ai)
        assert there.journal.version >= done
        assert there.table.moves[:done] == table.live.moves[:done]
        await until(lambda: there.turn.kind == ASKING and there.turn.seat == 0, timeout=20)
        entries = await b.store.entries(table.code)
        assert len(entries) == there.journal.version == len({e.id for e in entries})
    finally:
        await stop(b)


def count_commands(store: RedisStore) -> list[str]:
    """The commands the store sends Redis, by name, one a round trip (no pipelines):
    through the client's pool, and through the store's own connection (`Line`)."""
    client, line = store.client, store.line
    execute, call = client.execute_command, line.call
    sent: list[str] = []

    def counted(*args: Any, **options: Any) -> Any:
        sent.append(str(args[0]))
        return execute(*args, **options)

    def called(*args: Any) -> Any:
        sent.append(str(args[0]))
        return call(*args)

    client.execute_command = counted  # type: ignore[method-assign]
    line.call = called  # type: ignore[method-assign]
    return sent


async def test_a_tables_first_decision_goes_with_its_record_in_one_round_trip(
    redis_server,  # noqa: F811
):
    """A table's record waiting to be written (just set, just started) and its first
    decision: one script, one round trip, the record then the decision. The decisions
    after it: one round trip each. A record refused for its code (another host holds it)
    takes its decision down with it: nothing of the table is written."""
    store = RedisStore.from_url(redis_server.url)
    try:
        await store.ping()
        sent = count_commands(store)
        setup = three_seats()
        record = TableRecord(
            code="ONE1",
            setup=encode_setup(setup),
            creator=SeatedRecord(ANA.identity, ANA.name),
            stand_in="Cautious",
            started=True,
        )
        store.save(record, new=True)
        table, journal = LiveTable(setup), Journal(store, "ONE1")
        for number in range(3):
            move = some_move(table)
            landed, taken = await journal.record(move_entry(move, None))
            assert len(landed) == 1
            assert taken and len(sent) == number + 1
            table.submit(move.seat, move.action)
        assert sent == ["EVALSHA"] * 3
        stored = await store.table("ONE1")
        assert stored is not None and stored.record.started and len(stored.entries) == 3

        other = "other-host"
        await store.client.set(store.code_key("TWO2"), other, px=60_000)
        lost: list[str] = []
        store.on_taken(lost.append)
        store.save(msgspec.structs.replace(record, code="TWO2"), new=True)
        before = len(sent)
        move = some_move(LiveTable(setup))
        assert not await store.append("TWO2", 0, move_entry(move, None))
        assert len(sent) == before + 1 and lost == ["TWO2"]
        assert await store.table("TWO2") is None
        assert await store.entries("TWO2") == []
    finally:
        await store.close()


def some_move(table: LiveTable) -> Move:
    decision = table.game.pending
    assert decision is not None
    return Move(decision.seat, decision.options[0])
