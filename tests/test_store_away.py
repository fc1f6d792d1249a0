"""When a seat's player went away is kept with the table in its store (issue 15): a host
that takes the table up after every host stopped (or was killed) counts the stand-in's
grace from the moment the player went, not afresh. With the store in memory (made
durable), with a real redis-server, and with real hosts killed with -9 and a real OpenSSH
client reading the countdown on its screen."""

from __future__ import annotations

import asyncio
import re
import time

import test_ssh
from redis_server import free_port, needs_redis, redis_server  # noqa: F401
from ssh_clients import OpenSSH, plain
from test_ssh import Keys, needs_openssh, set_a_shared_table, take_turns
from test_store_ssh import serve

from cantina.dealer import Pace
from cantina.games.valdes import ValDesSettings
from cantina.lobby import Lobby, Player
from cantina.seating import Seat, TableSetup
from cantina.store.memory import InProcessStore, TableStore
from cantina.store.redis_store import RedisStore

keys = test_ssh.keys
own_config = test_ssh.own_config

FAST = Pace(beat=0, roll=0)
ANA, BO = Player("key:ana", "Ana"), Player("key:bo", "Bo")
GRACE = 60.0
WENT = 25.0
"""Seconds before the host stops that Bo went away, in the lobby tests."""


def two_people() -> TableSetup:
    seats = (Seat("Ana"), Seat("Bo"), Seat("Cyd", "Expert"))
    return TableSetup("valdes", ValDesSettings(seats=3), seats, 4)


async def away_then_restarted(first: TableStore, second: TableStore) -> float:
    """Ana and Bo at a started table on a host; Bo went away WENT seconds ago (the host
    says so as it would after his last session ended then); the host stops, and another
    takes the table up from the store: the grace left on Bo's seat there."""
    lobby = Lobby(store=first, pace=FAST, away_grace=GRACE)
    await lobby.restore()
    table = lobby.create(two_people(), ANA)
    lobby.join(table, BO)
    dealer = await lobby.started(table, ANA)
    assert dealer is not None
    now = asyncio.get_running_loop().time()
    dealer.set_away(1, now - WENT)
    assert [round(c.left) for c in dealer.countdowns(now)] == [GRACE - WENT]
    await asyncio.sleep(0.2)  # written behind
    lobby.close_all()
    await first.close()

    again = Lobby(store=second, pace=FAST, away_grace=GRACE)
    try:
        assert await again.restore() == [table.code]
        taken = again.tables[table.code].dealer
        assert taken is not None
        countdowns = taken.countdowns(asyncio.get_running_loop().time())
        assert [c.seat for c in countdowns] == [1]
        return countdowns[0].left
    finally:
        again.close_all()
        await second.close()


async def test_the_grace_of_an_absent_player_counts_on_from_a_store_in_memory():
    store = InProcessStore(durable=True)
    left = await away_then_restarted(store, store)
    assert GRACE - WENT - 1 < left <= GRACE - WENT


@needs_redis
async def test_the_grace_of_an_absent_player_counts_on_from_redis(redis_server):  # noqa: F811
    first, second = RedisStore.from_url(redis_server.url), RedisStore.from_url(redis_server.url)
    left = await away_then_restarted(first, second)
    assert GRACE - WENT - 1 < left <= GRACE - WENT


@needs_redis
async def test_a_player_back_is_no_longer_away_in_redis(redis_server):  # noqa: F811
    """Bo went away and came back: a host taking the table up counts him present (his
    seat's moment is gone from the store), and the table closed, the store forgets it."""
    store = RedisStore.from_url(redis_server.url)
    lobby = Lobby(store=store, pace=FAST, away_grace=GRACE)
    await lobby.restore()
    try:
        table = lobby.create(two_people(), ANA)
        lobby.join(table, BO)
        dealer = await lobby.started(table, ANA)
        assert dealer is not None
        dealer.set_away(1, asyncio.get_running_loop().time() - WENT)
        key = store.away_key(table.code)
        deadline = time.monotonic() + 5
        while not await store.client.hexists(key, "1"):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        stored = await store.table(table.code, entries=False)
        assert stored is not None and WENT <= stored.away[1] < WENT + 1
        dealer.set_back(1)
        while await store.client.hexists(key, "1"):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        lobby.close(table)
        await store.flush()
        assert not await store.client.exists(key)
    finally:
        lobby.close_all()
        await store.close()


COUNTDOWN = re.compile(r"bob is away: the stand-in plays in (\d+) s")


@needs_redis
@needs_openssh
async def test_a_host_killed_and_started_again_counts_the_grace_on_from_when_bob_left(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """alice and bob at a table of a real host (grace 600 s); bob's connection ends, and
    alice's screen counts down his seat's grace. The host is killed with -9 some seconds
    later and started again; alice comes back: the countdown her screen shows has gone on
    from when bob left, not begun again at 600."""
    port = free_port()
    host, _ = await serve(keys, port, redis_server.url)
    clients: list[OpenSSH] = []
    try:
        alice = await OpenSSH.start(keys.player, port, "-tt", user="alice")
        bob = await OpenSSH.start(keys.partner, port, "-tt", user="bob")
        clients += [alice, bob]
        await set_a_shared_table(alice, bob)
        await take_turns({"alice": alice, "bob": bob})
        mark = alice.mark()
        bob.kill()
        await alice.expect("bob is away", since=mark, timeout=20)
        left_at = time.monotonic()
        await asyncio.sleep(8)

        host.kill()  # kill -9: nothing is written as it goes
        await host.wait()
        alice.kill()
        host, said = await serve(keys, port, redis_server.url)
        assert "1 taken up" in said
        alice = await OpenSSH.start(keys.player, port, "-tt", user="alice")
        clients.append(alice)
        deadline = time.monotonic() + 30
        while (found := COUNTDOWN.search(plain(bytes(alice.output)))) is None:
            assert time.monotonic() < deadline, plain(bytes(alice.output))[-600:]
            await asyncio.sleep(0.1)
        shown = int(found.group(1))
        gone = time.monotonic() - left_at
        assert gone > 8
        assert shown <= 600 - gone + 3, (shown, gone)  # not a fresh 600 s from the restart
    finally:
        for client in clients:
            client.kill()
        if host.returncode is None:
            host.kill()
            await host.wait()
