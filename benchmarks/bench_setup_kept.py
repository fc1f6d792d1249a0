"""What the back room's kept setup screen costs a session in memory.

The lobby keeps the setup screen a session last opened (screens/backroom.py,
`LobbyScreen.kept_setup`) so that `v` again shows it without composing it anew. One host
in this process (`cantina serve`'s code, any key admitted, limits raised to fit) and N
asyncssh clients (80 x 24); each opens a Vigo's Favor setup (`v`) and leaves it (Esc), so
each lobby keeps one; then the kept screens are let go. A session that opened one first
(warming the host's shared caches) is not counted. Figures, per session, from the
difference between the two states (after a full collection each time):

- traced: Python's allocations (tracemalloc, started once the sessions are up);
- RSS: the host's resident memory (this process: clients included, so rougher).

    .venv/bin/python benchmarks/bench_setup_kept.py [--sessions 32]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import os
import tempfile
import tracemalloc
from pathlib import Path

import asyncssh
from bench_ssh import HONEST, connect_as, rss_kib, wait_after

from cantina.ssh.keys import load_or_create_host_key
from cantina.ssh.limits import Limits, Startups
from cantina.ssh.server import Host, HostOptions
from screens.backroom import HostSetupScreen, LobbyScreen


async def open_and_leave(screen, chan) -> None:
    """`v`, until the setup is drawn; Esc, until the back room is again."""
    mark = len(screen.data)
    chan.write(b"v")
    await asyncio.wait_for(wait_after(screen, mark, b"Stand-in"), 60)
    await asyncio.sleep(0.3)
    mark = len(screen.data)
    chan.write(b"\x1b")
    await asyncio.wait_for(wait_after(screen, mark, b"shared tables"), 60)


def lobbies(host: Host) -> list[LobbyScreen]:
    return [
        screen
        for session in host.sessions
        if session.app is not None
        for screen in session.app.screen_stack
        if isinstance(screen, LobbyScreen)
    ]


def measured() -> tuple[int, int]:
    gc.collect()
    return tracemalloc.get_traced_memory()[0], rss_kib(os.getpid())


async def kept_setup_cost(n: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        limits = dataclasses.replace(
            Limits(work_rate=1000.0, address_work_rate=1000.0, work_burst=1000.0),
            max_sessions=n + 8,
            per_address=n + 8,
            max_connections=2 * n + 16,
            startups_per_address=n + 8,
            startups=Startups(n + 8, 30, 2 * n + 16),
            session_burst=n + 8,
        )
        key_path = Path(folder) / "host_key"
        host = Host(HostOptions(port=0, host_key=key_path, open=True, limits=limits), None)
        await host.start(load_or_create_host_key(key_path))
        key = asyncssh.generate_private_key("ssh-ed25519")
        warm = await connect_as(host.port, key, "warm", HONEST)
        await open_and_leave(warm[0], warm[2])
        links = [await connect_as(host.port, key, f"s{i}", HONEST) for i in range(n)]
        await asyncio.sleep(1)
        tracemalloc.start()
        before, before_rss = measured()
        for screen, _, chan in links:
            await open_and_leave(screen, chan)
        await asyncio.sleep(1)
        kept, kept_rss = measured()
        held = [lobby for lobby in lobbies(host) if lobby.kept_setup is not None]
        for lobby in held:  # let go, as when a table is set from it
            setup = lobby.kept_setup
            assert setup is not None
            setup.app.uninstall_screen(setup)
            setup.remove()
            lobby.kept_setup = None
        for _ in range(100):  # until their removal is done (a task of each app's)
            await asyncio.sleep(0.1)
            gc.collect()
            alive = sum(isinstance(o, HostSetupScreen) for o in gc.get_objects())
            if not alive:
                break
        await asyncio.sleep(1)
        gone, gone_rss = measured()
        tracemalloc.stop()
        print(
            f"{n} sessions, {len(held)} setup screens kept (one more warmed the caches); "
            f"{alive} setup screens alive after they were let go"
        )
        for name, after, base in (
            ("kept, against the lobby alone", kept, before),
            ("kept, against the same let go", kept, gone),
        ):
            print(f"  traced {name}: {(after - base) / n / 1024:7.0f} KiB a session")
        print(
            f"  RSS kept against the lobby alone: {(kept_rss - before_rss) / n:7.0f} KiB a "
            f"session; let go after: {(gone_rss - before_rss) / n:7.0f} KiB"
        )
        for _, conn, _ in (warm, *links):
            conn.close()
        await host.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=32)
    args = parser.parse_args()
    os.environ.setdefault("CANTINA_CONFIG_DIR", tempfile.mkdtemp())
    asyncio.run(kept_setup_cost(args.sessions))


if __name__ == "__main__":
    main()
