"""Many hosts, one cantina: lobbies sharing one real redis-server. A table opened on one
host shows in the other's lobby; a seat goes to one person however many hosts claim it at
once; a pick made on either host is applied by both, once, in order; the AI seats are
played by the one host holding the table's lease, and by another when that one stops."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Callable
from functools import partial
from itertools import pairwise

import pytest
import redis
import test_ssh
import waiting
from redis_server import free_port, needs_redis, redis_server  # noqa: F401
from ssh_clients import OpenSSH, plain
from test_ssh import Keys, needs_openssh, set_a_shared_table, take_turns
from test_store_ssh import next_offer, replayed, serve

from cantina.dealer import ASKING, OVER, Dealer, Pace, Place
from cantina.games.table import Move
from cantina.games.valdes import ValDesSettings
from cantina.live import LiveTable
from cantina.lobby import Lobby, Player, SharedTable
from cantina.lobby.code_pool import CODE_POOL
from cantina.lobby.hosts import CODE_TAKEN, FOLLOW_GAP, LEASE_DEFER, START_AGAIN, START_TRIES
from cantina.lobby.notices import STORE_AWAY, STORE_BACK
from cantina.lobby.presence import BEAT
from cantina.lobby.table import MAX_TABLES, record_of
from cantina.seating import Seat, TableSetup
from cantina.store.records import Entry, decode_record, move_entry
from cantina.store.redis_store import HERE_MS, RedisStore, Said

until = partial(waiting.until, timeout=15.0)  # its limit here, as before

pytestmark = needs_redis

FAST = Pace(beat=0, roll=0)

keys = test_ssh.keys
own_config = test_ssh.own_config


def four_seats(seed: int = 9) -> TableSetup:
    """Val-Des for two people and two AIs."""
    seats = (Seat("Ana"), Seat("Bo"), Seat("Cyd", "Expert"), Seat("Dee", "Bold"))
    return TableSetup("valdes", ValDesSettings(seats=4), seats, seed)


def count_thoughts(table: LiveTable) -> list[int]:
    """Count the AI's choices made for this copy of the table (one item each)."""
    thought: list[int] = []
    choose = table.ai_move

    def counted(game=None):
        thought.append(1)
        return choose(game)

    table.ai_move = counted  # type: ignore[method-assign]
    return thought


async def host(url: str, draw: Callable[[], str] | None = None) -> Lobby:
    lobby = Lobby(store=RedisStore.from_url(url), pace=FAST, away_grace=600)
    if draw is not None:
        lobby.draw_code = draw
    await lobby.restore()
    return lobby


async def stop(*lobbies: Lobby) -> None:
    for lobby in lobbies:
        lobby.close_all()
        await lobby.store.close()


ANA = Player("key:ana", "Ana")
BO = Player("key:bo", "Bo")


async def test_another_hosts_table_is_not_closed_at_once_when_that_host_falls_silent(
    redis_server,  # noqa: F811
):
    """A table set on host A, its player there: when A falls silent (its beats stop, as a
    host swamped by a crowd of logins, or dead), host B no longer sees anyone at the
    table, and may not yet know it started there. B does not close it at once (A closes
    its own tables when its people leave); only once it has stayed unheld as long as a
    started table may (`empty_after`: A is gone). With 72 players on each of two
    workers, one closed the other's tables mid-game (bench_ssh.py --playing)."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        a.arrived(ANA)
        table = a.create(four_seats(), ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].seated)
        there = b.tables[table.code]
        await until(lambda: ANA.identity in there.elsewhere)  # A says Ana is at it
        a.close_all()  # A falls silent; what it said lapses (HERE_MS), its table is kept
        loop = asyncio.get_running_loop()
        await until(lambda: not there.elsewhere and loop.time() >= there.held_until)
        b.sweep(empty_after=3.0)
        b.sweep(empty_after=3.0)
        assert b.tables.get(table.code) is there  # not closed at once
        await asyncio.sleep(3.2)
        b.sweep(empty_after=3.0)
        assert table.code not in b.tables  # unheld that long: its host is gone
    finally:
        await stop(a, b)


async def test_a_table_opened_on_one_host_is_joined_and_played_from_another(
    redis_server,  # noqa: F811
):
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        a.arrived(ANA)
        b.arrived(BO)
        table = a.create(four_seats(), ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].seated)
        there = b.tables[table.code]
        assert there.seated == {0: ANA} and not there.started
        await until(lambda: b.name_of(ANA.identity) == "Ana")  # present on host A
        assert b.join(there, BO) == 1
        await until(lambda: table.seated.get(1) == BO)  # host A sees Bo sit down
        dealer = await a.started(table, ANA)
        thoughts = {"a": count_thoughts(dealer.table)}
        await until(lambda: there.started)
        other = there.dealer
        assert other is not None
        thoughts["b"] = count_thoughts(other.table)
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
        # one host held the lease and thought for every AI move; the other never thought
        assert dealer.plays_ai != other.plays_ai
        holder, follower = ("a", "b") if dealer.plays_ai else ("b", "a")
        assert thoughts[holder] and not thoughts[follower]
    finally:
        await stop(a, b)


async def test_one_seat_claimed_from_two_hosts_at_once_goes_to_one_person(
    redis_server,  # noqa: F811
):
    """Ana's table has one free seat; Bo on host B and Cy on host C take it at the same
    moment. Redis gives it to one; every host ends up with the same one in it, and the
    other is told on their host's screen that the seat went to someone else."""
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
        lost = BO if loser is b else cy
        assert loser.tables[table.code].seat_of(lost.identity) is None
        # the one who lost the race is told so, in one line at the table on their host
        won = table.seated[1].name
        await until(lambda: loser.tables[table.code].chat.lines)
        told = [line.plain() for line in loser.tables[table.code].chat.lines]
        assert told == [
            f"Cantina: {lost.name}: seat 2 went to {won} a moment before you, through another"
            " host; you may watch, or leave for another table."
        ]
        winner_host = c if loser is b else b
        await asyncio.sleep(0.3)
        assert not winner_host.tables[table.code].chat.lines
        assert not a.tables[table.code].chat.lines  # said on the loser's host only
    finally:
        await stop(a, b, c)


async def test_the_ai_seats_go_on_on_another_host_when_the_lease_holder_stops(
    redis_server,  # noqa: F811
):
    """Two hosts follow a table with AI seats (a spectator's screen on the one without
    its lease: test_follow_tables.py has a host that follows it not); the host holding
    its lease stops without a word (its tasks end, nothing is dropped): within the lease
    the other takes over and the AI seats play on, each decision applied once."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        setup = TableSetup(
            "valdes",
            ValDesSettings(seats=3),
            (Seat("Ana"), Seat("Cyd", "Expert"), Seat("Dee", "Bold")),
            seed=21,
        )
        table = a.create(setup, ANA)
        await a.started(table, ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].started)
        mine, theirs = table, b.tables[table.code]
        await until(lambda: mine.dealer.plays_ai or theirs.dealer.plays_ai)
        holder, follower = (a, b) if mine.dealer.plays_ai else (b, a)
        held, kept = holder.tables[table.code], follower.tables[table.code]
        assert not kept.dealer.plays_ai
        kept.dealer.follow(lambda: None, Place(frozenset(), player=False, who="key:cy"))
        ana = kept.place_of(ANA)
        await until(lambda: kept.dealer.turn.kind in (ASKING, OVER))
        before = len(kept.live.moves)
        # the holder dies: no more beats, no more dealing, its lease left to lapse
        for task in holder.hosts._tasks:
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


# --- real hosts, real SSH clients ------------------------------------------------------------


DOINGS = "(rolls|stays|buys mercy|votes to|sets the stake|challenges|puts|takes|pays)"
"""What the narration says a person at a Vigo's Favor table did."""


async def play_to_the_end(players: dict[str, OpenSSH], limit: int = 150) -> None:
    """Each player answers whatever they are offered with its first option (key 1), a
    few times a second, until the game's result is on every player's screen."""
    marks = {name: ssh.mark() for name, ssh in players.items()}

    def over(name: str) -> bool:
        return "Next round" in plain(bytes(players[name].output[marks[name] :]))

    for _ in range(limit):
        if all(over(name) for name in players):
            return
        for ssh in players.values():
            ssh.send("1")
        await asyncio.sleep(0.2)
    raise AssertionError(f"still playing after {limit} answers each")


async def lease_holder(store: RedisStore, code: str) -> int:
    """The process whose host holds the table's lease on its AI seats."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 15
    while (holder := await store.client.get(store.lease_key(code))) is None:
        assert loop.time() < deadline, "no host took the table's AI seats"
        await asyncio.sleep(0.1)
    return int(bytes(holder).split(b"-")[0])


async def checked_log(store: RedisStore, code: str) -> tuple[LiveTable, list[Entry]]:
    """The table's log as Redis has it, each decision once, replayed from its seed by a
    single process (IllegalAction if one had been lost or applied twice)."""
    entries = await store.entries(code)
    assert len({e.id for e in entries}) == len(entries)
    record = decode_record(await store.client.hget(store.table_key(code), "record"))
    return replayed(bytes(record.setup), entries), entries


@needs_openssh
async def test_two_hosts_play_one_table_to_its_end_and_a_third_shows_it(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """alice on host A sets a table, bob on host B joins it by its code, they play to
    the game's end, each seeing the other's calls; carol watches from host C, and both
    players' screens count her watching."""
    store = RedisStore.from_url(redis_server.url)
    hosts: list[asyncio.subprocess.Process] = []
    clients: list[OpenSSH] = []
    try:
        ports = [free_port() for _ in range(3)]
        for port in ports:
            hosts.append((await serve(keys, port, redis_server.url, "--open"))[0])
        alice = await OpenSSH.start(keys.player, ports[0], "-tt", user="alice")
        bob = await OpenSSH.start(keys.partner, ports[1], "-tt", user="bob")
        carol = await OpenSSH.start(keys.stranger, ports[2], "-tt", user="carol")
        clients += [alice, bob, carol]
        code = await set_a_shared_table(alice, bob, key="v", title="Vigo's Favor")
        marks = {"alice": alice.mark(), "bob": bob.mark()}
        await carol.expect(code)
        await carol.expect("playing")
        watching = carol.mark()
        carol.send("w")
        await carol.expect("Watching table", since=watching)
        await alice.expect("1 watching", since=marks["alice"])  # carol, on another host
        await bob.expect("1 watching", since=marks["bob"])

        players = {"alice": alice, "bob": bob}
        await play_to_the_end(players)
        for ssh, since in ((alice, marks["alice"]), (bob, marks["bob"]), (carol, watching)):
            await ssh.expect("It is over", since=since)  # the end, on all three hosts
        table, entries = await checked_log(store, code)
        assert table.game.pending is None  # the log is a whole game, to its end
        humans = {i for i, seat in enumerate(table.setup.seats) if seat.human}
        assert len(humans) == 2
        for _ in range(8):  # rounds on, until each player has decided something
            if {e.seat for e in entries} >= humans:
                break
            for ssh in players.values():
                ssh.send("n")  # play on: the next round, once, for everyone
            await play_to_the_end(players)
            table, entries = await checked_log(store, code)
        assert {e.seat for e in entries} >= humans
        for ssh, since in ((alice, marks["alice"]), (bob, marks["bob"]), (carol, watching)):
            told = plain(bytes(ssh.output[since:]))
            for name in ("alice", "bob"):  # each one's doings, narrated on every screen
                assert re.search(rf"{name}(, the Vigo,)? {DOINGS}", told), (name, told[-800:])
    finally:
        for client in clients:
            client.kill()
        for process in hosts:
            if process.returncode is None:
                process.kill()
                await process.wait()
        await store.close()


@needs_openssh
async def test_hosts_killed_mid_game_lose_no_decision_and_players_come_back_elsewhere(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """alice on host A, bob on host B, a third host C. The host holding the table's AI
    lease is killed with -9 mid-game: another takes the lease and the AI seats play on;
    a player whose host it was comes back through host C by their key and is asked the
    same decision. Then a player's host not holding the lease is killed: the same. The
    log in Redis holds every decision once, and a single process replays it."""
    store = RedisStore.from_url(redis_server.url)
    hosts: dict[int, asyncio.subprocess.Process] = {}
    clients: list[OpenSSH] = []
    player_keys = {"alice": keys.player, "bob": keys.partner}
    try:
        ports = [free_port() for _ in range(3)]
        for port in ports:
            hosts[port] = (await serve(keys, port, redis_server.url))[0]
        alice = await OpenSSH.start(keys.player, ports[0], "-tt", user="alice")
        bob = await OpenSSH.start(keys.partner, ports[1], "-tt", user="bob")
        clients += [alice, bob]
        code = await set_a_shared_table(alice, bob)
        players = {"alice": alice, "bob": bob}
        where = {"alice": ports[0], "bob": ports[1]}
        await take_turns(players)
        holder = await lease_holder(store, code)
        ai_hosts = [port for port, process in hosts.items() if process.pid == holder]
        assert len(ai_hosts) == 1

        async def kill_host(port: int) -> None:
            """kill -9 the host at `port`, at a moment a person is asked; whoever played
            through it comes back through host C, by key, and is asked the same."""
            offers = {name: ssh.mark() for name, ssh in players.items()}
            asked = await next_offer(players, offers)
            before = [e.id for e in await store.entries(code)]
            hosts[port].kill()
            await hosts[port].wait()
            lost = [name for name, at in where.items() if at == port]
            for name in lost:
                players[name].kill()
                players[name] = await OpenSSH.start(player_keys[name], ports[2], "-tt", user=name)
                clients.append(players[name])
                where[name] = ports[2]
            await players[asked].expect(f"{asked}, call Val or Des", timeout=30)
            assert [e.id for e in await store.entries(code)] == before
            await take_turns(players, since={n: 0 if n in lost else offers[n] for n in players})
            await take_turns(players)  # a round more: the AI seats play between
            table, after = await checked_log(store, code)
            assert [e.id for e in after[: len(before)]] == before
            ai_seats = {i for i, seat in enumerate(table.setup.seats) if not seat.human}
            assert any(e.seat in ai_seats for e in after[len(before) :])

        await kill_host(ai_hosts[0])
        assert await lease_holder(store, code) != holder  # another host took the AI seats
        others = [port for port in where.values() if port != ports[2]]
        if others:  # a player's host still up, the AI played elsewhere: kill it too
            await kill_host(others[0])
        assert set(where.values()) == {ports[2]} or ai_hosts[0] == ports[2]
    finally:
        for client in clients:
            client.kill()
        for process in hosts.values():
            if process.returncode is None:
                process.kill()
                await process.wait()
        await store.close()


def hold_scripts(store: RedisStore, *names: str) -> asyncio.Event:
    """Hold the store's scripts of these names (those it has) until the event is set."""
    release = asyncio.Event()
    run = store._run
    scripts = [getattr(store, name) for name in names if hasattr(store, name)]

    async def held(script, keys, args):
        if script in scripts:
            await release.wait()
        return await run(script, keys, args)

    store._run = held  # type: ignore[method-assign]
    return release


async def test_a_seat_claimed_on_one_host_as_the_table_starts_on_another_is_played(
    redis_server,  # noqa: F811
):
    """Ivy presses s on host A while Fay sits down on host B, and Fay's claim reaches
    Redis before A's start does (A's start is held here until then, so the race always
    goes so). The start is checked against the seats Redis holds: it is dealt again with
    Fay in seat 2, and she plays there, on both hosts and in Redis, with no word of a seat
    lost (issue 15)."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    ivy, fay = Player("key:ivy", "Ivy"), Player("key:fay", "Fay")
    try:
        setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("Ivy"), Seat("Second")), seed=3)
        table = a.create(setup, ivy)
        await until(lambda: table.code in b.tables and b.tables[table.code].seated)
        there = b.tables[table.code]
        store = a.shared
        assert store is not None
        release = hold_scripts(store, "_start", "_keep", "_keep_append")
        a.start(table, ivy)
        with pytest.raises(ValueError, match="starting"):  # on its way: no seat here now
            a.join(table, BO)
        assert b.join(there, fay) == 1
        raw = redis.Redis.from_url(redis_server.url)
        seats_key = store.seats_key(table.code)
        await until(lambda: raw.hexists(seats_key, "1") and not b.hosts._claiming)
        release.set()  # Fay's claim went through first: now A's start lands
        await until(lambda: table.started and there.started)
        assert table.seat_of(fay.identity) == 1 and there.seat_of(fay.identity) == 1
        assert sorted(raw.hgetall(seats_key)) == [b"0", b"1"]
        for dealt in (table, there):
            assert dealt.setup.seats[1] == Seat("Fay")  # a person's seat, not the stand-in's
            assert dealt.dealer is not None and dealt.dealer.owners[1] == fay.identity
        record = decode_record(raw.hget(store.table_key(table.code), "record"))
        assert record.started and set(record.seated) == {0, 1}
        await asyncio.sleep(0.3)
        assert not there.chat.lines and not table.chat.lines  # nobody told of a lost seat
    finally:
        await stop(a, b)


async def test_a_seat_claimed_on_one_host_after_the_table_started_on_another_is_refused(
    redis_server,  # noqa: F811
):
    """Fay sits down on host B a moment after Ivy's start reached Redis from host A (B's
    claim held here until then): Redis refuses the claim, the table plays without her on
    both hosts, and she is told so on her host, in one line (issue 15)."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    ivy, fay = Player("key:ivy", "Ivy"), Player("key:fay", "Fay")
    try:
        setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("Ivy"), Seat("Second")), seed=3)
        table = a.create(setup, ivy)
        await until(lambda: table.code in b.tables and b.tables[table.code].seated)
        there = b.tables[table.code]
        assert b.shared is not None
        release = hold_scripts(b.shared, "_seat")
        assert b.join(there, fay) == 1
        assert await a.started(table, ivy) is not None
        release.set()  # the table started in Redis: now Fay's claim lands
        await until(lambda: there.started)
        await until(lambda: there.chat.lines)
        assert there.seat_of(fay.identity) is None and table.seat_of(fay.identity) is None
        raw = redis.Redis.from_url(redis_server.url)
        assert list(raw.hgetall(b.shared.seats_key(table.code))) == [b"0"]
        assert [line.plain() for line in there.chat.lines] == [
            "Cantina: Fay: the table started through another host a moment before your seat"
            " 2 reached it, so it plays without you; you may watch, or leave for another"
            " table."
        ]
        await asyncio.sleep(0.3)
        assert len(there.chat.lines) == 1  # told once
        assert not table.chat.lines
    finally:
        await stop(a, b)


async def test_a_start_whose_seats_keep_changing_is_refused_and_its_creator_told(
    redis_server,  # noqa: F811
):
    """Each try of Ivy's start finds the seats in Redis changed (a claim through another
    host, made here before each try lands): after START_TRIES deals the table has not
    started anywhere, and Ivy is told in one line to press s again; pressed again, with
    the seats still, it starts with everyone Redis seated."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    ivy = Player("key:ivy", "Ivy")
    try:
        seats = tuple(Seat(f"P{i}") for i in range(START_TRIES + 2))
        setup = TableSetup("valdes", ValDesSettings(seats=len(seats)), seats, seed=3)
        table = a.create(setup, ivy)
        await until(lambda: table.code in b.tables and b.tables[table.code].seated)
        there = b.tables[table.code]
        store = a.shared
        assert store is not None
        start = store.start
        joined: list[Player] = []

        async def crowded(record):  # someone sits down through B before each try
            person = Player(f"key:p{len(joined)}", f"P{len(joined)}")
            joined.append(person)
            assert b.join(there, person) is not None
            await until(lambda: not b.hosts._claiming and there.seat_of(person.identity))
            return await start(record)

        store.start = crowded  # type: ignore[method-assign]
        assert await a.started(table, ivy) is None
        assert len(joined) == START_TRIES and not table.started
        assert [line.plain() for line in table.chat.lines] == [
            "Cantina: " + START_AGAIN.format(name="Ivy")
        ]
        store.start = start  # type: ignore[method-assign]
        dealer = await a.started(table, ivy)
        assert dealer is not None and set(dealer.owners) == set(range(START_TRIES + 1))
        await until(lambda: there.started)
        assert seat_people(there) == seat_people(table)
    finally:
        await stop(a, b)


async def test_a_late_record_from_another_host_neither_reopens_nor_unstarts_a_table(
    redis_server,  # noqa: F811
):
    """Host B writes its (older) record of a table after host A closed it, or after A
    started it: the closed table stays closed, the started one stays started."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        table = a.create(four_seats(), ANA)
        await until(lambda: table.code in b.tables)
        stale = record_of(b.tables[table.code])
        a.close(table)
        await until(lambda: table.code not in b.tables)
        b.store.save(stale)
        await b.store.close()  # writes what waits
        assert await a.store.table(table.code) is None

        b = await host(redis_server.url)
        again = a.create(four_seats(), ANA)
        await until(lambda: again.code in b.tables)
        stale = record_of(b.tables[again.code])
        await a.started(again, ANA)
        await until(lambda: b.tables[again.code].started)
        b.store.save(stale)
        await asyncio.sleep(0.5)
        stored = await a.store.table(again.code)
        assert stored is not None and stored.record.started
        assert b.tables[again.code].started
    finally:
        await stop(a, b)


async def test_the_host_a_table_started_on_plays_its_ai_seats_not_another_beating_first(
    redis_server,  # noqa: F811
):
    """With `--workers N` each worker plays the AI of its own players' tables: another
    host following the table reaches for its lease only LEASE_DEFER after its start
    (then, to take over a lapsed one). Here the table's own host is slow to beat."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        setup = TableSetup(
            "valdes", ValDesSettings(seats=2), (Seat("Ana"), Seat("Cyd", "Expert")), seed=5
        )
        table = a.create(setup, ANA)
        store, held_up = a.shared, asyncio.Event()
        assert store is not None
        beat = store.beat

        async def slow_beat(*args):  # a's beats wait
            await held_up.wait()
            return await beat(*args)

        store.beat = slow_beat  # type: ignore[method-assign]
        await a.started(table, ANA)
        await until(lambda: table.code in b.tables and b.tables[table.code].dealer is not None)
        b.hosts.wake_beat()
        await asyncio.sleep(1.2)  # b has beaten, and let the lease be
        assert await store.client.get(store.lease_key(table.code)) is None
        assert not b.tables[table.code].dealer.plays_ai
        held_up.set()
        await until(lambda: table.dealer.plays_ai)
        assert await store.client.get(store.lease_key(table.code)) == a.host_id.encode()
        await asyncio.sleep(LEASE_DEFER)  # b reaches for it now, and a keeps it
        assert table.dealer.plays_ai and not b.tables[table.code].dealer.plays_ai
    finally:
        await stop(a, b)


async def test_a_host_that_stops_gives_up_its_leases_at_once(
    redis_server,  # noqa: F811
):
    """A host closing in good order lets go of the leases it held: the AI seats of its
    tables wait for no lapse before another host takes them."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        setup = TableSetup(
            "valdes", ValDesSettings(seats=2), (Seat("Ana"), Seat("Cyd", "Expert")), seed=5
        )
        table = a.create(setup, ANA)
        await a.started(table, ANA)
        await until(lambda: table.dealer.plays_ai)
        store = b.shared
        assert store is not None
        key = store.lease_key(table.code)
        assert await store.client.get(key) == a.host_id.encode()
        await stop(a)
        assert await store.client.get(key) in (None, b.host_id.encode())
        await until(lambda: b.tables[table.code].dealer.plays_ai)
    finally:
        await stop(b)


async def started_on_two_hosts(a: Lobby, b: Lobby) -> tuple[SharedTable, Dealer, Dealer]:
    """Val-Des for Ana, who sets it on `a`, and Bo, who joins on `b`, started by Ana: the
    table, and its dealer on each host."""
    setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("Ana"), Seat("Bo")), seed=8)
    table = a.create(setup, ANA)
    await until(lambda: table.code in b.tables)
    b.join(b.tables[table.code], BO)
    await until(lambda: table.seated.get(1) == BO)
    one = await a.started(table, ANA)
    await until(lambda: b.tables[table.code].started)
    two = b.tables[table.code].dealer
    assert two is not None
    return table, one, two


async def test_picks_racing_at_two_hosts_leave_the_log_of_one_process(
    redis_server,  # noqa: F811
):
    """200 decisions, each made at once on two hosts (a different random choice on
    each, for the seat asked): one of each pair is taken, the other refused as too late;
    both hosts' tables end alike, and alike a single process's replay of the log."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        table, one, two = await started_on_two_hosts(a, b)
        everywhere = Place(frozenset({0, 1}))  # both seats, from either host
        rng = random.Random(15)
        made = 0
        while made < 200:
            await until(
                lambda: (
                    one.turn.kind in (ASKING, OVER)
                    and two.turn == one.turn
                    and one.journal.version == two.journal.version
                    and one.table.number == two.table.number
                )
            )
            version = one.journal.version
            if one.turn.kind == OVER:
                one.next_game(everywhere, after=one.table.number)
            else:
                options = one.turn.decision.options
                one.pick(everywhere, rng.choice(options))
                two.pick(everywhere, rng.choice(options))
                made += 1
            await until(
                lambda version=version: (
                    one.journal.version > version and two.journal.version > version
                )
            )
        await until(lambda: one.journal.version == two.journal.version)
        await until(lambda: one.table.log == two.table.log)
        table_replayed, entries = await checked_log(a.shared, table.code)
        assert len(entries) == one.journal.version
        assert one.table.number == table_replayed.number
        assert table_replayed.log == one.table.log and table_replayed.moves == one.table.moves
        late = [n for n in one.notices + two.notices if "came too late" in n]
        assert len(late) == 200  # one of each pair was refused, and only one
    finally:
        await stop(a, b)


async def test_a_table_whose_log_cannot_be_applied_on_a_host_is_read_there_no_more(
    redis_server,  # noqa: F811
):
    """A decision that host b cannot apply (a seat out of turn: a damaged log) stops the
    table there, and b reads its stream no more (read again every blocking read, it
    failed again each time); b goes on following the lobby, and the game goes on at a."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        table, one, two = await started_on_two_hosts(a, b)
        await until(lambda: one.turn.kind == ASKING and two.turn == one.turn)
        await until(lambda: table.code in b.hosts._following)
        decision, version = two.turn.decision, two.journal.version
        wrong = move_entry(Move(1 - decision.seat, decision.options[0]), None)
        assert await two.absorb([(version + 1, wrong)]) == 0
        assert two.failure is not None and "has stopped" in two.notices[-1]
        await until(lambda: table.code not in b.hosts._following)

        one.pick(Place(frozenset({0, 1})), decision.options[0])
        await until(lambda: one.journal.version > version)
        later = a.create(four_seats(), ANA)  # the lobby is still followed on b
        await until(lambda: later.code in b.tables)
        assert two.journal.version == version and two.failure is not None
        assert table.code not in b.hosts._following
        assert one.failure is None and one.turn.kind in (ASKING, OVER)
    finally:
        await stop(a, b)


def reads_noted(store: RedisStore) -> list[float]:
    """When (the loop's clock) each of the host's blocking reads of the streams begins,
    from now on."""
    loop = asyncio.get_running_loop()
    reads: list[float] = []
    follow = store.follow

    async def noted(*args, **kwargs):
        reads.append(loop.time())
        return await follow(*args, **kwargs)

    store.follow = noted  # type: ignore[method-assign]
    return reads


async def test_a_host_whose_loop_is_busy_while_it_waits_on_redis_does_not_take_it_for_gone(
    redis_server,  # noqa: F811
):
    """The lobby's blocking read (a second's block, then two seconds for the answer)
    waits half a second, then the host's loop is busy for 1.8 s (a crowd logging in at
    once, say): the empty answer that came meanwhile is read, and Redis is not taken for
    out of reach. (Timed from the call, the read's timeout passed during the busy loop,
    and the host said "redis is out of reach" to the log and, had it lasted, to every
    table.)"""
    a = await host(redis_server.url)
    try:
        store = a.shared
        assert store is not None
        loop = asyncio.get_running_loop()
        reads = reads_noted(store)
        gone: list[bool] = []
        store.on_status(gone.append)
        await until(lambda: len(reads) >= 2)  # the loop reads through the wrapper
        await until(lambda: loop.time() - reads[-1] >= 0.5)
        time.sleep(1.8)  # the loop is busy: nothing else runs meanwhile
        await asyncio.sleep(2.5)  # past the read's end, and the next one's
        assert len(reads) >= 3 and gone == [] and store.available
    finally:
        await stop(a)


async def test_a_host_reads_the_streams_no_oftener_than_its_gap_and_misses_nothing(
    redis_server,  # noqa: F811
):
    """Another host says 40 lines in the lobby, one every 3 ms: each would wake the
    host's blocking read at once, a read over every table's log and room each time.
    The host reads no sooner than `FOLLOW_GAP` after its last read, so one read takes
    several lines, and it hears every line, in order."""
    a = await host(redis_server.url)
    other = RedisStore.from_url(redis_server.url)
    try:
        store = a.shared
        assert store is not None
        reads = reads_noted(store)
        heard: list[str] = []
        a.chat.listen(lambda line: heard.append(line.plain()))
        await until(lambda: len(reads) >= 1)
        first = len(reads)
        for i in range(40):
            await other.say("", Said("elsewhere", f"key:e{i}", "Eve", f"line {i}"))
            await asyncio.sleep(0.003)
        await until(lambda: len(heard) == 40)
        assert heard == [f"Eve: line {i}" for i in range(40)]
        gaps = [later - earlier for earlier, later in pairwise(reads[first - 1 :])]
        assert min(gaps) >= FOLLOW_GAP * 0.95
        assert len(reads) - first < 40
    finally:
        await other.close()
        await stop(a)


async def test_a_next_game_asked_for_on_two_hosts_at_once_begins_once_and_nobody_is_late(
    redis_server,  # noqa: F811
):
    """Both players press n as a game ends, each on their own host: one next game begins
    (the other's ask loses the race to it), and neither is told that a choice came too
    late, since the game they asked for did begin."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        _, one, two = await started_on_two_hosts(a, b)
        everywhere = Place(frozenset({0, 1}))
        rng = random.Random(4)  # (always the same call ties the sets for ever)
        for _ in range(3):  # three games' ends
            while True:
                await until(
                    lambda: (
                        one.turn.kind in (ASKING, OVER)
                        and two.turn == one.turn
                        and one.journal.version == two.journal.version
                    )
                )
                if one.turn.kind == OVER:
                    break
                version = one.journal.version
                one.pick(everywhere, rng.choice(one.turn.decision.options))
                await until(lambda version=version: two.journal.version > version)
            number, version = one.table.number, one.journal.version
            assert one.next_game(everywhere, after=number) and two.next_game(
                everywhere, after=number
            )
            await until(
                lambda version=version: (
                    one.journal.version > version and two.journal.version > version
                )
            )
            await asyncio.sleep(0.3)  # the losing ask's answer comes and is applied
            assert one.journal.version == two.journal.version == version + 1, "begun once"
            assert one.table.number == two.table.number == number + 1
        late = [n for n in one.notices + two.notices if "came too late" in n]
        assert late == [], late
    finally:
        await stop(a, b)


async def test_a_redis_away_for_a_while_holds_both_hosts_and_play_goes_on(
    redis_server,  # noqa: F811
):
    """Redis stops for two seconds while a pick made on host B waits to be recorded:
    nothing moves on either host meanwhile; when it is back, the pick is applied once on
    both, the AI seat plays on, and both hosts' tables and the log tell one story."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        setup = TableSetup(
            "valdes",
            ValDesSettings(seats=3),
            (Seat("Ana"), Seat("Bo"), Seat("Cyd", "Expert")),
            seed=12,
        )
        table = a.create(setup, ANA)
        await until(lambda: table.code in b.tables)
        b.join(b.tables[table.code], BO)
        await until(lambda: table.seated.get(1) == BO)
        one = await a.started(table, ANA)
        await until(lambda: b.tables[table.code].started)
        two = b.tables[table.code].dealer
        assert two is not None
        places = {0: table.place_of(ANA), 1: b.tables[table.code].place_of(BO)}
        dealers = {0: one, 1: two}

        async def person_asked() -> int:
            await until(
                lambda: (
                    one.turn.kind == ASKING
                    and two.turn == one.turn
                    and one.journal.version == two.journal.version
                )
            )
            return one.turn.seat

        async def pick_first() -> None:
            seat = await person_asked()
            version = one.journal.version
            dealers[seat].pick(places[seat], one.turn.decision.options[0])
            await until(lambda: min(one.journal.version, two.journal.version) > version)

        await pick_first()
        seat = await person_asked()
        before = one.journal.version
        redis_server.stop()
        dealers[seat].pick(places[seat], one.turn.decision.options[-1])
        await asyncio.sleep(2)
        assert one.journal.version == two.journal.version == before  # it waits
        redis_server.start()
        await until(lambda: one.journal.version > before and two.journal.version > before)
        for _ in range(3):  # play goes on, the AI seat with it
            await pick_first()
        await until(lambda: one.journal.version == two.journal.version)
        await until(lambda: one.table.log == two.table.log)
        replayed_table, entries = await checked_log(a.shared, table.code)
        assert len(entries) == one.journal.version
        assert replayed_table.log == one.table.log
        assert any(e.seat == 2 for e in entries[before:])
    finally:
        await stop(a, b)


async def test_nobody_is_away_for_the_moment_their_host_takes_to_speak_after_redis_returns(
    redis_server,  # noqa: F811
):
    """Ana at a table through host A, Bo through host B, each with a screen on it. Redis
    stops for longer than a host's word on who is here lasts, then comes back: the first
    beat on A finds nobody said for B yet, and A judged Bo away from that ("Bo has left
    the table", then "Bo is back" a moment later). Now a host judges nobody until every
    host has had a beat to speak again. And the players are told once that Redis went
    and once that it is back (a call on a connection from before the restart failing
    just after told them "out of reach", "back" a second time)."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        a.arrived(ANA)
        table = a.create(four_seats(), ANA)
        await until(lambda: table.code in b.tables)
        b.arrived(BO)
        b.join(b.tables[table.code], BO)
        await until(lambda: table.seated.get(1) == BO)
        one = await a.started(table, ANA)
        await until(lambda: b.tables[table.code].started)
        two = b.tables[table.code].dealer
        assert two is not None
        one.follow(lambda: None, table.place_of(ANA))
        two.follow(lambda: None, b.tables[table.code].place_of(BO))
        await until(lambda: BO.identity in a.elsewhere.get(table.code, {}))
        table.on_the_way_until = 0.0  # both arrived: a look that misses one counts

        async def look(seconds: float) -> None:  # as the host does, every second
            for _ in range(round(seconds / 0.25)):
                a.check_presence()
                b.check_presence()
                await asyncio.sleep(0.25)

        await look(1.0)
        redis_server.stop()
        await look(HERE_MS / 1000 + 1.5)
        redis_server.start()
        await until(lambda: a.shared.available and b.shared.available)
        await look(4.0)
        for notices in (one.notices, two.notices):
            assert not [n for n in notices if "has left" in n or "is back at" in n]
            assert notices == [STORE_AWAY, STORE_BACK]  # each told once
        assert not one.away_since and not two.away_since
    finally:
        await stop(a, b)


async def test_two_hosts_drawing_the_same_codes_at_once_open_tables_under_different_ones(
    redis_server,  # noqa: F811
):
    """Both hosts' code sources give the same codes in the same order, and both start at
    once: each code goes to one host (Redis holds it for it), the other draws again, and
    four tables opened at the same moment, two on each host, have four codes, each table
    shown on both hosts with its own creator."""
    drawn = [a + b + a + b for a in "ABCDEFGHJKMNPQRS" for b in "TUVWXYZ23456"]
    assert len(drawn) > 2 * CODE_POOL + 4  # both pools full again after four tables

    def source() -> Callable[[], str]:
        codes = iter(drawn * 3)
        return lambda: next(codes)

    a, b = await asyncio.gather(host(redis_server.url, source()), host(redis_server.url, source()))
    try:
        people = [Player(f"key:p{i}", f"P{i}") for i in range(4)]
        setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("A"), Seat("B")), seed=3)
        tables = [(a if i % 2 else b).create(setup, who) for i, who in enumerate(people)]
        codes = [t.code for t in tables]
        assert len(set(codes)) == 4, codes
        assert set(codes) <= set(drawn)
        await until(lambda: all(code in a.tables and code in b.tables for code in codes))
        for lobby in (a, b):
            creators = {code: lobby.tables[code].creator.identity for code in codes}
            assert creators == {t.code: t.creator.identity for t in tables}
        store = a.shared
        assert store is not None
        assert await store.codes() == set(codes)
        await until(lambda: len(a._codes) == len(b._codes) == CODE_POOL)  # topped up again
        assert not set(a._codes) & set(b._codes)
        assert not set(a._codes + b._codes) & set(codes)
    finally:
        await stop(a, b)


async def test_a_crowd_setting_up_tables_in_the_same_moment_is_never_refused_a_code(
    redis_server,  # noqa: F811
):
    """As many players as a host keeps tables for open tables on it in the same moment,
    before any beat could top the host's codes up: every one gets a table, under a code of
    its own that Redis holds for it (with a pool of 16, twenty at once had four refused)."""
    a = await host(redis_server.url)
    try:
        setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("A"), Seat("B")), seed=3)
        crowd = [Player(f"key:c{i}", f"C{i}") for i in range(MAX_TABLES)]
        tables = [a.create(setup, who) for who in crowd]
        assert len({t.code for t in tables}) == MAX_TABLES
        store = a.shared
        assert store is not None
        await until(lambda: {t.code for t in tables} <= a.tables.keys())
        await store.flush()
        assert {t.code for t in tables} <= await store.codes()
    finally:
        await stop(a)


async def test_chat_said_on_one_host_shows_on_the_other_once_cleaned_and_paced(
    redis_server,  # noqa: F811
):
    """Ana speaks in the lobby on host A: Bo's host B shows the line at once (its
    listeners told), and A shows it once, not again as it comes back from Redis. At a
    table, Bo watching on B speaks: A shows it, marked as a spectator's. Bo's pace is
    counted on B, where he speaks: his sixth line at once is refused there, and A never
    sees it. A line put in Redis with an escape sequence in it is cleaned by the host that
    shows it. A host started later reads the rooms' lines so far."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    c: Lobby | None = None
    try:
        heard: list[str] = []
        b.chat.listen(lambda line: heard.append(line.plain()))
        a.chat.say(ANA, "hello from A")
        await until(lambda: heard == ["Ana: hello from A"])
        await asyncio.sleep(0.3)  # its own line back from Redis is not shown twice on A
        assert [line.plain() for line in a.chat.lines] == ["Ana: hello from A"]

        setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("A"), Seat("B")), seed=3)
        table = a.create(setup, ANA)
        await until(lambda: table.code in b.tables)
        there = b.tables[table.code]
        for i in range(5):
            there.chat.say(BO, f"line {i}", watching=True)
        try:
            there.chat.say(BO, "one too many", watching=True)
            raise AssertionError("a sixth line at once was taken")
        except ValueError as err:
            assert str(err).startswith("Slow down")
        await until(lambda: len(table.chat.lines) == 5)
        await asyncio.sleep(0.3)
        assert [line.plain() for line in table.chat.lines] == [
            f"Bo (watching): line {i}" for i in range(5)
        ]

        store = a.shared
        assert store is not None
        await store.say("", Said("elsewhere", "key:eve", "E\x1b[2Jve", "hi\x1b]0;x\x07 there"))
        await until(lambda: len(a.chat.lines) == 2 and len(b.chat.lines) == 2)
        for lobby in (a, b):
            shown = lobby.chat.lines[-1].plain()
            assert "\x1b" not in shown and "\x07" not in shown and shown.startswith("E")

        c = await host(redis_server.url)
        await until(lambda: len(c.chat.lines) == 2 and table.code in c.tables)
        await until(lambda: len(c.tables[table.code].chat.lines) == 5)
        assert c.chat.lines[0].plain() == "Ana: hello from A"
    finally:
        await stop(a, b, *([c] if c is not None else []))


async def test_a_code_lost_while_redis_was_away_closes_the_late_table_not_the_other(
    redis_server,  # noqa: F811
):
    """Host A holds a code for its next table, but its hold lapses (Redis out of its reach
    longer than RESERVE_MS) and host B opens a table under that code. A's player then sets
    a table under it: Redis keeps B's table as it was, A closes its own, saying why, and
    shows B's under the code instead. A host's own new table written twice (an answer
    lost) is not taken for another's."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        store_a, store_b = a.shared, b.shared
        assert store_a is not None and store_b is not None
        code = a._codes[0]
        await store_a.client.delete(store_a.code_key(code))  # A's hold lapsed
        assert await store_b.reserve(b.host_id, [code])
        b._codes.insert(0, code)
        setup = TableSetup("valdes", ValDesSettings(seats=2), (Seat("A"), Seat("B")), seed=3)
        theirs = b.create(setup, BO)
        assert theirs.code == code
        await store_b.flush()

        if a._codes[0] != code:  # A's beat let the code go meanwhile: A had not seen it
            a._codes.insert(0, code)
        ours = a.create(setup, ANA)
        assert ours.code == code
        await store_a.flush()
        stored = await store_a.table(code, entries=False)
        assert stored is not None and stored.record.creator.identity == BO.identity
        assert ours.closed_why == CODE_TAKEN
        await until(lambda: code in a.tables and a.tables[code].creator == BO)
        assert not ours.started

        taken: list[str] = []
        store_a.on_taken(taken.append)
        again = a.create(setup, Player("key:cy", "Cy"))
        record = record_of(again)
        for _ in range(2):  # the first answer lost, say: the same new record once more
            store_a.save(record, new=True)
            await store_a.flush()
        assert taken == [] and again.code in await store_a.codes()
    finally:
        await stop(a, b)


async def test_who_is_here_in_the_lobby_is_everyone_on_every_host(
    redis_server,  # noqa: F811
):
    """Ana is connected to host A and Bo to host B: the lobby's "here now" of each host
    names both. Bo leaves: gone from B's at once, and from A's within a few beats."""
    a, b = await host(redis_server.url), await host(redis_server.url)

    def names(lobby: Lobby) -> list[str]:
        return [p.name for p in lobby.here_now()]

    try:
        a.arrived(ANA)
        b.arrived(BO)
        await until(lambda: names(a) == names(b) == ["Ana", "Bo"])
        assert a.name_of(BO.identity) == "Bo"
        b.left(BO)
        assert names(b) == ["Ana"]
        await until(lambda: names(a) == ["Ana"])
        assert names(b) == ["Ana"]
    finally:
        await stop(a, b)


async def test_an_idle_hosts_beats_renew_its_pool_of_codes_only_when_due(
    redis_server,  # noqa: F811
):
    """A host holds CODE_POOL (64) join codes in Redis, held RESERVE_MS (60 s) unless
    renewed. Renewed at every beat, they were 64 scripts a second from each host, idle or
    not; now the pool is renewed every CODE_RENEW (20 s), so an idle host's four beats
    send a few commands each, and every code is still its own. After Redis was away the
    next beat renews the whole pool again (what it held may have lapsed meanwhile)."""
    a = await host(redis_server.url)
    admin = redis.Redis.from_url(redis_server.url)
    try:
        store = a.shared
        assert store is not None
        await until(lambda: len(a._codes) == CODE_POOL)
        await asyncio.sleep(BEAT)
        admin.config_resetstat()
        await asyncio.sleep(4.5 * BEAT)
        stats = admin.info("commandstats")
        scripts = stats.get("cmdstat_evalsha", {}).get("calls", 0)
        commands = sum(
            stat["calls"]
            for name, stat in stats.items()
            if name not in ("cmdstat_config|resetstat", "cmdstat_info")
        )
        # a beat: one script saying who is here (and what it runs), one blocking read
        assert scripts <= 2 * 5 and commands <= 8 * 5, stats
        holders = await store.client.mget([store.code_key(code) for code in a._codes])
        assert all(bytes(holder).decode() == a.host_id for holder in holders)

        lapsed = a._codes[:8]
        await store.client.delete(*[store.code_key(code) for code in lapsed])
        await asyncio.sleep(1.5 * BEAT)
        assert await store.client.exists(*[store.code_key(c) for c in lapsed]) == 0
        redis_server.stop()  # Redis away for a beat or two: the pool is renewed after
        await asyncio.sleep(2.5 * BEAT)
        redis_server.start()
        await until_renewed(store, lapsed)
        holders = await store.client.mget([store.code_key(code) for code in a._codes])
        assert all(holder is not None and bytes(holder).decode() == a.host_id for holder in holders)
    finally:
        admin.close()
        await stop(a)


async def until_renewed(store: RedisStore, codes: list[str], timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            if await store.client.exists(*[store.code_key(c) for c in codes]) == len(codes):
                return
        except redis.RedisError:  # not answering yet
            pass
        assert loop.time() < deadline, "the pool was not renewed after Redis came back"
        await asyncio.sleep(0.1)


async def test_a_host_stops_even_when_a_call_to_redis_swallowed_its_cancel(
    redis_server,  # noqa: F811
):
    """Python 3.11's `wait_for`, which redis-py runs each command under when the client
    has a socket timeout, drops a cancel that comes as the command's answer does: the
    call returns and the task runs on, though `cancelling()`. Each call here swallows
    the cancel so: the host's following and beating, and a chat line's sending, still
    end once the host stops (they followed Redis for ever after, and held a CI run's
    teardown 600 s)."""
    a = await host(redis_server.url)
    store = a.store
    assert isinstance(store, RedisStore)
    real_follow, real_beat, real_say = store.follow, store.beat, store.say

    def swallowing(call):
        async def swallow(*args, **kwargs):
            try:
                return await call(*args, **kwargs)
            except asyncio.CancelledError:  # as the 3.11 `wait_for` does: answer, go on
                return await call(*args, **kwargs)

        return swallow

    store.follow = swallowing(real_follow)  # type: ignore[method-assign]
    store.beat = swallowing(real_beat)  # type: ignore[method-assign]
    store.say = swallowing(real_say)  # type: ignore[method-assign]
    tasks = list(a.hosts._tasks)
    assert len(tasks) >= 2
    try:
        await asyncio.sleep(0.2)  # each loop inside a call
        a.close_all()
        _, running = await asyncio.wait(tasks, timeout=5)
        assert not running, [t.get_coro() for t in running]
    finally:
        await stop(a)


async def test_a_host_takes_up_no_more_of_the_cantinas_tables_than_its_max_tables(
    redis_server,  # noqa: F811
):
    """Every host follows every table of the cantina, so `--max-tables` is the whole
    cantina's: a host given 2 (against the others' 64) takes up only two of another host's
    three tables, and refuses a new one of its own while it holds those."""
    a = await host(redis_server.url)
    b = Lobby(store=RedisStore.from_url(redis_server.url), pace=FAST, max_tables=2)
    await b.restore()
    try:
        for who in (ANA, BO, Player("key:cy", "Cy")):
            a.create(four_seats(), who)
        await until(lambda: len(b.tables) == 2)
        await asyncio.sleep(2 * BEAT)  # a beat or two on: still two
        assert len(b.tables) == 2 and len(a.tables) == 3
        with pytest.raises(ValueError, match="the host has as many tables as it keeps"):
            b.create(four_seats(), Player("key:di", "Di"))
    finally:
        await stop(a, b)
