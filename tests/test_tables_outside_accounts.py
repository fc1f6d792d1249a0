"""A table's work, the lobby's and the store's are no session's: on an SSH host each
session's app runs in a context that names its account, and every task made there was
charged to it and held while it was over its share (`cantina.tasks`). A session deep in
debt (a flood) must slow only itself: not the table it set, where others play, nor the
records of every table the store writes, nor a Redis whose answer waited read as gone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextvars import Context, copy_context
from functools import partial
from typing import Any

import pytest
import test_ssh
import waiting
from redis_server import free_port, needs_redis, redis_server  # noqa: F401
from ssh_clients import OpenSSH
from test_ssh import needs_openssh, set_a_shared_table, start_host, take_turns

from cantina.dealer import ASKING, Dealer, Place
from cantina.games.valdes import ValDesSettings
from cantina.lobby import Lobby, Player, SharedTable
from cantina.pace import Pace
from cantina.seating import Seat, TableSetup
from cantina.ssh.budget import DEEP_DEBT, OWNER, Bucket, WorkBudget, WorkMeter
from cantina.store.redis_store import RedisStore

until = partial(waiting.until, timeout=10.0)  # its limit here, as before

keys = test_ssh.keys
own_config = test_ssh.own_config

ANA = Player("key:ana", "Ana")
FLOOD = DEEP_DEBT + 60.0
"""Seconds of work a flood owes: at 0.1 s a second, ten minutes of debt."""


def three_seats() -> TableSetup:
    """Val-Des for Ana and two AIs: the AIs play on between her picks."""
    seats = (Seat("Ana"), Seat("Cyd", "Expert"), Seat("Dee", "Bold"))
    return TableSetup("valdes", ValDesSettings(seats=3), seats, seed=5)


@pytest.fixture
async def metered() -> AsyncIterator[None]:
    """The host's meter on this test's loop, as `cantina serve` installs it."""
    loop = asyncio.get_running_loop()
    WorkMeter.install(loop)
    yield
    WorkMeter.uninstall(loop)


async def as_session(budget: WorkBudget, work: Callable[[], Any]) -> Any:
    """Run `work` (a coroutine function) as a session's app would: in a context naming
    its account, as `Session.begin` makes it."""
    context = copy_context()
    context.run(OWNER.set, budget)
    return await asyncio.get_running_loop().create_task(work(), context=context)


async def set_and_start(lobby: Lobby) -> tuple[SharedTable, Dealer]:
    lobby.arrived(ANA)
    table = lobby.create(three_seats(), ANA)
    dealer = await lobby.started(table, ANA)
    assert dealer is not None
    return table, dealer


def play_for_ana(dealer: Dealer) -> asyncio.Task[None]:
    """Ana's picks, from a screen whose own account is in good standing."""
    place = Place(frozenset({0}), who=ANA.identity)

    async def play() -> None:
        while not dealer.closed:
            decision = dealer.turn.decision
            if dealer.turn.kind == ASKING and decision is not None and decision.seat == 0:
                dealer.pick(place, decision.options[0])
            await asyncio.sleep(0.01)

    return asyncio.get_running_loop().create_task(play(), context=Context())


@pytest.mark.usefixtures("metered")
async def test_a_table_goes_on_while_the_session_that_set_it_is_deep_in_debt():
    """The session that set and started a table floods the host: the table's dealer, its
    AI seats, its pace, go on for everyone at it. (Started in that session's context, the
    dealer was held with it: no event for as long as its debt lasted.)"""
    lobby = Lobby(pace=Pace(beat=0, roll=0))
    budget = WorkBudget([Bucket(0.1, 0.3)])
    _, dealer = await as_session(budget, lambda: set_and_start(lobby))
    playing = play_for_ana(dealer)
    try:
        await until(lambda: len(dealer.table.log) > 5)
        budget.charge(FLOOD)
        before = len(dealer.table.log)
        await until(lambda: len(dealer.table.log) >= before + 20)
        assert budget.wait() > 0  # still in debt: the table did not wait it out
        assert dealer.failure is None
    finally:
        playing.cancel()
        lobby.close_all()


@needs_redis
@pytest.mark.usefixtures("metered")
async def test_a_table_records_on_in_redis_while_the_session_that_set_it_is_deep_in_debt(
    redis_server,  # noqa: F811
):
    """With the Redis store: a table set and started by a session that then floods plays
    on, each decision recorded in Redis, and Redis is never taken for gone. (Its dealer,
    and the store's writer it woke, were held with that session: a call's answer held
    past its timeout read as Redis out of reach for the whole host.)"""
    store = RedisStore.from_url(redis_server.url)
    lobby = Lobby(store=store, pace=Pace(beat=0, roll=0))
    await lobby.restore()
    budget = WorkBudget([Bucket(0.1, 0.3)])
    gone: list[bool] = []
    store.on_status(gone.append)
    playing: asyncio.Task[None] | None = None
    try:
        table, dealer = await as_session(budget, lambda: set_and_start(lobby))
        playing = play_for_ana(dealer)
        await until(lambda: dealer.journal is not None and dealer.journal.version > 3)
        budget.charge(FLOOD)
        assert dealer.journal is not None
        recorded = dealer.journal.version
        await until(lambda: dealer.journal is not None and dealer.journal.version >= recorded + 10)
        assert await store.client.xlen(store.log_key(table.code)) >= recorded + 10
        assert budget.wait() > 0  # still in debt: nothing waited it out
        assert gone == [] and store.available
    finally:
        if playing is not None:
            playing.cancel()
        lobby.close_all()
        await store.close()


@needs_openssh
async def test_a_player_who_floods_the_host_does_not_hold_the_table_they_set(keys):
    """Real clients from two addresses: alice sets a table, bob joins, alice starts it,
    then leaves it for the lobby and floods Tab there, deep in debt. Bob plays on, the
    stand-in in her seat, and none of the table's work ever waits in her account. (The
    table's dealer, started by alice's keypress, was hers: each of its steps waited with
    her work, and bob waited 2.2 to 3 s for each offer rather than 0.8 to 1.3 s.)"""
    host = await start_host(keys, away_grace=1.0)
    alice = await OpenSSH.start(keys.player, host.port, "-tt", "-b", "127.0.0.2", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", "-b", "127.0.0.3", user="bob")
    flood: asyncio.Task[None] | None = None
    try:
        await set_a_shared_table(alice, bob)
        await take_turns({"alice": alice, "bob": bob})
        (table,) = host.lobby.tables.values()
        assert table.dealer is not None and table.dealer.task is not None
        dealing = table.dealer.task
        mark, bobs = bob.mark(), bob.mark()
        alice.send("\x1b")  # Escape: back to the lobby, still connected
        await alice.expect("Your seat waits for you")
        alice.send("y")
        await bob.expect("has left the table", since=mark)
        (flooder,) = [s for s in host.sessions if s.gate.username == "alice"]
        budget = flooder.budget
        assert flooder.gate.address == "127.0.0.2" and budget is not None
        owed: list[float] = []
        held: list[int] = []  # the table's steps found waiting in alice's account

        async def tabs() -> None:
            while True:
                alice.send("\t" * 5)
                owed.append(budget.debt())
                waiting = list(budget.parked or ())
                held.append(sum(getattr(s, "__self__", None) is dealing for _, s, _ in waiting))
                await asyncio.sleep(0.01)

        flood = asyncio.create_task(tabs())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 15
        while not owed or owed[-1] < 0.9 * DEEP_DEBT:  # held while anyone else works
            assert loop.time() < deadline, "the flood never went deep into debt"
            await asyncio.sleep(0.05)
        playing = len(owed)
        mark = bob.mark()
        for turn in range(3):  # an offer drawn before the flood may be the first
            since = {"bob": bobs} if turn == 0 else None
            assert await take_turns({"bob": bob}, limit=2, since=since) == ["bob"]
        await bob.expect("alice calls", since=mark)  # her seat, played for her
        assert table.dealer.standing_in == {0}
        assert min(owed[playing:]) > 0.5 * DEEP_DEBT  # in debt, held, all the while
        assert len(held) > 100 and not any(held)
    finally:
        if flood is not None:
            flood.cancel()
        alice.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)
