"""One honest player going from screen to screen over SSH: how long each change takes.

A fresh host (`cantina serve`'s code, as `bench_ssh.py --abuse` starts it, default
limits) and one asyncssh client on 127.0.0.1; six times over: `v` (the Vigo's Favor
table setup) and Esc (back to the lobby), each timed from the key to the new screen's
words arriving. A screen change costs the host far more than a letter, so this is what
a work budget that is too tight makes a player feel (see cantina/ssh/budget.py).

    .venv/bin/python benchmarks/bench_navigate.py [--pause 0.3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

sys.path.insert(0, str(Path(__file__).parent))
import bench_ssh


async def timed(screen: bench_ssh.Screen, chan, key: bytes, words: bytes) -> float:
    started = time.perf_counter()
    mark = len(screen.data)
    chan.write(key)
    await asyncio.wait_for(bench_ssh.wait_after(screen, mark, words), 30)
    return time.perf_counter() - started


async def main(pause: float, cycles: int) -> None:
    port = bench_ssh.free_port()
    key_path = Path(tempfile.mkdtemp()) / "host_key"
    host = bench_ssh.start_abuse_host(port, key_path)
    try:
        key = asyncssh.generate_private_key("ssh-ed25519")
        screen, conn, chan = await bench_ssh.connect_as(port, key, "mover", bench_ssh.HONEST)
        await asyncio.sleep(1)
        setups, lobbies = [], []
        for cycle in range(cycles):
            setups.append(await timed(screen, chan, b"v", b"ctrl+s"))
            await asyncio.sleep(pause)
            lobbies.append(await timed(screen, chan, b"\x1b", b"shared tables"))
            await asyncio.sleep(pause)
            print(
                f"cycle {cycle}: v -> setup {setups[-1] * 1000:.0f} ms, "
                f"esc -> lobby {lobbies[-1] * 1000:.0f} ms",
                flush=True,
            )
        print(
            f"median: setup {statistics.median(setups) * 1000:.0f} ms, "
            f"lobby {statistics.median(lobbies) * 1000:.0f} ms; "
            f"slowest {max(setups + lobbies) * 1000:.0f} ms"
        )
        conn.close()
    finally:
        host.kill()
        host.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between keys")
    parser.add_argument("--cycles", type=int, default=6)
    args = parser.parse_args()
    asyncio.run(main(args.pause, args.cycles))
