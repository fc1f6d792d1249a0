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

from cantina.ssh.budget import PAUSED_POLL, POLL, WorkBudget

HOGS = 8
"""The sessions the hog opens at once (at least `MANY`: many): enough start-ups, each
about 0.3 s of work, to be held a while on a fast machine too."""
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
    """`HOGS` sessions of one address log in at once while another address's player
    types: their start-ups pause after each long step (`starting_many`), and while
    paused each looks again every `PAUSED_POLL`, not every `POLL`. (A table hog's eight,
    each looking every `POLL`, were 365 turns of the loop a second.)"""
    passes: Counter[WorkBudget] = Counter()
    unpark = WorkBudget.unpark

    def counted(self: WorkBudget) -> None:
        if self.pausing:  # a look scheduled while it paused (`_next_look`)
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
                *(open_session(host.port, "127.0.0.2", hog_key) for _ in range(HOGS))
            )
        )
        budgets = [s.budget for s in host.sessions if s.gate.address == "127.0.0.2"]
        assert len(budgets) == HOGS and all(b is not None for b in budgets)
        passes.clear()
        parked = 0.0
        began = time.perf_counter()
        # Their apps are being made, with long steps: watched until every one has started
        # and none is held (how long that takes is the machine's speed: 0.6 s on a fast one,
        # over 2 s on a slow one), or 4 s.
        while time.perf_counter() - began < 4:
            await asyncio.sleep(0.05)
            held = [b.parked is not None and b.pausing for b in budgets]
            parked += 0.05 * sum(held)
            if not any(held) and not any(b.starting for b in budgets):
                break
        looked = sum(passes[b] for b in budgets)
        times = await typing
        assert parked > 0.2, "the start-ups were paused for the typist"
        # Every PAUSED_POLL while paused (or at the pause's end, if sooner): about 10 a
        # second paused; looking every POLL it was about 48.
        assert looked <= parked / PAUSED_POLL * 2.5, (looked, parked, POLL)
        assert times, "the player's keys were answered"
    finally:
        for conn in (honest[0], *hogs):
            conn.close()
        await asyncio.wait_for(host.close(), 10)
