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

With --abuse, one host with its default limits and 8 honest sessions (from 127.0.0.1)
typing a key a second into the lobby's join-code field, 125 ms apart (`typists`), each key
timed to the first output after it (a key unanswered in 5 s counts as 5 s). First a quiet
baseline, then
each attack in turn, each from an address of its own (127.0.0.10 on: the host holds an
address whose sessions it keeps ending), for --phase seconds each:

  a. 130 TCP connections that never start the handshake, held open; during it a new
     player (from 127.0.0.3) logs in: whether they got the lobby, and how long it took.
  b. one session sending Tab at 500 bytes a second.
  c. one session alternating `v` (a new Vigo's Favor table's setup) and Esc as fast as
     the keys are told apart (Esc alone is a key after Textual's ESCDELAY).
  d. 8 sessions each sending window changes every 5 ms (two sizes in turn), each
     coming back if the host ends it.
  e. one session sending bad escape sequences (`ESC[9999999u`, `ESC[27;5;9999999~`,
     ctrl+Q ctrl+P), reconnecting if it is ended. The host drops those keys (they name
     no character, and no terminal sends one) with one log line a session, and ctrl+Q
     quits: what e costs is a login and an app start-up over and over. An address whose
     sessions the host ends for bad input or too many window changes, or that send
     input it cannot read (such keys too), is held: at the second in a minute its new
     connections are refused before their key exchange for 30 s, twice as long each
     time it comes back for more, up to 5 min (`Limits.strikes`).
  f. a table hog: 8 sessions setting up and starting Vigo's Favor tables, each leaving
     and coming back for another (tables that keep playing with their stand-ins). The
     host holds a third session of one address within 5 s as one of many (budget.py),
     so these seldom reach a table in a phase: what f measures is 8 logins and their
     setup screens at once from one address.
  g. the same hog as 2 sessions (connected before the phase), which the host does not
     hold as many: they start tables until the player's cap (2 started tables, their
     stand-ins playing on), then keep trying (a setup screen, the start refused, Esc).
  x. a control, no attack: a process spinning 0.3 of a core (about d's attacker's own
     client work), for what competing for the machine's cores does by itself.

Each attack runs in a process of its own (as from another machine: its own client work
does not slow the honest clients' reading); the sessions of b to e connect before their
phase begins, so their logins are not timed as the attack.

For each: the honest keys' median, p95 and max, the p95's ratio to the baseline's, and
whether the goal is met (p95 within 2x the baseline, no key over 1 s), plus the lines the
host wrote to its log during the phase, the processor time of the host, the honest
clients and the attacker, and how busy the whole machine was (on a shared 2-core
machine, the attacker's own client work and others' are what the host competes with).
Every attack ends with its phase.

    .venv/bin/python benchmarks/bench_ssh.py --abuse [--phase 12] [--attacks abcdefg]

With --abuse --workers 2: b to f on one worker of two, p95 per worker (ssh_workers_abuse.py).

With --costs, one session in this process, and what a Tab, a window change, `v` then Esc
(a table's setup screen and back) and a letter cost the host, as the work meter of
cantina/ssh/budget.py charges them (no share set, so nothing waits).
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
from typing import Any

import asyncssh
import ssh_playing

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
    # N players, as from N machines: their address's share of the host's time is N shares
    address_work_rate=n * Limits().work_rate, session_burst=n + 8,
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


ABUSE_HOST = """
import asyncio, os, sys
from pathlib import Path
import cantina.ssh.serve
from cantina.ssh.server import HostOptions

options = HostOptions(port=int(sys.argv[1]), host_key=Path(sys.argv[2]), open=True)
if os.environ.get("BENCH_GC_LOG"):  # each collection over 20 ms, as it happens
    import gc, time
    started = {}
    def watch(phase, info):
        if phase == "start":
            started["t"] = time.perf_counter()
        elif (took := time.perf_counter() - started["t"]) > 0.02:
            print(f"gc gen{info['generation']} {took * 1000:.0f} ms", file=sys.stderr, flush=True)
    gc.callbacks.append(watch)
if os.environ.get("BENCH_PROFILE"):  # the host's profile, written when it is stopped
    import cProfile, signal
    profile = cProfile.Profile()
    def stop(*_):
        profile.disable()
        profile.dump_stats(os.environ["BENCH_PROFILE"])
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    profile.enable()
if os.environ.get("BENCH_SLOW"):  # each loop step over BENCH_SLOW ms, as it happens
    import asyncio.events, time
    slow, plain_run = float(os.environ["BENCH_SLOW"]) / 1000, asyncio.events.Handle._run
    def timed_run(handle):
        started = time.perf_counter()
        plain_run(handle)
        if (took := time.perf_counter() - started) > slow:
            what = [a for a in (handle._callback, *(handle._args or ())) if callable(a)][-1]
            what = getattr(what, "__self__", what)
            print(f"{started % 100:.3f} slow step {took * 1000:.0f} ms: {what!r:.200}",
                  file=sys.stderr, flush=True)
    asyncio.events.Handle._run = timed_run
if os.environ.get("BENCH_STEPS"):  # each loop step over 5 ms, and what ran in it, on exit
    import asyncio.events, collections, signal, threading, time
    steps, samples, plain_step = [], collections.deque(maxlen=200000), asyncio.events.Handle._run
    every = collections.deque(maxlen=500000)  # every step: when, how long, whose, what
    main = threading.main_thread().ident
    def sample():  # the host thread's stack every millisecond (its own code's frames)
        while True:
            time.sleep(0.001)
            frame, names = sys._current_frames().get(main), []
            while frame is not None and len(names) < 60:
                code = frame.f_code
                if "asyncio" not in code.co_filename:
                    names.append(f"{Path(code.co_filename).stem}.{code.co_name}")
                frame = frame.f_back
            samples.append((time.perf_counter(), names))
    if os.environ.get("BENCH_SAMPLE"):  # and a sampled stack (slows the host a little)
        sys.setswitchinterval(0.0005)
        threading.Thread(target=sample, daemon=True).start()
    from cantina.ssh.budget import OWNER, Budgets
    addresses, plain_open = {}, Budgets.open
    def opened(self, address):  # whose each step was: its session's address
        budget = plain_open(self, address)
        addresses[id(budget.account)] = address
        return budget
    Budgets.open = opened
    def stepped(handle):
        owner = handle._context.get(OWNER) if handle._context is not None else None
        owner = addresses.get(id(owner.account), "?") if owner is not None else "-"
        what = [a for a in (handle._callback, *(handle._args or ())) if callable(a)][-1]
        what = getattr(what, "__self__", what)
        if getattr(what, "parked", None):  # a budget's pass over its put-off work: whose
            what = getattr(what.parked[0][1], "__self__", what.parked[0][1])
            what = f"unpark {what!r}"
        started, cpu = time.perf_counter(), time.thread_time()
        plain_step(handle)
        took = time.perf_counter() - started
        kind = what if isinstance(what, str) else type(what).__name__
        every.append((started, took, owner, kind[:40]))
        if took > 0.005:
            cpu = time.thread_time() - cpu
            steps.append((started, took, cpu, f"{owner} {what!s:.160}"))
    asyncio.events.Handle._run = stepped
    def write(*_):
        taken = list(samples)
        with open(os.environ["BENCH_STEPS"], "w") as out:
            for started, took, cpu, what in steps:
                inner = collections.Counter()
                for at, names in taken:
                    if started <= at <= started + took:
                        inner.update(set(names))
                top = ", ".join(f"{n} {c}" for n, c in inner.most_common(40))
                print(f"step {started:.3f} {took * 1000:.1f} ms cpu {cpu * 1000:.1f} {what} "
                      f"|| {top}", file=out)
        with open(os.environ["BENCH_STEPS"] + ".all", "w") as out:
            for started, took, owner, kind in list(every):
                print(f"{started:.4f} {took * 1e6:.0f} {owner} {kind}", file=out)
        if taken:  # every sample, for a profile of any stretch of the run
            with open(os.environ["BENCH_STEPS"] + ".samples", "w") as out:
                for at, names in taken:
                    print(f"{at:.4f} {';'.join(reversed(names))}", file=out)
        os._exit(0)
    signal.signal(signal.SIGTERM, write)
ready = None
if os.environ.get("BENCH_BUDGET_LOG"):  # each second, each session's account
    def ready(host):
        async def report():
            while True:
                await asyncio.sleep(1)
                for s in host.sessions:
                    b = s.budget
                    if b is not None:
                        print(f"{s.gate.address} spent {b.spent:.3f} of {b.metered:.3f} levels "
                              f"{[round(x.level(), 3) for x in b.buckets]} parked "
                              f"{len(b.parked or ())} held {len(s.pacer.held)}",
                              file=sys.stderr, flush=True)
        asyncio.get_running_loop().create_task(report())
asyncio.run(cantina.ssh.serve.run_host(options, ready))
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


def machine_busy() -> float:
    """Seconds of processor time the whole machine has spent busy (every core, every
    process: the other work on a shared machine too)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Screen(asyncssh.SSHClientSession):
    def __init__(self) -> None:
        self.data = bytearray()
        self.arrived = asyncio.Event()
        self.waiting_since: float | None = None
        self.echoes: list[float] = []
        self.late = 0
        """Keys with no output within `LATE` (see `typist`)."""

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


LATE = 2.0
"""Seconds after which a key with no output yet is late: counted as taking `LATE` (a
lower bound), so that the slowest keys are not left out of the p95."""


async def typist(screen: Screen, chan, seconds: float, keys: list[bytes]) -> None:
    """A key a second, in turn from `keys`; each timed to the first output after it.
    The next key waits for that output (up to `LATE`), then for 0.3 s more of quiet."""
    await asyncio.sleep(random.random())
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        screen.waiting_since = None
        await asyncio.sleep(0.3)  # any output from the last key has settled
        sent = screen.waiting_since = time.perf_counter()
        chan.write(keys[n % 2])
        n += 1
        await asyncio.sleep(0.7)
        while screen.waiting_since is not None and time.perf_counter() - sent < LATE:
            await asyncio.sleep(0.02)
        if screen.waiting_since is not None:
            screen.echoes.append(LATE)
            screen.late += 1


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
            "late": sum(s.late for _, s, _ in results),
            "echo_median_ms": statistics.median(echoes) * 1000,
            "echo_p95_ms": pct(echoes, 0.95) * 1000,
            "mib_per_session": (after - before) / 1024 / n,
            "host_cpu": host_cpu,
            "client_cpu": own_cpu,
        }
    finally:
        host.terminate()
        host.wait(10)


HONEST, NEWCOMER = "127.0.0.1", "127.0.0.3"


def attacker_of(letter: str) -> str:
    """Each attack of --abuse from an address of its own (127.0.0.10 on): the host holds
    an address whose sessions it ended for abuse (`Limits.strikes`), which would refuse
    the next attack's sessions before it began."""
    return f"127.0.0.{10 + 'abcdefgx'.index(letter)}"


async def connect_as(
    port: int, key: asyncssh.SSHKey, name: str, address: str, size=(80, 24)
) -> tuple[Screen, asyncssh.SSHClientConnection, asyncssh.SSHClientChannel]:
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=name,
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        connect_timeout=30,
        local_addr=(address, 0),
    )
    chan, screen = await conn.create_session(
        Screen, term_type="xterm-256color", term_size=size, encoding=None
    )
    await screen.wait_for(b"shared tables", 30)
    return screen, conn, chan


async def honest_typist(
    screen: Screen, chan, seconds: float, echoes: list[float], moment: float | None = None
) -> None:
    """A key a second (a letter, then Backspace), each waited for: from the write to the
    first output after it, or 5 s when none comes. `moment`: when in each second (0 to
    1), else drawn at random once. (`typists` spreads a crowd's moments evenly: eight
    typists' moments drawn at random put two within a few milliseconds of each other in
    a third to a half of the phases, one waiting for the other's frame every second, an
    eighth of the keys late, and that draw, more than the attack, set a phase's p95.)"""
    second = time.perf_counter()
    end = second + seconds
    moment = random.random() if moment is None else moment
    n = 0
    while second < end:
        await asyncio.sleep(max(0.0, second + moment - time.perf_counter()))
        second += 1.0
        tick = time.perf_counter()
        mark = len(screen.data)
        screen.arrived.clear()
        chan.write((b"a", b"\x7f")[n % 2])
        n += 1
        while len(screen.data) == mark and time.perf_counter() - tick < 5:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(screen.arrived.wait(), 0.1)
            screen.arrived.clear()
        echoes.append(min(time.perf_counter() - tick, 5.0))
        if os.environ.get("BENCH_STEPS") and echoes[-1] > 0.02:  # beside the host's steps
            with open(os.environ["BENCH_STEPS"] + ".keys", "a") as out:
                print(f"key {tick:.3f} {echoes[-1] * 1000:.1f} ms", file=out)


def typists(honest: list[tuple[Screen, Any, Any]], seconds: float, echoes: list[float]):
    """The honest crowd typing for `seconds`, their moments in each second evenly spread
    (from a random start): 125 ms apart for eight, so that they never wait for each other,
    and what they wait for is the host's doing."""
    start = random.random()
    return [
        honest_typist(screen, chan, seconds, echoes, (start + i / len(honest)) % 1.0)
        for i, (screen, _, chan) in enumerate(honest)
    ]


async def attack_sockets(port: int, key, seconds: float, notes: list[str], source: str) -> None:
    """130 connections that never speak; a newcomer logs in 2 s into it."""
    held = []
    for _ in range(130):
        with contextlib.suppress(OSError):
            held.append(await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)))
    await asyncio.sleep(2)
    started = time.perf_counter()
    try:
        _, conn, _ = await asyncio.wait_for(
            connect_as(port, key, "newcomer", NEWCOMER), max(1.0, seconds - 2)
        )
        notes.append(f"newcomer in after {time.perf_counter() - started:.2f}s")
        conn.close()
    except (OSError, asyncssh.Error, TimeoutError) as err:
        why = str(err).strip() or type(err).__name__
        notes.append(f"newcomer refused after {time.perf_counter() - started:.2f}s ({why})")
    notes.append(f"{len(held)} sockets held")
    await asyncio.sleep(max(0.0, seconds - 2 - (time.perf_counter() - started)))
    for _, writer in held:
        writer.close()


async def attack_keys(
    port: int, key, seconds: float, notes: list[str], kind: str, links: list, source: str
) -> None:
    """One session (connected before the phase): Tab at 500 bytes/s, `v` and Esc, or bad
    escape sequences; when the host ends it, a new one (connecting is then the attack's)."""
    end = time.perf_counter() + seconds
    sessions = 0
    sent = 0
    while time.perf_counter() < end:
        if links:
            _, conn, chan = links.pop()
        else:
            try:
                _, conn, chan = await connect_as(port, key, f"abuser{kind}", source)
            except (OSError, asyncssh.Error, TimeoutError):
                await asyncio.sleep(0.5)
                continue
        sessions += 1
        try:
            while time.perf_counter() < end and not chan.is_closing():
                if kind == "tab":
                    chan.write(b"\t" * 5)
                    await asyncio.sleep(0.01)
                elif kind == "vesc":
                    chan.write(b"v")
                    await asyncio.sleep(0.02)
                    chan.write(b"\x1b")
                    await asyncio.sleep(0.13)
                else:
                    chan.write(b"\x1b[9999999u")
                    await asyncio.sleep(0.05)
                    chan.write(b"\x1b[27;5;9999999~")
                    await asyncio.sleep(0.05)
                    chan.write(b"\x11\x10")
                    await asyncio.sleep(0.05)
                sent += 1
        except (OSError, asyncssh.Error):
            pass
        finally:
            conn.close()
    notes.append(f"{sent} writes, {sessions} session(s)")


async def attack_resize(
    port: int, key, seconds: float, notes: list[str], links: list, source: str
) -> None:
    """8 sessions (connected before the phase), each changing its size every 5 ms; a
    session the host ends comes back (connecting is then the attack's), as e's does."""
    end = time.perf_counter() + seconds
    changes = 0
    sessions = len(links)

    async def storm(link) -> None:
        nonlocal changes, sessions
        n = 0
        _, conn, chan = link
        while time.perf_counter() < end:
            if chan.is_closing():
                conn.close()
                try:
                    _, conn, chan = await connect_as(port, key, "stormer", source)
                except (OSError, asyncssh.Error, TimeoutError):
                    await asyncio.sleep(0.5)
                    continue
                sessions += 1
            chan.change_terminal_size(*((100, 40), (80, 24))[n % 2])
            n += 1
            changes += 1
            await asyncio.sleep(0.005)
        conn.close()

    await asyncio.gather(*(storm(link) for link in links), return_exceptions=True)
    notes.append(f"{sessions} sessions, {changes} window changes")


CAPPED = b"one player may"
"""What a player at their cap of tables is told as they try to start another."""


async def attack_tables(
    port: int,
    key,
    seconds: float,
    notes: list[str],
    source: str,
    count: int = 8,
    links: list | None = None,
) -> None:
    """`count` sessions (one key: one player), each setting up and starting a Vigo's Favor
    table, then leaving (its connection closed) and coming back for another, until the
    phase ends; a start refused at the player's cap of tables is followed by Esc and
    another try. `links`: sessions connected before the phase, used first."""
    end = time.perf_counter() + seconds
    started = capped = 0
    ready = list(links or ())

    async def hog(i: int) -> None:
        nonlocal started, capped
        while time.perf_counter() < end:
            conn = None
            try:
                if ready:
                    screen, conn, chan = ready.pop()
                else:
                    screen, conn, chan = await connect_as(port, key, f"hog{i}", source)
                while time.perf_counter() < end:
                    left = max(0.1, end - time.perf_counter())
                    mark = len(screen.data)
                    chan.write(b"v")
                    await asyncio.wait_for(wait_after(screen, mark, b"Stand-in"), left)
                    mark = len(screen.data)
                    chan.write(b"\x13")
                    said = await asyncio.wait_for(
                        wait_after(screen, mark, b"Press s", CAPPED), left
                    )
                    if said == b"Press s":
                        chan.write(b"s")
                        started += 1
                        await asyncio.sleep(0.3)
                        break  # leaves, and comes back for another
                    capped += 1
                    chan.write(b"\x1b")  # back to the lobby, to try again
                    await asyncio.sleep(1.0)
            except (OSError, asyncssh.Error, TimeoutError):
                await asyncio.sleep(0.5)
            finally:
                if conn is not None:
                    conn.close()

    await asyncio.gather(*(hog(i) for i in range(count)))
    notes.append(f"{started} tables started, {capped} refused at the player's cap")


CONTROL_SHARE = 0.3
"""Of a core, what the control phase spins: about what d's attacker takes (its client's
work on its window changes), with no connection to the host."""


def spin(seconds: float, share: float) -> None:
    """Take `share` of a core for `seconds` (in slices of 10 ms), touching nothing else."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        started = time.perf_counter()
        while time.perf_counter() - started < 0.01 * share:
            pass
        time.sleep(0.01 * (1 - share))


async def wait_after(screen: Screen, mark: int, *words: bytes) -> bytes:
    """The first of `words` to arrive after `mark`."""
    while True:
        for found in words:
            if found in screen.data[mark:]:
                return found
        screen.arrived.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(screen.arrived.wait(), 0.5)


ATTACKS: dict[str, int] = {
    "baseline": 0,
    "a. 130 idle sockets": 0,
    "b. Tab 500 B/s": 1,
    "c. v / Esc": 1,
    "d. 8 resize storms": 8,
    "e. bad escapes": 1,
    "f. table hog": 0,
    "g. table hog, 2 sessions": 2,
    "x. control: 0.3 core spun": 0,
}
"""Each attack, and how many of its sessions connect before its phase begins (their
logins are not the attack)."""


async def attack_worker(letter: str, port: int, phase: float) -> None:
    """One attack, from a process of its own: its sessions connected, it says how many,
    waits for a line on stdin, attacks for the phase, and prints its notes."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    ready = next(n for name, n in ATTACKS.items() if name.startswith(f"{letter}."))
    source = attacker_of(letter)
    links = [await connect_as(port, key, f"attacker{i}", source) for i in range(ready)]
    print(len(links), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    notes: list[str] = []
    spent = time.process_time()
    if letter == "a":
        await attack_sockets(port, key, phase, notes, source)
    elif letter in "bce":
        kind = {"b": "tab", "c": "vesc", "e": "bad"}[letter]
        await attack_keys(port, key, phase, notes, kind, links, source)
    elif letter == "d":
        await attack_resize(port, key, phase, notes, links, source)
    elif letter == "f":
        await attack_tables(port, key, phase, notes, source)
    elif letter == "g":
        await attack_tables(port, key, phase, notes, source, 2, links)
    else:
        spin(phase, CONTROL_SHARE)
    notes.append(f"attacker's CPU {time.process_time() - spent:.1f}s")
    print("\n".join(notes), flush=True)


async def abuse(phase: float, key_path: Path, which: str) -> None:
    with tempfile.TemporaryFile("w+") as log:
        await abuse_logged(phase, key_path, log, which)


def start_abuse_host(port: int, key_path: Path, log: Any = subprocess.DEVNULL) -> subprocess.Popen:
    """`ABUSE_HOST` on `port`, in a process of its own, once it listens."""
    host = subprocess.Popen(
        [sys.executable, "-c", ABUSE_HOST, str(port), str(key_path)],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    assert host.stdout is not None
    while "fingerprint" not in host.stdout.readline():
        pass
    return host


async def honest_crowd(port: int, key: asyncssh.SSHKey) -> list[tuple[Screen, Any, Any]]:
    """The 8 honest players, from one address, each in the lobby's join-code field."""
    await asyncio.sleep(0.5)
    honest = [await connect_as(port, key, f"honest{i}", HONEST) for i in range(8)]
    for _, _, chan in honest:
        chan.write(b"j")  # to the join-code field (a focus change: not timed)
    await asyncio.sleep(2)
    return honest


async def abuse_logged(phase: float, key_path: Path, log, which: str) -> None:
    port = free_port()
    host = start_abuse_host(port, key_path, log)
    try:
        key = asyncssh.generate_private_key("ssh-ed25519")
        honest = await honest_crowd(port, key)
        print(
            f"{'phase':<22} {'keys':>5} {'median':>8} {'p95':>8} {'max':>8} {'p95/base':>9} "
            f"{'goal':>5} {'log':>5}  notes",
            flush=True,
        )
        base = 0.0
        for name in ATTACKS:
            if name != "baseline" and name[0] not in which:
                continue
            attacker = None
            if name != "baseline":  # in a process of its own, as from another machine
                attacker = await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--attack-worker",
                    name[0],
                    "--port",
                    str(port),
                    "--phase",
                    str(phase),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                )
                assert attacker.stdout is not None and attacker.stdin is not None
                if int(await attacker.stdout.readline()):  # its sessions, once connected
                    await asyncio.sleep(2)
            echoes: list[float] = []
            notes: list[str] = []
            log_at = log.seek(0, 2)
            host_cpu = cpu_seconds(host.pid)
            own_cpu = time.process_time()
            busy, wall = machine_busy(), time.perf_counter()
            typing = typists(honest, phase, echoes)
            if attacker is None:
                await asyncio.gather(*typing)
            else:
                assert attacker.stdout is not None and attacker.stdin is not None
                attacker.stdin.write(b"go\n")
                said, *_ = await asyncio.gather(attacker.stdout.read(), *typing)
                await attacker.wait()
                notes = said.decode().splitlines()
            notes.append(
                f"host cpu {cpu_seconds(host.pid) - host_cpu:.1f}s, "
                f"honest clients {time.process_time() - own_cpu:.1f}s, machine "
                f"{(machine_busy() - busy) / (time.perf_counter() - wall):.2f} of "
                f"{os.cpu_count()} cores busy"
            )
            log.seek(log_at)
            logged = log.read().splitlines()
            if os.environ.get("BENCH_GC_LOG") or os.environ.get("BENCH_SLOW"):
                print("\n".join(logged), flush=True)
            lines = len(logged)
            p95, top = pct(echoes, 0.95), max(echoes)
            base = base or p95
            met = p95 <= 2 * base and top <= 1.0
            print(
                f"{name:<22} {len(echoes):>5} {statistics.median(echoes) * 1000:>6.1f}ms "
                f"{p95 * 1000:>6.1f}ms {top * 1000:>6.0f}ms {p95 / base:>8.1f}x "
                f"{'yes' if met else 'NO':>5} {lines:>5}  {'; '.join(notes)}",
                flush=True,
            )
            await asyncio.sleep(3)  # what the attack left behind settles
        for _, conn, _ in honest:
            conn.close()
    finally:
        host.terminate()
        host.wait(10)


async def costs(rounds: int) -> None:
    """What a key costs the host, as the work meter charges it (processor time of the
    session's app from the key until it rests; cantina/ssh/budget.py), with no share set."""
    from cantina.ssh.keys import load_or_create_host_key
    from cantina.ssh.limits import Limits
    from cantina.ssh.server import Host, HostOptions

    with tempfile.TemporaryDirectory() as folder:
        unlimited = Limits(work_rate=1000.0, address_work_rate=1000.0, work_burst=1000.0)
        key_path = Path(folder) / "host_key"
        options = HostOptions(port=0, host_key=key_path, open=True, limits=unlimited)
        host = Host(options, None)
        await host.start(load_or_create_host_key(key_path))
        key = asyncssh.generate_private_key("ssh-ed25519")
        screen, conn, chan = await connect_as(host.port, key, "costs", HONEST)
        budget = next(iter(host.sessions)).budget
        assert budget is not None

        async def settled() -> None:
            while not budget.quiet() or time.perf_counter() - budget.last_work < 0.15:
                await asyncio.sleep(0.02)

        async def tab(n: int) -> None:
            chan.write(b"\t")

        async def resize(n: int) -> None:
            chan.change_terminal_size(*((100, 30), (80, 24))[n % 2])

        async def v_esc(n: int) -> None:
            mark = len(screen.data)
            chan.write(b"v")
            await asyncio.wait_for(wait_after(screen, mark, b"Stand-in"), 30)
            await settled()
            chan.write(b"\x1b")
            await asyncio.wait_for(wait_after(screen, mark, b"shared tables"), 30)

        async def letter(n: int) -> None:
            chan.write(b"j" if n == 0 else (b"a", b"\x7f")[n % 2])

        await asyncio.sleep(1)
        actions = (("Tab", tab), ("resize", resize), ("v, Esc", v_esc), ("letter", letter))
        for name, action in actions:
            spent = []
            for n in range(rounds):
                await settled()
                before, mark = budget.spent, len(screen.data)
                await action(n)
                started = time.perf_counter()
                while len(screen.data) == mark and time.perf_counter() - started < 1:
                    await asyncio.sleep(0.005)
                await settled()
                spent.append((budget.spent - before) * 1000)
            print(
                f"{name:<8} median {statistics.median(spent):6.1f} ms  "
                f"max {max(spent):6.1f} ms  ({rounds} times)",
                flush=True,
            )
        conn.close()
        await host.close()


def main() -> None:
    if "--abuse" in sys.argv and any(a.split("=")[0] == "--workers" for a in sys.argv[1:]):
        # one abuser among workers: its own module (which imports this one, so is run)
        here = Path(__file__).with_name("ssh_workers_abuse.py")
        os.execv(sys.executable, [sys.executable, str(here), *sys.argv[1:]])
    if ssh_playing.wanted(sys.argv[1:]):  # --playing, --store, --workers: its own module
        ssh_playing.main(sys.argv[1:])
        return
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
    parser.add_argument(
        "--abuse",
        action="store_true",
        help="8 honest sessions typing while one address attacks the host in turn "
        "(see the docstring); their keystroke p95 under each attack against a baseline",
    )
    parser.add_argument("--phase", type=float, default=12.0, help="seconds of each attack")
    parser.add_argument(
        "--attacks", default="abcdefg", help="which attacks (letters; x: the control)"
    )
    parser.add_argument(
        "--costs",
        action="store_true",
        help="what a Tab, a resize, `v` then Esc and a letter cost the host (one session)",
    )
    parser.add_argument("--attack-worker", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("CANTINA_CONFIG_DIR", tempfile.mkdtemp())
    if args.costs:
        asyncio.run(costs(20))
        return
    if args.attack_worker:
        asyncio.run(attack_worker(args.attack_worker, args.port, args.phase))
        return
    if args.abuse:
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(abuse(args.phase, Path(folder) / "host_key", args.attacks))
        return
    with tempfile.TemporaryDirectory() as folder:
        key = Path(folder) / "host_key"
        print(
            f"{'sessions':>8} {'first med':>10} {'first p95':>10} {'first max':>10} "
            f"{'keys':>6} {'late':>5} {'echo med':>9} {'echo p95':>9} {'MiB/sess':>9} "
            f"{'host CPU':>9} {'clients':>8}"
        )
        for n in (int(x) for x in args.sessions.split(",")):
            r = asyncio.run(level(n, args.seconds, key, not args.no_gc_tuning, args.at_table))
            print(
                f"{r['sessions']:>8} {r['first_median']:>9.2f}s {r['first_p95']:>9.2f}s "
                f"{r['first_max']:>9.2f}s {r['keys']:>6} {r['late']:>5} "
                f"{r['echo_median_ms']:>7.1f}ms "
                f"{r['echo_p95_ms']:>7.1f}ms {r['mib_per_session']:>9.2f} "
                f"{r['host_cpu']:>9.2f} {r['client_cpu']:>8.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
