"""What the players at a shared table hear of Redis going away, on lobbies sharing one
real redis-server: a table started, or a screen come to a table, while Redis is out of
reach is told so (else a choice made there waits with nothing said of why); and the
failed calls on stale connections just after Redis came back are not told as Redis
going away again."""

from __future__ import annotations

import asyncio

from redis_server import needs_redis, redis_server  # noqa: F401
from test_multihost import ANA, BO, four_seats, host, stop, until

from cantina.lobby.notices import SETTLING_QUIET, STORE_AWAY, STORE_BACK, STORE_QUIET
from cantina.lobby.presence import BEAT

pytestmark = needs_redis


async def test_a_table_started_while_redis_is_away_tells_its_players_so(
    redis_server,  # noqa: F811
):
    """Seen in a play-test: Redis stopped, a player set a table and started it, and the
    stake they chose vanished: the tables had been told, before that one had a dealer."""
    a = await host(redis_server.url)
    try:
        a.arrived(ANA)
        table = a.create(four_seats(), ANA)
        redis_server.stop()
        await until(lambda: a.notices.told_away, timeout=15)
        dealer = a.start(table, ANA)
        dealer.follow(lambda: None, table.place_of(ANA))  # Ana's screen comes
        assert dealer.notices == [STORE_AWAY]
        redis_server.start()
        await until(lambda: STORE_BACK in dealer.notices, timeout=20)
        assert dealer.notices == [STORE_AWAY, STORE_BACK]
    finally:
        await stop(a)


async def test_a_player_back_through_another_host_while_redis_is_away_is_told_so(
    redis_server,  # noqa: F811
):
    """Ana at a table through host A, Bo's seat there too; Redis goes away, and Bo comes
    to the table through host B: his screen came after B's tables were told, so the table
    is told again (his choice waits for Redis, and he knows why)."""
    a, b = await host(redis_server.url), await host(redis_server.url)
    try:
        a.arrived(ANA)
        table = a.create(four_seats(), ANA)
        await until(lambda: table.code in b.tables)
        b.arrived(BO)
        b.join(b.tables[table.code], BO)
        await until(lambda: table.seated.get(1) == BO)
        a.start(table, ANA)
        await until(lambda: b.tables[table.code].dealer is not None)
        there = b.tables[table.code]
        assert there.dealer is not None
        redis_server.stop()
        await until(lambda: b.notices.told_away, timeout=15)
        assert there.dealer.notices == [STORE_AWAY]  # told, before Bo's screen came
        there.dealer.follow(lambda: None, there.place_of(BO))
        assert there.dealer.notices == [STORE_AWAY, STORE_AWAY]
    finally:
        redis_server.start()
        await stop(a, b)


async def test_a_failed_call_just_after_redis_came_back_is_not_told_as_going_away(
    redis_server,  # noqa: F811
):
    """Seen in a play-test: Redis stopped for 8 s and started again; a host logged "redis
    is back", then "out of reach" for 1.007 s (a call on a pooled connection from before
    the restart, and the next call a beat later), so its players were told "out of reach"
    and "back" twice. The lobby hears what the store says; here it hears that sequence."""
    assert SETTLING_QUIET > BEAT + 0.3 > STORE_QUIET
    a = await host(redis_server.url)
    try:
        a.arrived(ANA)
        table = a.create(four_seats(), ANA)
        dealer = a.start(table, ANA)
        a.notices.status(False)  # Redis went away
        await asyncio.sleep(STORE_QUIET + 0.2)
        a.notices.status(True)  # and came back
        assert dealer.notices == [STORE_AWAY, STORE_BACK]
        a.notices.status(False)  # a stale connection fails
        await asyncio.sleep(BEAT + 0.3)
        a.notices.status(True)  # the next call, a beat later, answers
        assert dealer.notices == [STORE_AWAY, STORE_BACK]
        a.notices.status(False)  # a real outage, later on, is told as ever
        await until(lambda: len(dealer.notices) == 3, timeout=SETTLING_QUIET + 2)
        assert dealer.notices[-1] == STORE_AWAY
        a.notices.status(True)
    finally:
        await stop(a)
