"""Shared tables kept in a real Redis, with real OpenSSH clients: a host killed with -9
mid-game and started again takes its players back at the same decision, with nothing
lost or applied twice and the AI seats playing on; a Redis stopped for a few seconds
mid-game holds the table (it says so on the players' screens) and play goes on after."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from pathlib import Path

import msgspec
import test_ssh
from redis_server import free_port, needs_redis, redis_server  # noqa: F401
from ssh_clients import OpenSSH
from test_ssh import Keys, needs_openssh, set_a_shared_table, take_turns
from test_ssh_tables import REJOIN_CODE, guest

from cantina.dealer import apply_entry
from cantina.live import LiveTable
from cantina.ssh.keys import load_or_create_host_key, read_authorized_keys
from cantina.ssh.limits import Limits
from cantina.ssh.server import Host, HostOptions
from cantina.store.memory import StoreAway
from cantina.store.records import Entry, decode_record, decode_setup
from cantina.store.redis_store import RedisStore

pytestmark = [needs_openssh, needs_redis]

keys = test_ssh.keys
own_config = test_ssh.own_config

ROOT = Path(__file__).resolve().parent.parent


async def serve(
    keys: Keys, port: int, url: str, *more: str
) -> tuple[asyncio.subprocess.Process, str]:
    """`cantina serve --store URL` as a process of its own; what it said as it started."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cantina",
        "serve",
        "--port",
        str(port),
        "--host-key",
        str(keys.host_key),
        "--authorized-keys",
        str(keys.authorized),
        "--away-grace",
        "600",
        "--store",
        url,
        *more,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    said = ""
    assert process.stdout is not None
    while "taken up" not in said:
        line = await asyncio.wait_for(process.stdout.readline(), 60)
        assert line, f"the host ended as it started: {said}"
        said += line.decode()
    return process, said


async def next_offer(players: dict[str, OpenSSH], since: dict[str, int]) -> str:
    """Who is offered a call next (nothing is answered)."""
    waits = {
        asyncio.create_task(
            ssh.expect(f"{name}, call Val or Des", since=since[name], timeout=30)
        ): name
        for name, ssh in players.items()
    }
    done, pending = await asyncio.wait(waits, timeout=30, return_when="FIRST_COMPLETED")
    for task in pending:
        task.cancel()
    assert done, "nobody was offered a call"
    first = done.pop()
    first.result()
    return waits[first]


def replayed(store_setup: bytes, entries: list[Entry]) -> LiveTable:
    """A single process's replay of the log from the table's seed (IllegalAction if a
    decision had been lost or applied twice)."""
    table = LiveTable(decode_setup(store_setup))
    for entry in entries:
        apply_entry(table, entry)
    return table


async def test_a_host_killed_mid_game_takes_its_players_back_at_the_same_decision(
    keys: Keys,
    redis_server,  # noqa: F811
):
    port = free_port()
    store = RedisStore.from_url(redis_server.url)
    host, _ = await serve(keys, port, redis_server.url)
    clients: list[OpenSSH] = []
    try:
        alice = await OpenSSH.start(keys.player, port, "-tt", user="alice")
        bob = await OpenSSH.start(keys.partner, port, "-tt", user="bob")
        clients += [alice, bob]
        code = await set_a_shared_table(alice, bob)
        players = {"alice": alice, "bob": bob}
        await take_turns(players)
        marks = {name: ssh.mark() for name, ssh in players.items()}
        asked = await next_offer(players, marks)
        before = await store.entries(code)
        assert before

        host.kill()  # kill -9, mid-game, a person being asked
        await host.wait()
        for client in clients:
            client.kill()
        host, said = await serve(keys, port, redis_server.url)
        assert "1 taken up" in said

        alice = await OpenSSH.start(keys.player, port, "-tt", user="alice")
        bob = await OpenSSH.start(keys.partner, port, "-tt", user="bob")
        clients += [alice, bob]
        players = {"alice": alice, "bob": bob}
        await players[asked].expect(f"{asked}, call Val or Des", timeout=30)
        assert [e.id for e in await store.entries(code)] == [e.id for e in before]

        await take_turns(players, since={"alice": 0, "bob": 0})
        await take_turns(players)  # and round again: the AI seats play on between
        after = await store.entries(code)
        assert [e.id for e in after[: len(before)]] == [e.id for e in before]
        assert len({e.id for e in after}) == len(after) > len(before) + 2
        raw = await store.client.hget(store.table_key(code), "record")
        record = decode_record(raw)
        table = replayed(bytes(record.setup), after)
        ai_seats = {i for i, seat in enumerate(table.setup.seats) if not seat.human}
        assert any(e.seat in ai_seats for e in after[len(before) :])
    finally:
        for client in clients:
            client.kill()
        if host.returncode is None:
            host.kill()
            await host.wait()
        await store.close()


async def test_a_redis_away_for_a_few_seconds_holds_the_table_and_play_goes_on(
    keys: Keys,
    redis_server,  # noqa: F811
):
    options = HostOptions(
        port=0,
        host_key=keys.host_key,
        authorized_keys=keys.authorized,
        limits=dataclasses.replace(Limits()),
        away_grace=600,
        pace=0.05,
        store=redis_server.url,
    )
    host = Host(options, read_authorized_keys(keys.authorized))
    await host.start(load_or_create_host_key(keys.host_key))
    alice = await OpenSSH.start(keys.player, host.port, "-tt", user="alice")
    bob = await OpenSSH.start(keys.partner, host.port, "-tt", user="bob")
    try:
        players = {"alice": alice, "bob": bob}
        code = await set_a_shared_table(alice, bob)
        assert host.lobby is not None
        table = host.lobby.tables[code]
        await take_turns(players)
        marks = {name: ssh.mark() for name, ssh in players.items()}
        asked = await next_offer(players, marks)
        moves = len(table.live.moves)

        redis_server.stop()
        mark = players[asked].mark()
        players[asked].send("1")
        await players[asked].expect("(Redis)", since=mark, timeout=20)
        await asyncio.sleep(3)
        assert len(table.live.moves) == moves  # the decision waits for the store
        redis_server.start()
        await players[asked].expect("Redis is back", since=mark, timeout=20)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while len(table.live.moves) == moves:
            assert loop.time() < deadline, "the waiting decision was never applied"
            await asyncio.sleep(0.05)

        await take_turns(players)  # the game goes on
        assert isinstance(host.store, RedisStore)
        try:
            entries = await host.store.entries(code)
        except StoreAway:  # a pooled connection from before the restart, used first here
            entries = await host.store.entries(code)
        assert len({e.id for e in entries}) == len(entries) == len(table.live.moves)
        assert replayed(msgspec.json.encode(table.setup), entries).log == (table.live.log)
    finally:
        alice.kill()
        bob.kill()
        await asyncio.wait_for(host.close(), 10)


async def test_a_guest_takes_their_seat_back_by_rejoin_code_after_the_host_was_killed(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """bob, a guest, is shown his rejoin code; the host is killed with -9 mid-game and
    started again. alice comes back by her key, bob (a new guest now) by typing his code:
    both at their seats, the same decision asked, and the game goes on from there."""
    port = free_port()
    store = RedisStore.from_url(redis_server.url)
    host, _ = await serve(keys, port, redis_server.url, "--guests")
    clients: list[OpenSSH] = []
    try:
        alice = await OpenSSH.start(keys.player, port, "-tt", user="alice")
        bob = await guest(keys, port, "bob")
        clients += [alice, bob]
        code = await set_a_shared_table(alice, bob)
        await bob.expect("your rejoin code")
        found = REJOIN_CODE.search(bob.text)
        assert found, bob.text[-500:]
        rejoin = found.group(1)
        players = {"alice": alice, "bob": bob}
        await take_turns(players)
        asked = await next_offer(players, {name: ssh.mark() for name, ssh in players.items()})
        before = [e.id for e in await store.entries(code)]

        host.kill()
        await host.wait()
        for client in clients:
            client.kill()
        host, said = await serve(keys, port, redis_server.url, "--guests")
        assert "1 taken up" in said

        alice = await OpenSSH.start(keys.player, port, "-tt", user="alice")
        bob = await guest(keys, port, "bob")
        clients += [alice, bob]
        await bob.expect("shared tables")
        bob.send("j")
        await asyncio.sleep(0.5)  # the focus moves to the code field
        bob.send(rejoin.lower() + "\r")
        players = {"alice": alice, "bob": bob}
        await players[asked].expect(f"{asked}, call Val or Des", timeout=30)
        assert [e.id for e in await store.entries(code)] == before
        await take_turns(players, since={"alice": 0, "bob": 0})
        after = [e.id for e in await store.entries(code)]
        assert after[: len(before)] == before and len(set(after)) == len(after) > len(before)
    finally:
        for client in clients:
            client.kill()
        if host.returncode is None:
            host.kill()
            await host.wait()
        await store.close()
