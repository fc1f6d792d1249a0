"""The store's own connection for single scripts (`Line`: a decision's append) against a
real redis-server: it connects again after Redis was started again, a decision made while
it is busy with another goes through the pool, and a call that timed out leaves no answer
behind to be read as the next call's."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis_server import RedisServer, needs_redis
from test_redis_scripts import opened

from cantina.games.table import Move
from cantina.store.memory import Journal, StoreAway
from cantina.store.records import Entry, move_entry
from cantina.store.redis_store import RedisStore

pytestmark = needs_redis


def entry(action: str = "val") -> Entry:
    return move_entry(Move(1, action), None)


@contextlib.asynccontextmanager
async def a_store(
    tmp_path: Path, timeout: float = 2.0
) -> AsyncIterator[tuple[RedisServer, RedisStore, list[bool]]]:
    """A redis-server of the test's own, a store on it, and what the store tells its
    listeners (False: Redis out of reach; True: it answers again)."""
    server = RedisServer(tmp_path)
    server.start()
    store = RedisStore.from_url(server.url, timeout=timeout)
    heard: list[bool] = []
    store.on_status(heard.append)
    try:
        yield server, store, heard
    finally:
        await store.close()
        server.stop()


async def test_a_decision_after_redis_started_again_goes_through_at_once(tmp_path):
    """Redis stopped and started again (its data kept) while a host runs on: the store's
    own connection, closed by Redis, is found closed before the next decision is sent and
    connects again, so the decision is taken at once (no StoreAway). (The pool's next
    call fails once: redis-py 8 does not check its connections so while it awaits
    maintenance notices.)"""
    server = RedisServer(tmp_path)
    server.start()
    store = RedisStore.from_url(server.url)
    try:
        await store.ping()
        journal = await opened(store, "ABCD")
        first = entry()
        assert await journal.record(first) == ([first], True)
        assert store.line.connection.is_connected
        server.stop()
        server.start()
        await asyncio.sleep(0.2)  # the host's loop runs on meanwhile
        with contextlib.suppress(StoreAway):  # the pool's connection was lost: said once
            await store.ping()
        await store.ping()  # the scripts loaded again, through the pool
        second = entry()
        assert await journal.record(second) == ([second], True)
        assert [e.id for e in await store.entries("ABCD")] == [first.id, second.id]
    finally:
        await store.close()
        server.stop()


async def test_decisions_at_many_tables_at_once_each_go_through_once(tmp_path):
    """Twenty tables' decisions made at the same moment: the first takes the store's own
    connection, the others (finding it busy) the pool, and every one is taken once."""
    server = RedisServer(tmp_path)
    server.start()
    store = RedisStore.from_url(server.url)
    try:
        await store.ping()
        journals = [await opened(store, f"T{n}") for n in range(20)]
        for _ in range(3):
            made = [entry() for _ in journals]
            answers = await asyncio.gather(
                *(j.record(e) for j, e in zip(journals, made, strict=True))
            )
            assert answers == [([e], True) for e in made]
        for journal in journals:
            assert journal.version == 3
            assert len(await store.entries(journal.code)) == 3
    finally:
        await store.close()
        server.stop()


async def test_a_decision_that_timed_out_is_taken_once_and_its_late_answer_not_misread(
    tmp_path, caplog
):
    """Redis stalls (stopped by a signal) while a decision is on its way: the call gives up
    after the store's timeout (StoreAway) and its connection is closed, so Redis's late
    answer is never read as another call's. Redis goes on and appends it after all; the
    decision made again is found in the log and taken once, and the next decision goes
    through. The host's log says what cut the call short."""
    server = RedisServer(tmp_path)
    server.start()
    assert server.process is not None
    store = RedisStore.from_url(server.url, timeout=0.3)
    try:
        await store.ping()
        journal = await opened(store, "ABCD")
        lost = entry("val")
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            with pytest.raises(StoreAway):
                await journal.record(lost)
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
        assert not store.line.connection.is_connected
        assert "redis is out of reach (TimeoutError)" in caplog.text  # what cut it short
        assert await journal.record(lost) == ([lost], True)
        after = entry("des")
        assert await journal.record(after) == ([after], True)
        assert [e.id for e in await store.entries("ABCD")] == [lost.id, after.id]
        assert await Journal(store, "ABCD").record(entry()) == ([lost, after], False)
    finally:
        await store.close()
        server.stop()


async def test_after_redis_came_back_the_pools_first_calls_go_through(tmp_path):
    """Redis stopped while the pool holds idle connections, and started again: once a
    call gets through (the store's own connection, which connects again), the store
    drops the pool's idle connections from before, so the pool's next calls connect
    afresh and go through, each at once: the host is not told "out of reach", then
    "back", once for each of them."""
    async with a_store(tmp_path) as (server, store, heard):
        await store.ping()
        journal = await opened(store, "ABCD")
        await asyncio.gather(*(store.codes() for _ in range(4)))  # idle in the pool now
        server.stop()
        with pytest.raises(StoreAway):  # the store's own connection finds Redis away
            await journal.record(entry())
        assert heard == [False]
        server.start()
        made = entry()  # a decision, through the store's own connection (which connects
        assert await journal.record(made) == ([made], True)  # again, and loads the scripts)
        assert heard == [False, True]
        for _ in range(4):
            assert await store.codes() == {"ABCD"}
        assert await store.lobby_id() != "0-0"
        assert heard == [False, True] and store.available


async def test_calls_made_while_the_idle_connections_close_go_through(tmp_path):
    """Redis answers again after it was out of reach: the store closes the pool's idle
    connections (`_fresh_pool`) while other calls go on. Each of those is handed a new
    connection, not one that is closing: none fails with "Connection lost", and the host
    is not told "out of reach" again just after "back"."""
    async with a_store(tmp_path) as (_, store, heard):
        await store.ping()
        await opened(store, "ABCD")
        for _ in range(3):
            await asyncio.gather(*(store.codes() for _ in range(6)))  # idle in the pool
            answers = await asyncio.gather(
                store._fresh_pool(), *(store.codes() for _ in range(6)), return_exceptions=True
            )
            assert answers[1:] == [{"ABCD"}] * 6
        assert heard == []


async def test_a_host_held_up_past_the_limit_does_not_take_redis_for_gone(tmp_path):
    """The host's loop is held up (a collection of its whole heap takes seconds) while a
    call waits: Redis answered meanwhile, and the call's limit passed. The answer is
    taken: the call goes through and the host is not told Redis is out of reach. A Redis
    that does not answer is still found out (the test above: stopped by a signal)."""
    async with a_store(tmp_path, timeout=0.3) as (_, store, heard):
        await store.ping()
        lobby = await store.lobby_id()
        loop = asyncio.get_running_loop()
        for _ in range(3):
            # Redis answers an XREAD that waits 0.1 s for news; the loop stands still from
            # 0.02 s to 0.82 s, past the call's limit (0.1 + 0.3 s)
            loop.call_later(0.02, time.sleep, 0.8)
            changes = await store.follow(lobby, {}, 100)
            assert changes.lobby_id == lobby and not changes.tables
        journal = await opened(store, "ABCD")
        made = entry()
        loop.call_soon(time.sleep, 0.8)  # and a decision's append, held up as it is sent
        assert await journal.record(made) == ([made], True)
        assert heard == [] and store.available


async def test_a_host_held_up_as_it_connects_does_not_take_redis_for_gone(tmp_path):
    """A call that needs a new connection (the pool's are all in use, as when many calls
    go at once) is held up as it connects: the loop stands still for 0.8 s, past the
    call's limit (0.3 s). The connect is part of the call, under its patient limit: it
    goes through. (The client's own limit on a connect, `socket_connect_timeout`, was
    the store's 2 s and not patient: "Timeout connecting to server", the host told that
    Redis was out of reach, while a crowd of sessions arrived.)"""
    async with a_store(tmp_path, timeout=0.3) as (_, store, heard):
        await store.ping()
        loop = asyncio.get_running_loop()
        for _ in range(3):
            await store._fresh_pool()  # no idle connection left: the call connects
            loop.call_soon(time.sleep, 0.8)
            assert await store.codes() == set()
        assert heard == [] and store.available
