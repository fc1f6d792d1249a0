"""What keeping a table in Redis adds to a decision: `Journal.record` (the versioned
append, one Lua script round trip) timed decision by decision, with and without the AI's
dice in the entry (an AI's decision carries them), against a redis-server of its own on
127.0.0.1 with an append-only file fsynced as asked. Each table's first decision carries
its record too (it was just opened: one script writes both, KEEP_AND_APPEND); those are
counted among the others, and shown apart. Beside them, a PING's round trip on the
connection the decisions went through (the store's `Line`): the least any call costs on
this machine just then; and the share of the machine's CPU time its hypervisor took
meanwhile (steal): on this project's 2-core VM it went from 2% to 25% between runs a few
seconds apart, the load average under 1, and at 20% the same code ran about twice as slow.

    .venv/bin/python benchmarks/bench_store.py [--fsync everysec|always] [--tables 40]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import socket
import subprocess
import tempfile
import time

from cantina.games.table import Move
from cantina.games.valdes import ValDesSettings
from cantina.live import LiveTable
from cantina.seating import Seat, TableSetup
from cantina.store.memory import Journal
from cantina.store.records import SeatedRecord, TableRecord, encode_setup, entry_move, move_entry
from cantina.store.redis_store import RedisStore

SETUP = TableSetup("valdes", ValDesSettings(seats=2), (Seat("Ana"), Seat("Bo")), 1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def measure(
    store: RedisStore, tables: int, dice: bool, firsts: list[float] | None = None
) -> list[float]:
    """Each decision's `Journal.record`, sorted (seconds); each table's first also added
    to `firsts`, if given."""
    times: list[float] = []
    for number in range(tables):
        code = f"B{int(dice)}{number}"
        creator = SeatedRecord("bench", "Ana")
        setup = encode_setup(SETUP)
        record = TableRecord(code=code, setup=setup, creator=creator, stand_in="Cautious")
        store.save(record, new=True)  # a table just opened: the only record that makes one
        table, journal, rng = LiveTable(SETUP), Journal(store, code), random.Random(number)
        while (decision := table.game.pending) is not None and len(table.moves) < 50:
            action = rng.choice(decision.options)
            entry = move_entry(Move(decision.seat, action), table.ai_dice.state() if dice else None)
            start = time.perf_counter()
            await journal.record(entry)
            times.append(time.perf_counter() - start)
            if firsts is not None and journal.version == 1:
                firsts.append(times[-1])
            recorded = entry_move(SETUP.game, entry)
            table.submit(recorded.seat, recorded.action)
    return sorted(times)


def cpu_ticks() -> tuple[int, int]:
    """The machine's CPU time so far (ticks): stolen by the hypervisor (a VM's cores given
    to others), and in all; (0, 0) where /proc/stat cannot be read."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(f) for f in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return 0, 0
    return fields[7], sum(fields)


def stolen(since: tuple[int, int]) -> str:
    """The share of the machine's CPU time the hypervisor took since `since` (cpu_ticks):
    on a VM at 20% the same code ran twice as slow as at 2%, load average unmoved."""
    steal, total = cpu_ticks()
    if total <= since[1]:
        return "CPU steal unknown"
    return f"CPU steal {100 * (steal - since[0]) / (total - since[1]):.0f}%"


def at(times: list[float], share: float) -> float:
    """The time (ms) below which `share` of the sorted `times` fall."""
    return times[int(share * (len(times) - 1))] * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fsync", choices=("everysec", "always", "no"), default="everysec")
    parser.add_argument("--tables", type=int, default=40)
    args = parser.parse_args()
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("bench_store: redis-server is not installed")
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", folder, "--save", "",
             "--appendonly", "yes", "--appendfsync", args.fsync],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0")
            for _ in range(100):
                try:
                    await store.ping()
                    break
                except Exception:
                    await asyncio.sleep(0.05)
            ticks = cpu_ticks()
            for dice in (False, True):
                firsts: list[float] = []
                times = await measure(store, args.tables, dice, firsts)
                firsts.sort()
                print(
                    f"fsync {args.fsync}, AI dice {'in' if dice else 'not in'} the entry: "
                    f"{len(times)} decisions, p50 {at(times, 0.5):.3f} ms, "
                    f"p95 {at(times, 0.95):.3f} ms, "
                    f"max {times[-1] * 1000:.3f} ms; of them a table's first, with its "
                    f"record: {len(firsts)}, p50 {at(firsts, 0.5):.3f} ms"
                )
            pings: list[float] = []
            for _ in range(500):
                start = time.perf_counter()
                await store.line.call("PING")
                pings.append(time.perf_counter() - start)
            pings.sort()
            print(
                f"a PING on the same connection: p50 {at(pings, 0.5):.3f} ms, "
                f"p95 {at(pings, 0.95):.3f} ms (any call's least, on this machine now); "
                f"{stolen(ticks)} of the machine's time meanwhile"
            )
            await store.close()
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    asyncio.run(main())
