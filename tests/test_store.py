"""The table store against a real redis-server: a decision made against a version no
longer current is refused, a decision whose answer was lost is applied once, two
appliers racing at one table leave the log a single process would, and a lobby reads its
tables back, each rebuilt from its seed and its decisions, its dealer going on."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from redis_server import RedisServer, needs_redis, redis_server  # noqa: F401

from cantina.dealer import ASKING, Pace, apply_entry
from cantina.games.table import Move
from cantina.games.valdes import ValDesSettings
from cantina.live import LiveTable
from cantina.lobby import Lobby, Player
from cantina.seating import Seat, TableSetup
from cantina.store.memory import InProcessStore, Journal
from cantina.store.records import SeatedRecord, TableRecord, encode_setup, move_entry
from cantina.store.redis_store import RedisStore

pytestmark = needs_redis


def duel(seed: int = 7) -> TableSetup:
    seats = (Seat("Ana"), Seat("Bo"))
    return TableSetup("valdes", ValDesSettings(seats=2), seats, seed)


def record(code: str, setup: TableSetup) -> TableRecord:
    ana = SeatedRecord("key:ana", "Ana")
    return TableRecord(
        code=code, setup=encode_setup(setup), creator=ana, stand_in="Cautious", started=True
    )


def some_move(table: LiveTable, rng: random.Random) -> Move:
    decision = table.game.pending
    assert decision is not None
    return Move(decision.seat, rng.choice(decision.options))


@pytest.fixture(params=["redis", "memory"])
async def store(request, tmp_path):
    if request.param == "memory":
        yield InProcessStore(durable=True)
        return
    server = RedisServer(tmp_path)
    server.start()
    store = RedisStore.from_url(server.url)
    yield store
    await store.close()
    server.stop()


async def test_a_stale_decision_is_refused_and_a_lost_answer_is_applied_once(store):
    """Two decisions made at version 0: the first is taken, the second refused, and the
    log keeps the first only. The first made again (its answer lost, say) is found in the
    log: taken once, not twice."""
    store.save(record("ABCD", duel()))
    table = LiveTable(duel())
    rng = random.Random(1)
    first = move_entry(some_move(table, rng), None)
    other = move_entry(some_move(table, rng), None)
    assert await store.append("ABCD", 0, first)
    assert not await store.append("ABCD", 0, other)
    assert [e.id for e in await store.entries("ABCD")] == [first.id]
    journal = Journal(store, "ABCD", version=0)  # a host that never heard the answer
    landed, accepted = await journal.record(first)
    assert accepted and [e.id for e in landed] == [first.id] and journal.version == 1
    late = Journal(store, "ABCD", version=0)
    landed, accepted = await late.record(other)
    assert not accepted and [e.id for e in landed] == [first.id]
    assert [e.id for e in await store.entries("ABCD")] == [first.id]


async def applier(
    store, code: str, setup: TableSetup, rng: random.Random, cap: int
) -> tuple[LiveTable, list[str]]:
    """One host applying decisions to a table as fast as it can (a random legal one for
    whoever is asked), recording each first; what it had taken."""
    table = LiveTable(setup)
    journal = Journal(store, code)
    taken: list[str] = []
    while table.game.pending is not None and len(table.moves) < cap:
        entry = move_entry(some_move(table, rng), None)
        for _ in range(rng.randrange(3)):
            await asyncio.sleep(0)
        landed, accepted = await journal.record(entry)
        for item in landed:
            apply_entry(table, item, own=item.id == entry.id)
        if accepted:
            taken.append(entry.id)
    for item in await store.entries(code, journal.version):  # catch up with the other
        apply_entry(table, item)
    return table, taken


async def test_racing_appliers_leave_the_log_of_one_process(tmp_path):
    """200 races of two appliers (each with its own Redis client) at one table: every
    decision in the log was taken by exactly one of them, none twice, and each one's
    table, and a single-process replay of the log, tell the same story."""
    server = RedisServer(tmp_path)
    server.start()
    first, second = RedisStore.from_url(server.url), RedisStore.from_url(server.url)
    refused = 0
    try:
        for race in range(200):
            code = f"R{race}"
            setup = duel(seed=race)
            first.save(record(code, setup))
            await first.flush()  # the table is there before either applies to it
            rng = random.Random(race)
            (one, took_one), (two, took_two) = await asyncio.gather(
                applier(first, code, setup, random.Random(rng.random()), 12),
                applier(second, code, setup, random.Random(rng.random()), 12),
            )
            entries = await first.entries(code)
            ids = [e.id for e in entries]
            assert len(set(ids)) == len(ids)
            assert sorted(took_one + took_two) == sorted(ids)
            refused += 2 * len(ids) - len(took_one) - len(took_two)
            replayed = LiveTable(setup)
            for entry in entries:
                apply_entry(replayed, entry)
            assert one.log == two.log == replayed.log
            assert one.moves == two.moves == replayed.moves
    finally:
        await first.close()
        await second.close()
        server.stop()
    assert refused > 0  # the races did collide


async def test_a_lobby_takes_its_tables_up_again_from_redis(redis_server):  # noqa: F811
    """A started table with decisions made is read back by a new lobby on the same
    Redis: same seats and rejoin codes, the same story, and its dealer asks the same
    person the same decision; a pick there goes on into the log."""
    setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("Ana"), Seat("Guest")), 5)
    store = RedisStore.from_url(redis_server.url)
    lobby = Lobby(store=store, pace=Pace(beat=0, roll=0))
    ana, guest = Player("key:ana", "Ana"), Player("guest:1", "Gus")
    table = lobby.create(setup, ana)
    lobby.join(table, guest)
    dealer = await lobby.started(table, ana)
    rng = random.Random(3)
    for _ in range(5):
        await wait_for(lambda: dealer.turn.kind == ASKING)
        seat = dealer.turn.seat
        place = table.place_of(ana if table.seated[seat] == ana else guest)
        before = len(table.live.moves)
        dealer.pick(place, rng.choice(dealer.turn.decision.options))
        await wait_for(lambda before=before: len(table.live.moves) > before)
    await wait_for(lambda: dealer.turn.kind == ASKING)
    log, moves, asked = list(table.live.log), list(table.live.moves), dealer.turn
    lobby.close_all()  # the host stops; the table stays in Redis
    await store.close()

    store = RedisStore.from_url(redis_server.url)
    again = Lobby(store=store, pace=Pace(beat=0, roll=0))
    assert await again.restore() == [table.code]
    back = again.tables[table.code]
    assert back.seated == {0: Player("key:ana", "Ana"), 1: Player("guest:1", "Gus")}
    assert back.rejoin == table.rejoin and back.started
    assert back.live.log == log and back.live.moves == moves
    await wait_for(lambda: back.dealer.turn.kind == ASKING)
    assert back.dealer.turn == asked
    place = back.place_of(back.seated[asked.seat])
    back.dealer.pick(place, asked.decision.options[0])
    await wait_for(lambda: len(back.live.moves) == len(moves) + 1)
    assert len(await store.entries(table.code)) == len(moves) + 1
    again.close(back)  # closed for good: Redis forgets it
    await asyncio.sleep(0.2)
    assert await store.load() == []
    await store.close()


async def wait_for(check, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_hosts_whose_clocks_disagree_agree_on_who_is_here(tmp_path, monkeypatch):
    """Host A's clock runs a minute behind (a VM that lost time): bob, who follows a table
    from A, is still seen from host B, and once A stops saying so he is gone from B's
    view after the short while a word of presence holds, not a minute later. Expiries
    are set and read on Redis's clock, never a host's."""
    monkeypatch.setattr("cantina.store.redis_store.HERE_MS", 400)
    server = RedisServer(tmp_path)
    server.start()
    a, b = RedisStore.from_url(server.url), RedisStore.from_url(server.url)
    try:
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() - 60)  # A's beat, a minute behind
        await a.beat("host-a", {"ABCD": {"key:bob": "bob"}}, [])
        monkeypatch.setattr(time, "time", lambda: real() + 60)  # B's, a minute ahead
        seen, _ = await b.beat("host-b", {"ABCD": {"key:eve": "eve"}}, [])
        assert seen["ABCD"] == {"key:bob": "bob", "key:eve": "eve"}
        await asyncio.sleep(0.6)  # A says nothing more; eve's host goes on beating
        seen, _ = await b.beat("host-b", {"ABCD": {"key:eve": "eve"}}, [])
        assert seen["ABCD"] == {"key:eve": "eve"}
    finally:
        await a.close()
        await b.close()
        server.stop()
