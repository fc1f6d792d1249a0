"""Hosting over SSH: N sessions at once, each pressing a key every second.

For each N (1, 8, 32, 64) a fresh host (`cantina serve`'s code, in a process of its own
on 127.0.0.1, any key admitted, the limits raised to fit N from one address) and N
asyncssh clients in this process, 80 x 24, TERM xterm-256color:

- connect -> first frame: all N connect at once; from the start of the TCP connection to
  the lobby's title having arrived. Median and p95.
- keystroke -> echo: each session types into the lobby's join-code field once a second
  (random phase), a letter then Backspace; from the key written to the first byte of
  output after it (the letter drawn or erased). Median and p95 over every key.
- memory per session: the host's resident memory with the N sessions connected, less
  its memory before the first connection, divided by N.

Targets on the 2-core machine: 64 sessions held; keystroke p95 <= 50 ms at 64; 32
simultaneous connects all painted within 1.5 s (p95); <= 10 MiB per session. The clients
share the machine with the host, so the figures include their cost too.

    .venv/bin/python benchmarks/bench_ssh.py [--sessions 1,8,32,64] [--seconds 20] [--at-table]

With --at-table, every session first goes from the lobby to a Val-Des table of its own
(one person, three AI seats) and, once asked for a call, its key a second shows the odds
of the call on offer, then hides them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

HOST = """
import asyncio, dataclasses, os, sys
from pathlib import Path
from cantina.ssh.limits import Limits, Startups
import cantina.ssh.serve
from cantina.ssh.server import HostOptions

n, port, key, tune = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]), sys.argv[4] == "1"
limits = dataclasses.replace(
    Limits(), max_sessions=n + 8, per_address=n + 8, max_connections=2 * n + 16,
    startups_per_address=n + 8, startups=Startups(n + 8, 30, 2 * n + 16),
)
options = HostOptions(port=port, host_key=key, open=True, limits=limits)
if os.environ.get("BENCH_GC_LOG"):
    import gc, time
    started = {}
    pauses = []
    def watch(phase, info):
        if phase == "start":
            started["t"] = time.perf_counter()
        else:
            pauses.append((info["generation"], time.perf_counter() - started["t"]))
    gc.callbacks.append(watch)
    import atexit, signal
    def report(*_):
        for gen in (0, 1, 2):
            times = sorted(p for g, p in pauses if g == gen)
            if times:
                print(f"gc gen{gen}: {len(times)} collections, max {times[-1]*1000:.0f} ms, "
                      f"total {sum(times)*1000:.0f} ms", file=sys.stderr, flush=True)
        os._exit(0)
    signal.signal(signal.SIGTERM, report)
if os.environ.get("BENCH_PROFILE"):
    import cProfile, signal
    profile = cProfile.Profile()
    def stop(*_):
        profile.disable()
        profile.dump_stats(os.environ["BENCH_PROFILE"])
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    profile.enable()
if os.environ.get("BENCH_GC_THRESHOLDS"):  # trying other settings than the host's own
    import gc
    import cantina.ssh.serve as serve
    thresholds = [int(x) for x in os.environ["BENCH_GC_THRESHOLDS"].split(",")]
    def tune_collector():
        gc.collect()
        gc.freeze()
        gc.set_threshold(*thresholds)
    serve.tune_collector = tune_collector
asyncio.run(cantina.ssh.serve.run_host(options, tune_gc=tune))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Screen(asyncssh.SSHClientSession):
    def __init__(self) -> None:
        self.data = bytearray()
        self.arrived = asyncio.Event()
        self.waiting_since: float | None = None
        self.echoes: list[float] = []

    def data_received(self, data: bytes, datatype) -> None:
        self.data.extend(data)
        if self.waiting_since is not None:
            self.echoes.append(time.perf_counter() - self.waiting_since)
            self.waiting_since = None
        self.arrived.set()

    async def wait_for(self, text: bytes, timeout: float) -> None:
        deadline = time.perf_counter() + timeout
        while text not in self.data:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"{text!r} never arrived")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)


async def session(port: int, key: asyncssh.SSHKey, n: int) -> tuple[float, Screen, object]:
    started = time.perf_counter()
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=f"bench{n}",
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        connect_timeout=60,
    )
    chan, screen = await conn.create_session(
        Screen, term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    await screen.wait_for(b"shared tables", 60)
    return time.perf_counter() - started, screen, (conn, chan)


async def to_a_table(screen: Screen, chan) -> None:
    """From the lobby to a Val-Des table of one person and three AI seats (play alone),
    until the person is asked for their call."""
    steps = ((b"m", b"Resume a campaign"), (b"d", b"Ante"), (b"\x13", b"call Val or Des"))
    for key, words in steps:
        mark = len(screen.data)
        chan.write(key)
        deadline = time.perf_counter() + 60
        while words not in screen.data[mark:]:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{words!r} never arrived")
            screen.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(screen.arrived.wait(), 1)


async def typist(screen: Screen, chan, seconds: float, keys: list[bytes]) -> None:
    """A key a second, in turn from `keys`; each timed to the first output after it."""
    await asyncio.sleep(random.random())
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        await asyncio.sleep(0.3)  # any output from the last key has settled
        screen.waiting_since = None
        await asyncio.sleep(0.7)
        screen.waiting_since = time.perf_counter()
        chan.write(keys[n % 2])
        n += 1


async def level(
    n: int, seconds: float, key_path: Path, tune: bool, at_table: bool
) -> dict[str, float]:
    port = free_port()
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, str(n), str(port), str(key_path), "1" if tune else "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout is not None
        while "fingerprint" not in host.stdout.readline():
            pass
        await asyncio.sleep(0.5)
        before = rss_kib(host.pid)
        client_key = asyncssh.generate_private_key("ssh-ed25519")
        results = await asyncio.gather(*(session(port, client_key, i) for i in range(n)))
        firsts = [r[0] for r in results]
        if at_table:  # `o` shows the odds of the call on offer, then hides them
            await asyncio.gather(*(to_a_table(s, link[1]) for _, s, link in results))
            keys = [b"o", b"o"]
        else:  # into the lobby's join-code field: a letter, then Backspace
            for _, _, (_, chan) in results:
                chan.write(b"j")  # to the field (a focus change: not what is timed)
            keys = [b"a", b"\x7f"]
        await asyncio.sleep(3)
        host_cpu, own_cpu, wall = cpu_seconds(host.pid), time.process_time(), time.perf_counter()
        await asyncio.gather(*(typist(s, link[1], seconds, keys) for _, s, link in results))
        wall = time.perf_counter() - wall
        host_cpu = (cpu_seconds(host.pid) - host_cpu) / wall
        own_cpu = (time.process_time() - own_cpu) / wall
        after = rss_kib(host.pid)
        echoes = [e for _, s, _ in results for e in s.echoes]
        for _, _, (conn, _) in results:
            conn.close()
        return {
            "sessions": n,
            "first_median": statistics.median(firsts),
            "first_p95": pct(firsts, 0.95),
            "first_max": max(firsts),
            "keys": len(echoes),
            "echo_median_ms": statistics.median(echoes) * 1000,
            "echo_p95_ms": pct(echoes, 0.95) * 1000,
            "mib_per_session": (after - before) / 1024 / n,
            "host_cpu": host_cpu,
            "client_cpu": own_cpu,
        }
    finally:
        host.terminate()
        host.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", default="1,8,32,64")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--no-gc-tuning", action="store_true")
    parser.add_argument(
        "--at-table",
        action="store_true",
        help="each session plays alone at a Val-Des table (1 person, 3 AI) and its key "
        "shows and hides the odds of the call on offer, instead of typing in the lobby",
    )
    args = parser.parse_args()
    os.environ.setdefault("CANTINA_CONFIG_DIR", tempfile.mkdtemp())
    with tempfile.TemporaryDirectory() as folder:
        key = Path(folder) / "host_key"
        print(
            f"{'sessions':>8} {'first med':>10} {'first p95':>10} {'first max':>10} "
            f"{'keys':>6} {'echo med':>9} {'echo p95':>9} {'MiB/sess':>9} "
            f"{'host CPU':>9} {'clients':>8}"
        )
        for n in (int(x) for x in args.sessions.split(",")):
            r = asyncio.run(level(n, args.seconds, key, not args.no_gc_tuning, args.at_table))
            print(
                f"{r['sessions']:>8} {r['first_median']:>9.2f}s {r['first_p95']:>9.2f}s "
                f"{r['first_max']:>9.2f}s {r['keys']:>6} {r['echo_median_ms']:>7.1f}ms "
                f"{r['echo_p95_ms']:>7.1f}ms {r['mib_per_session']:>9.2f} "
                f"{r['host_cpu']:>9.2f} {r['client_cpu']:>8.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
