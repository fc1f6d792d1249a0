"""Many logins of one address at once (bench_ssh.py --abuse f: a table hog's eight
sessions) against the host, with real asyncssh clients on 127.0.0.1, while a player of
another address types: what the held start-ups cost the host's loop."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import asyncssh
import test_ssh_budget
from ssh_clients import Terminal, make_key
from test_ssh_budget import connect_from, echo_times, start_host

from cantina.ssh.budget import MANY, PAUSED_POLL, POLL, WorkBudget

host_key = test_ssh_budget.host_key
"""A host key's path in the test's own folder (test_ssh_budget's fixture)."""


async def open_session(port: int, address: str, key: asyncssh.SSHKey):
    """A session from `address`, not waited for: its app is still starting."""
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username="hog",
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        connect_timeout=10,
        local_addr=(address, 0),
    )
    await conn.create_session(
        Terminal, term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    return conn


async def test_held_start_ups_look_at_the_budget_seldom_while_they_pause(
    tmp_path, host_key, monkeypatch
):
    """`MANY` + 1 sessions of one address log in at once while another address's player
    types: their start-ups pause after each long step (`starting_many`), and while
    paused each looks again every `PAUSED_POLL`, not every `POLL`. (A table hog's eight,
    each looking every `POLL`, were 365 turns of the loop a second.)"""
    passes: Counter[WorkBudget] = Counter()
    unpark = WorkBudget.unpark

    def counted(self: WorkBudget) -> None:
        passes[self] += 1
        unpark(self)

    monkeypatch.setattr(WorkBudget, "unpark", counted)
    host = await start_host(host_key)
    key = asyncssh.read_private_key(make_key(tmp_path / "player"))
    hog_key = asyncssh.read_private_key(make_key(tmp_path / "hog"))
    honest = await connect_from(host.port, "127.0.0.1", key)
    hogs: list[asyncssh.SSHClientConnection] = []
    try:
        honest[1].write(b"j")  # to the join-code field
        typing = asyncio.create_task(echo_times(honest[1], honest[2], 6))
        await asyncio.sleep(1)  # typing: the start-ups to come pause for it
        hogs = list(
            await asyncio.gather(
                *(open_session(host.port, "127.0.0.2", hog_key) for _ in range(MANY + 1))
            )
        )
        await asyncio.sleep(0.5)  # their apps are being made, and have had long steps
        budgets = [s.budget for s in host.sessions if s.gate.address == "127.0.0.2"]
        assert len(budgets) == MANY + 1 and all(b is not None for b in budgets)
        passes.clear()
        parked = 0.0
        began = time.perf_counter()
        while time.perf_counter() - began < 2:
            await asyncio.sleep(0.05)
            parked += 0.05 * sum(b.parked is not None and b.pausing for b in budgets)
        looked = sum(passes[b] for b in budgets)
        times = await typing
        assert parked > 1.0, "the start-ups were paused for the typist"
        # Every PAUSED_POLL while paused, and a pass or two each time work runs: 10-23 a
        # second paused (a busy machine runs more work between); looking every POLL it
        # was about 48.
        assert looked <= parked / PAUSED_POLL * 3.5, (looked, parked, POLL)
        assert times, "the player's keys were answered"
    finally:
        for conn in (honest[0], *hogs):
            conn.close()
        await asyncio.wait_for(host.close(), 10)
