"""Many hosts, one cantina: lobbies sharing one real redis-server. A table opened on one
host shows in the other's lobby; a seat goes to one person however many hosts claim it at
once; a pick made on either host is applied by both, once, in order; the AI seats are
played by the one host holding the table's lease, and by another when that one stops."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from redis_server import needs_redis, redis_server  # noqa: F401

from cantina.dealer import ASKING, OVER, Pace
from cantina.games.valdes import ValDesSettings
from cantina.lobby import Lobby, Player, SharedTable
from cantina.seating import Seat, TableSetup
from cantina.store.redis_store import RedisStore

pytestmark = needs_redis

FAST = Pace(beat=0, roll=0)


def four_seats(seed: int = 9) -> TableSetup:
    """Val-Des for two people and two AIs."""
    seats = (Seat("Ana"), Seat("Bo"), Seat("Cyd", "Expert"), Seat("Dee", "Bold"))
    return TableSetup("valdes", ValDesSettings(seats=4), seats, seed)


async def until(check: Callable[[], object], timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def host(url: str) -> Lobby:
    lobby = Lobby(store=RedisStore.from_url(url), pace=FAST, away_grace=600)
    await lobby.restore()
    return lobby


async def stop(*lobbies: Lobby) -> None:
    for lobby in lobbies:
        lobby.close_all()
        await lobby.store.close()


ANA = Player("key:ana", "Ana")
BO = Player("key:bo", "Bo")


async def test_a_table_opened_on_one_host_is_joined_and_played_from_another(
    redis_server,  # noqa: F811
):
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        table = a.create(four_seats(), ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].seated)
        there = b.tables[table.code]
        assert there.seated == {0: ANA} and not there.started
        assert b.join(there, BO) == 1
        await until(lambda: table.seated.get(1) == BO)  # host A sees Bo sit down
        dealer = a.start(table, ANA)
        await until(lambda: there.started)
        other = there.dealer
        assert other is not None
        ana_at, bo_at = table.place_of(ANA), there.place_of(BO)
        rng = random.Random(4)
        picks = 0
        while dealer.turn.kind != OVER:
            await until(lambda: dealer.turn.kind in (ASKING, OVER) and other.turn == dealer.turn)
            if dealer.turn.kind == OVER:
                break
            seat = dealer.turn.seat
            moves = len(table.live.moves)
            if seat == 0:
                dealer.pick(ana_at, rng.choice(dealer.turn.decision.options))
            else:  # Bo's pick, made on host B, reaches host A
                other.pick(bo_at, rng.choice(other.turn.decision.options))
            picks += 1
            await until(lambda moves=moves: len(table.live.moves) > moves)
        await until(lambda: other.turn.kind == OVER)
        assert picks >= 2
        assert table.live.log == there.live.log and table.live.moves == there.live.moves
        ai_seats = {2, 3}
        assert any(m.seat in ai_seats for m in table.live.moves)
        entries = await a.store.entries(table.code)
        assert len(entries) == len(table.live.moves) == len({e.id for e in entries})
        # one host held the lease and played every AI move; the other played none
        assert dealer.plays_ai != other.plays_ai
    finally:
        await stop(a, b)


async def test_one_seat_claimed_from_two_hosts_at_once_goes_to_one_person(
    redis_server,  # noqa: F811
):
    """Ana's table has one free seat; Bo on host B and Cy on host C take it at the same
    moment. Redis gives it to one; every host ends up with the same one in it."""
    a, b, c = [await host(redis_server.url) for _ in range(3)]
    try:
        setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("Ana"), Seat("Second")), seed=3)
        table = a.create(setup, ANA)
        await until(lambda: table.code in b.tables and table.code in c.tables)
        await until(lambda: b.tables[table.code].seated and c.tables[table.code].seated)
        cy = Player("key:cy", "Cy")
        b.join(b.tables[table.code], BO)  # each host seats them at once, as the screen asks
        c.join(c.tables[table.code], cy)
        store = a.shared
        assert store is not None

        async def agreed() -> bool:
            stored = await store.table(table.code, entries=False)
            assert stored is not None
            held = stored.record.seated.get(1)
            views = [lobby.tables[table.code].seated.get(1) for lobby in (a, b, c)]
            return held is not None and all(
                v is not None and v.identity == held.identity for v in views
            )

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 15
        while not await agreed():
            assert loop.time() < deadline, [lobby.tables[table.code].seated for lobby in (a, b, c)]
            await asyncio.sleep(0.05)
        winner = table.seated[1].identity
        assert winner in (BO.identity, cy.identity)
        loser = b if winner == cy.identity else c
        assert loser.tables[table.code].seat_of(BO.identity if loser is b else cy.identity) is None
    finally:
        await stop(a, b, c)


async def test_the_ai_seats_go_on_on_another_host_when_the_lease_holder_stops(
    redis_server,  # noqa: F811
):
    """Two hosts follow a table with AI seats; the host holding its lease stops without
    a word (its tasks end, nothing is dropped): within the lease the other takes over and
    the AI seats play on, each decision applied once."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        setup = TableSetup(
            "valdes",
            ValDesSettings(seats=3),
            (Seat("Ana"), Seat("Cyd", "Expert"), Seat("Dee", "Bold")),
            seed=21,
        )
        table = a.create(setup, ANA)
        a.start(table, ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].started)
        mine, theirs = table, b.tables[table.code]
        await until(lambda: mine.dealer.plays_ai or theirs.dealer.plays_ai)
        holder, follower = (a, b) if mine.dealer.plays_ai else (b, a)
        held, kept = holder.tables[table.code], follower.tables[table.code]
        assert not kept.dealer.plays_ai
        ana = kept.place_of(ANA)
        await until(lambda: kept.dealer.turn.kind in (ASKING, OVER))
        before = len(kept.live.moves)
        # the holder dies: no more beats, no more dealing, its lease left to lapse
        for task in holder._tasks:
            task.cancel()
        held.dealer.close()
        if kept.dealer.turn.kind == ASKING and kept.dealer.turn.seat == 0:
            kept.dealer.pick(ana, kept.dealer.turn.decision.options[0])
        await until(lambda: kept.dealer.plays_ai, timeout=10)
        await until(
            lambda: (
                any(m.seat in (1, 2) for m in kept.live.moves[before:])
                or kept.dealer.turn.kind == OVER
            ),
            timeout=15,
        )
        entries = await follower.store.entries(table.code)
        assert len(entries) == len({e.id for e in entries})
    finally:
        await stop(a, b)


def seat_people(table: SharedTable) -> dict[int, str]:
    return {seat: p.identity for seat, p in table.seated.items()}
