"""Hosting over SSH with a playing load: how many seated, playing sessions a host holds.

Every session (asyncssh, in this process, 80 x 24, a key of its own) sets a shared Val-Des
table in the lobby (two seats for people: it takes one, a Cautious stand-in the other, and
two AIs), starts it, and plays: as soon as it is asked for its call it answers (Val), at
most a key a second. The AI seats play at the host's normal pace, dice animation on. When
a game is over the session plays on at the same table (`n`), after looking at the result
for 0.5 to 2.5 s (`READING`). The sessions that join at a step set their tables at
moments of their own, four a second (`ARRIVALS`), not at one instant. Each answer is
timed from the key written to the first output after it (keystroke -> frame).

For each host configuration the sessions are stepped up (--sessions, default 16, 32, 48,
64, then 8 at a time up to 176; the host is given a table a session, past the lobby's 64, as
`--max-tables` does): at each step the new sessions join
and are seated while the others play, then every key over --seconds is timed. The step
stops at the first count whose p95 is over 50 ms (or that could not be seated); the
figure is the largest count that held it. Configurations (--store, --workers):

  memory x1   one host process, tables in its memory (`cantina serve`)
  redis x1    one host process, tables in Redis (`--store redis://...`)
  redis x2    two worker processes on one port, tables in Redis (`--workers 2`)

Each configuration gets a fresh host (`cantina serve`'s code with its totals raised to N
sessions; each session connects from a loopback address of its own, 127.0.0.2 on, so the
host counts them as N players on N machines, each with a share of its time of its own)
and, with Redis, a fresh redis-server of its own on 127.0.0.1 (append-only file, fsync
every second). The clients share the machine with the host, so the figures include their
cost (the clients' CPU is printed beside the host's and Redis's); on a machine shared with
other work they are noisy. The clients stand for players' own machines: by default
(`--clients first`) the host's processes and Redis run at nice +10, behind them, so that a
client waiting for a core does not add its wait to the host's keystroke -> frame (the
host still pays for every bit of CPU the clients take); `--clients equal` runs all at
one priority, as this benchmark did before. BENCH_KEYS_FIRST=0 runs the host without
putting a light player's key ahead of the rest of its loop's work (budget.KEYS_FIRST).

Redis's cost per decision: the write of each decision, `Journal.record` (what Redis adds:
the in-memory store records nothing), timed as bench_store.py does, first of all, on a
fresh redis-server of its own (as each configuration's), before any host starts or any
session connects, its scripts loaded first as a host's are; beside it
Redis's own work in each (INFO commandstats) and a PING's round trip on the same connection,
the least any call costs: on this 2-core VM, when other work runs, a wake-up of this process
or of Redis waits for a core, and that wait (not Redis) is the p95's tail; and the share of
the machine's CPU its hypervisor took meanwhile (steal), which slows everything at once.
And the keystroke -> frame medians of memory x1 and redis x1 at the first step, side by
side.

    .venv/bin/python benchmarks/bench_ssh.py --playing [--store memory,redis]
        [--workers 1,2] [--sessions 16,32,48,64,72,...,176] [--seconds 15] [--budget 1500]
        [--clients first|equal]

--store redis --workers 2 runs that one configuration only. --budget caps the whole run
in seconds, shared out among the configurations (a step under way finishes; later steps
are skipped and said to be). A session answers when asked, so at the AI's pace it keys
about once in 4 to 5 s: at 8 sessions a step of 15 s times some 25 keys (a noisy p95:
give more --seconds, and more --budget, on a machine to spare). Near a host's limit a
step's p95 rises slowly with the count (about 35 to 55 ms from 72 to 104 sessions on one
process), so a burst within a short step moves the count by several steps: --seconds 60
gives a steadier one. With BENCH_PROFILE=FILE
in the environment a one-process host writes to FILE, as it is stopped, the cProfile of its
last step's timed seconds and what followed them; with BENCH_STEPS=FILE it writes there each
step of its loop over 5 ms and each collection of the collector (wall and CPU ms, perf_counter
times), and the slow keys go to FILE.keys, timed on the same clock. With
BENCH_HOST_LOG=FILE the host's log (its processes' stderr, but for logins) is added to
FILE: which table was closed, by which process, and why; a failed session's line ends
with what its screen last drew.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh
import bench_store

from cantina.store.redis_store import RedisStore

P95_GOAL = 0.050
"""Keystroke -> frame p95 a held count must keep to, in seconds."""
STEPS = (16, 32, 48, 64, *range(72, 177, 8))
"""The session counts stepped through by default."""
MOST_SESSIONS = 1000
"""The most sessions a step may seat: one loopback address each (127.0.0.2 on), one table
each (the host is given `--max-tables` to match; the lobby's default is 64)."""

HOST = """
import asyncio, dataclasses, os, sys
from pathlib import Path
from cantina.ssh.limits import Limits, Startups
from cantina.ssh.serve import log_to_stderr, run_host
from cantina.ssh.server import HostOptions
from cantina.ssh.workers import serve_workers

n, port, key, store, workers = (
    int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], int(sys.argv[5])
)
# N players on N machines: each session comes from an address of its own (127.0.0.2 on),
# so each has its own share of the host's time, as a player at home has; only the host's
# totals are raised to let N in at once (and its tables: one a session, as --max-tables N)
limits = dataclasses.replace(
    Limits(), max_sessions=n + 8, max_connections=2 * n + 16,
    startups=Startups(n + 8, 30, 2 * n + 16),
)
options = HostOptions(
    port=port, host_key=key, open=True, limits=limits, max_tables=max(n + 8, 64),
    store=None if store == "memory" else store,
)
if os.environ.get("BENCH_GC"):  # the collector's thresholds, tried: "1000,5,100"
    import gc
    import cantina.ssh.serve
    def tune_collector():
        gc.collect()
        gc.freeze()
        gc.set_threshold(*(int(n) for n in os.environ["BENCH_GC"].split(",")))
    cantina.ssh.serve.tune_collector = tune_collector
if os.environ.get("BENCH_KEYS_FIRST") == "0":  # keys take their turn, as once they did
    import cantina.ssh.budget
    cantina.ssh.budget.KEYS_FIRST = False
if workers > 1:
    sys.exit(serve_workers(options, workers))
log_to_stderr()
if os.environ.get("BENCH_STEPS"):  # each long step of the loop, and each collection
    import gc, signal, time
    from asyncio import events
    steps, collections, started = [], [], {}
    run = events.Handle._run
    def what(handle):
        callback = handle._callback
        if getattr(callback, "__qualname__", "").startswith("WorkMeter"):
            callback = handle._args[1]  # the budget's meter runs the callback
        task = getattr(callback, "__self__", None)
        if isinstance(task, asyncio.Task):
            coro = task.get_coro()
            frame = getattr(coro, "cr_frame", None)
            timer = frame.f_locals.get("self") if frame is not None else None
            named = f" {getattr(timer, 'name', '')} {getattr(timer, '_callback', '')!r:.60}"
            named += f" {type(timer).__name__}"
            return f"task {getattr(coro, '__qualname__', coro)}{named}"
        return repr(callback)[:200]
    def timed(handle):
        start, cpu = time.perf_counter(), time.thread_time()
        run(handle)
        took = time.perf_counter() - start
        if took > 0.005:
            cpu = (time.thread_time() - cpu) * 1000
            steps.append((start, took, f"cpu {cpu:.1f} {what(handle)}"))
    events.Handle._run = timed
    def collected(phase, info):
        if phase == "start":
            started["n"] = started.get("n", 0) + 1
            if os.environ.get("BENCH_GC_TYPES") and started["n"] % 50 == 0:
                from collections import Counter
                young = gc.get_objects(generation=0)
                kinds, sizes = Counter(), Counter()
                for thing in young:
                    kind = type(thing).__module__ + "." + type(thing).__qualname__
                    kinds[kind] += 1
                    try:
                        sizes[kind] += len(thing)
                    except Exception:
                        pass
                collections.append((time.perf_counter(), 0.0, -1,
                    f"young {len(young)} {kinds.most_common(25)} sizes {sizes.most_common(12)}"))
            started["at"], started["cpu"] = time.perf_counter(), time.thread_time()
        else:
            collections.append((started["at"], time.perf_counter() - started["at"],
                                info["generation"],
                                f"{info['collected']} cpu "
                                f"{(time.thread_time() - started['cpu']) * 1000:.1f}"))
    gc.callbacks.append(collected)
    def write(*_):
        with open(os.environ["BENCH_STEPS"], "w") as out:
            for start, took, what in steps:
                print(f"step {start:.3f} {took * 1000:.1f} ms {what}", file=out)
            for start, took, generation, freed in collections:
                print(f"gc {start:.3f} {took * 1000:.1f} ms gen {generation} freed {freed}",
                      file=out)
        os._exit(0)
    signal.signal(signal.SIGTERM, write)
if os.environ.get("BENCH_PROFILE"):  # one process: its profile, written when it is stopped
    import cProfile, signal
    profiles = [cProfile.Profile()]
    def stop(*_):
        profiles[-1].disable()
        profiles[-1].dump_stats(os.environ["BENCH_PROFILE"])
        os._exit(0)
    def afresh(*_):  # a step's timing begins: its profile alone
        profiles[-1].disable()
        profiles.append(cProfile.Profile())
        profiles[-1].enable()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGUSR1, afresh)
    profiles[-1].enable()
asyncio.run(run_host(options))
"""


BEHIND = 10
"""The niceness the host's processes and Redis start with under `--clients first`: the
clients stand for players' own machines, so a client that waits for a core behind the
host's processes would add its wait to the host's figure (the clients' timestamps are
taken when their loop gets to them). At +10 the host runs whenever the clients are idle
and still pays for all the CPU they take."""


def behind(clients_first: bool) -> Callable[[], None] | None:
    """What a process the benchmark starts runs first: under `--clients first`, a
    lower priority than the clients'."""
    if not clients_first:
        return None

    def step_back() -> None:
        os.nice(BEHIND)

    return step_back


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Player(asyncssh.SSHClientSession):
    """One seated player: answers each call as it is asked, at most a key a second."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.arrived = asyncio.Event()
        self.waiting_since: float | None = None
        self.times: list[tuple[float, float]] = []
        """(when the key was sent, keystroke -> first output after it)."""
        self.games = 0
        self.overs: list[float] = []
        """When each game was seen over (BENCH_STEPS writes them beside the slow keys)."""

    def data_received(self, data: bytes, datatype: object) -> None:
        self.data.extend(data)
        if self.waiting_since is not None:
            now = time.perf_counter()
            self.times.append((self.waiting_since, now - self.waiting_since))
            self.waiting_since = None
        self.arrived.set()

    async def wait_for(self, words: tuple[bytes, ...], since: int, timeout: float) -> bytes:
        """The first of `words` drawn after `since` (searched in place, each byte about
        once: the clients share the machine with the host, so their work is kept small)."""
        deadline = time.perf_counter() + timeout
        start = since
        while True:
            places = {w: self.data.find(w, start) for w in words}
            found = [w for w, at in places.items() if at >= 0]
            if found:
                return min(found, key=places.__getitem__)
            start = max(since, len(self.data) - max(len(w) for w in words))
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"none of {words!r} arrived")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), min(left, 1.0))


@dataclass
class Seat:
    name: str
    conn: asyncssh.SSHClientConnection
    chan: asyncssh.SSHClientChannel
    player: Player
    task: asyncio.Task[None] | None = None
    failed: list[str] = field(default_factory=list)


def address(number: int) -> str:
    """Session `number`'s own loopback address (the host counts each address's sessions
    and time apart: one address for all would be one player with N sessions)."""
    return f"127.0.{2 + number // 250}.{2 + number % 250}"


async def seat(port: int, number: int) -> Seat:
    """A session logged in with a key of its own (so each is a player of its own)."""
    name = f"p{number}"
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        local_addr=(address(number), 0),
        username=name,
        client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
        known_hosts=None,
        agent_path=None,
        connect_timeout=60,
    )
    chan, player = await conn.create_session(
        Player, term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    await player.wait_for((b"shared tables",), 0, 60)
    return Seat(name, conn, chan, player)


async def set_a_table(s: Seat) -> None:
    """From the lobby: a new Val-Des table, set as offered, started at once."""
    for key, words in ((b"d", b"set the table"), (b"\x13", b"Press s to start")):
        mark = len(s.player.data)
        s.chan.write(key)
        await s.player.wait_for((words,), mark, 60)
        await asyncio.sleep(0.2)
    s.chan.write(b"s")


ARRIVALS = 4.0
"""Sessions a second that set their tables, at most, when a step's newcomers join (each
at a moment of its own, drawn over `len(newcomers) / ARRIVALS` seconds, 2 s at least: 16 s
for the first step's 64). Set at one instant, their games ended together too, again and
again: a game's end is a result screen and a new game, some 0.1 s of a host's work each,
and 64 of them within a few seconds were a burst that players arriving at their own
moments do not make (at 20 s a step, the step after the first often failed on it alone,
with a p95 of 57-222 ms)."""
READING = (0.5, 2.5)
"""Seconds a session looks at a game's result before it plays on (drawn each time): a
fixed pause kept the games that began together ending together."""


async def play(s: Seat, arrival: float) -> None:
    """Seated, answering each call as soon as it is asked (a key a second at most); the
    next game at the same table when one is over. Its table is set `arrival` seconds from
    now."""
    offer = b", call Val or Des"  # after the name, drawn apart; the one person is asked
    over = b"is over"
    await asyncio.sleep(arrival)
    mark = len(s.player.data)
    await set_a_table(s)
    last = 0.0
    while True:
        found = await s.player.wait_for((offer, over), mark, 120)
        if found == over:  # n plays on at the same table (from the result shown too)
            s.player.games += 1
            s.player.overs.append(time.perf_counter())
            await asyncio.sleep(random.uniform(*READING))
            mark = len(s.player.data)
            s.chan.write(b"n")
            continue
        await asyncio.sleep(max(0.0, last + 1.0 - time.perf_counter()))
        mark = len(s.player.data)
        last = time.perf_counter()
        s.player.waiting_since = last
        s.chan.write(b"1")


ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]")
"""A terminal's control sequences (cursor moves, colours): a failed session's last
frames, without them, say what it was shown."""


async def keep_playing(s: Seat, arrival: float) -> None:
    try:
        await play(s, arrival)
    except (TimeoutError, asyncssh.Error, OSError) as err:
        shown = ESCAPES.sub(b" ", bytes(s.player.data[-4000:]))  # what it failed on
        words = " ".join(shown.decode(errors="replace").split())[-300:]
        s.failed.append(f"{str(err) or type(err).__name__}; its screen last drew: {words}")


async def asked_once(seats: list[Seat], timeout: float) -> None:
    """Until each of `seats` has answered a call (its table set, started, the antes and
    the AIs before it played), or failed, or `timeout` has passed."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if all(s.player.times or s.failed for s in seats):
            return
        await asyncio.sleep(0.25)


@dataclass
class Step:
    sessions: int
    keys: int
    median: float
    p95: float
    worst: float
    host_cpu: float
    client_cpu: float
    redis_cpu: float
    failed: int
    games: int
    split: str = ""
    """Sessions each host process took (with several)."""
    disk_waits: int = 0
    """Times in the timed seconds Redis found its append-only file's fsync still under way
    2 s on (INFO's aof_delayed_fsync): the disk was slow then, and Redis's writes waited
    on it, whatever the host did."""
    steal: str = ""
    """The share of the machine's CPU the hypervisor took in the timed seconds: a step
    with some ran slower for it, whatever the host did (the run's one figure of steal,
    taken while Redis's cost was timed, said nothing of its steps)."""

    @property
    def held(self) -> bool:
        return self.keys > 0 and self.p95 <= P95_GOAL and not self.failed


class Redis:
    """A redis-server of the benchmark's own on 127.0.0.1."""

    def __init__(self, folder: Path, clients_first: bool = False) -> None:
        server = shutil.which("redis-server")
        if server is None:
            raise SystemExit("bench: redis-server is not installed")
        self.cli = shutil.which("redis-cli") or "redis-cli"
        self.port = free_port()
        self.process = subprocess.Popen(
            [server, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(folder),
             "--save", "", "--appendonly", "yes", "--appendfsync", "everysec"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=behind(clients_first),
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            time.sleep(0.05)
        raise SystemExit("bench: redis-server did not start")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def disk_waits(self) -> int:
        """Times so far its append-only file's fsync was still under way a write later
        (INFO persistence: aof_delayed_fsync), read with redis-cli, outside the host."""
        said = subprocess.run(
            [self.cli, "-p", str(self.port), "info", "persistence"],
            capture_output=True, text=True, timeout=10,
        ).stdout  # fmt: skip
        found = re.search(r"aof_delayed_fsync:(\d+)", said)
        return int(found.group(1)) if found else 0

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


LOGIN = re.compile(r"cantina(?:\[(\d+)\])?: login ")
"""A login in the host's log (with several workers, the pid of the one that took it)."""


class HostTree:
    """The host under test: one process, or a parent and its workers."""

    def __init__(self, most: int, key: Path, store: str, workers: int, clients_first: bool) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOST, str(most), str(self.port), str(key), store,
             str(workers)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=behind(clients_first),
        )  # fmt: skip
        self.logins: Counter[int] = Counter()
        """Logins so far, by the pid of the process that took them (its log says)."""
        threading.Thread(target=self.read_log, daemon=True).start()
        assert self.process.stdout is not None
        said = ""
        deadline = time.monotonic() + 120
        while "fingerprint" not in said:
            line = self.process.stdout.readline()
            if not line or time.monotonic() > deadline:
                raise SystemExit(f"bench: the host did not start: {said}")
            said += line
        found = re.search(r"pids ([\d, ]+)", said)
        self.pids = [self.process.pid]
        if found:
            self.pids += [int(pid) for pid in found.group(1).split(", ")]

    def read_log(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if found := LOGIN.search(line):
                self.logins[int(found.group(1) or self.process.pid)] += 1
            elif os.environ.get("BENCH_HOST_LOG"):
                with open(os.environ["BENCH_HOST_LOG"], "a") as out:
                    out.write(line)

    def split(self) -> str:
        """The sessions each process took, as 20/20 (sessions stay for the whole run)."""
        return "/".join(str(n) for n in sorted(self.logins.values(), reverse=True))

    def cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@dataclass
class RecordCost:
    """What Redis adds to each decision, and its parts."""

    times: list[float] = field(default_factory=list)
    """`Journal.record`, each decision's, sorted (seconds)."""
    server: float = 0.0
    """Redis's own work for each (its script, by INFO commandstats: microseconds)."""
    pings: list[float] = field(default_factory=list)
    """A PING's round trip on the same connection, as many, sorted (seconds): the least
    any call to Redis costs on this machine just then."""
    steal: str = ""
    """The share of the machine's CPU the hypervisor took meanwhile (bench_store.stolen)."""


async def record_times(url: str, tables: int = 40) -> RecordCost:
    """What Redis adds to each decision: `Journal.record` (the versioned append, one
    round trip), timed decision by decision as bench_store.py does, an AI's dice in each
    entry, its scripts loaded first as a host loads them (`ping`); the in-memory store
    records nothing. Beside it, Redis's own time for each, and PING's round trip."""
    store = RedisStore.from_url(url)
    ticks = bench_store.cpu_ticks()
    try:
        await store.ping()
        await store.client.config_resetstat()
        times = await bench_store.measure(store, tables, True)
        stats = await store.client.info("commandstats")
        scripts = stats.get("cmdstat_evalsha", {})
        pings = []
        for _ in times:
            start = time.perf_counter()
            await store.line.call("PING")  # the connection each decision went through
            pings.append(time.perf_counter() - start)
        server = scripts.get("usec", 0) / max(1, scripts.get("calls", 0))
        return RecordCost(times, server, sorted(pings), bench_store.stolen(ticks))
    finally:
        await store.close()


async def record_cost() -> RecordCost:
    """`record_times` first of all, on a redis-server of its own: not, as before, on the
    first Redis configuration's, after the memory host's sessions were closed, whose ends
    (their tasks and connections closing, in this process's loop) ran among the timed
    decisions. Nothing else runs then, in this process or the benchmark's others."""
    with tempfile.TemporaryDirectory() as folder:
        redis = Redis(Path(folder))
        try:
            return await record_times(redis.url)
        finally:
            redis.stop()


async def configuration(
    store: str,
    workers: int,
    counts: list[int],
    seconds: float,
    key: Path,
    until: float,
    clients_first: bool,
    settle: float = 0.0,
) -> list[Step]:
    """Step the sessions up on one fresh host until the p95 goal is missed (`settle`:
    seconds the newcomers play before a step is timed)."""
    steps: list[Step] = []
    with tempfile.TemporaryDirectory() as folder:
        redis = Redis(Path(folder), clients_first) if store == "redis" else None
        host = HostTree(max(counts), key, redis.url if redis else "memory", workers, clients_first)
        seats: list[Seat] = []
        try:
            for n in counts:
                if time.monotonic() > until:
                    print(f"  {n:>4} sessions: skipped (the run's --budget is spent)", flush=True)
                    break
                new = await asyncio.gather(
                    *(seat(host.port, i) for i in range(len(seats), n)), return_exceptions=True
                )
                joined = [s for s in new if isinstance(s, Seat)]
                spread = max(2.0, len(joined) / ARRIVALS)  # they come at their own moments
                for s in joined:
                    arrival = random.uniform(0.0, spread)
                    s.task = asyncio.create_task(keep_playing(s, arrival))
                seats += joined
                await asked_once(joined, 60)  # the new ones seated and playing
                await asyncio.sleep(settle)
                if os.environ.get("BENCH_PROFILE") and workers == 1:  # this step's alone
                    os.kill(host.process.pid, signal.SIGUSR1)
                start, cpu, own = time.perf_counter(), host.cpu(), time.process_time()
                kept = cpu_seconds(redis.process.pid) if redis else 0.0
                waits = redis.disk_waits() if redis else 0
                ticks = bench_store.cpu_ticks()
                await asyncio.sleep(seconds)
                steal = bench_store.stolen(ticks)
                end = time.perf_counter()
                cpu = (host.cpu() - cpu) / (end - start)
                own = (time.process_time() - own) / (end - start)
                kept = (cpu_seconds(redis.process.pid) - kept if redis else 0.0) / (end - start)
                waits = redis.disk_waits() - waits if redis else 0
                times = [t for s in seats for sent, t in s.player.times if start <= sent < end]
                failed = len(new) - len(joined) + sum(1 for s in seats if s.failed)
                step = Step(
                    sessions=n,
                    keys=len(times),
                    median=statistics.median(times) if times else float("nan"),
                    p95=pct(times, 0.95) if times else float("nan"),
                    worst=max(times) if times else float("nan"),
                    host_cpu=cpu,
                    client_cpu=own,
                    redis_cpu=kept,
                    failed=failed,
                    games=sum(s.player.games for s in seats),
                    split=host.split() if workers > 1 else "",
                    steal=steal,
                    disk_waits=waits,
                )
                steps.append(step)
                print(
                    f"  {n:>4} sessions: {step.keys:>5} keys, median {step.median * 1000:6.1f} ms, "
                    f"p95 {step.p95 * 1000:6.1f} ms, max {step.worst * 1000:5.0f} ms, "
                    f"CPU host {step.host_cpu:4.2f} clients {step.client_cpu:4.2f}"
                    f"{f' Redis {step.redis_cpu:4.2f}' if redis else ''}, {step.steal}, "
                    f"{f'Redis waited on the disk {waits} times, ' if waits else ''}"
                    f"{f'by worker {step.split}, ' if step.split else ''}"
                    f"{step.games} games over so far, "
                    f"{step.failed} sessions failed {'' if step.held else '<- over the goal'}",
                    flush=True,
                )
                for s in seats:
                    if s.failed:
                        print(f"        {s.name}: {s.failed[0]}", flush=True)
                        break
                if os.environ.get("BENCH_STEPS"):  # the slow keys, to set beside the host's
                    with open(os.environ["BENCH_STEPS"] + ".keys", "a") as out:
                        for s in seats:
                            for sent, t in s.player.times:
                                if start <= sent < end and t > P95_GOAL * 0.6:
                                    print(
                                        f"key {n} {s.name} {sent:.3f} {t * 1000:.1f} ms", file=out
                                    )
                            for at in s.player.overs:
                                if start <= at < end:
                                    print(f"over {n} {s.name} {at:.3f}", file=out)
                if not step.held:
                    break
        finally:
            for s in seats:
                if s.task is not None:
                    s.task.cancel()
                s.conn.close()
            host.stop()
            if redis is not None:
                redis.stop()
    return steps


async def run(stores: list[str], workers: list[int], counts: list[int], seconds: float,
              budget: float, clients_first: bool) -> None:  # fmt: skip
    results: dict[str, list[Step]] = {}
    costs = await record_cost() if "redis" in stores else RecordCost()
    plan = [
        (store, count) for store in stores for count in workers if count == 1 or store == "redis"
    ]  # workers share their tables through Redis only
    end = time.monotonic() + budget
    with tempfile.TemporaryDirectory() as folder:
        key = Path(folder) / "host_key"
        for done, (store, count) in enumerate(plan):
            name = f"{store} x{count}"
            until = time.monotonic() + (end - time.monotonic()) / (len(plan) - done)
            print(
                f"{name}: sessions stepped up {counts}, {seconds:g} s timed each, "
                + (f"the host and Redis at nice +{BEHIND}" if clients_first else "all at nice 0"),
                flush=True,
            )
            results[name] = await configuration(
                store, count, counts, seconds, key, until, clients_first
            )
    print()
    print(f"Most seated, playing sessions with keystroke -> frame p95 <= {P95_GOAL * 1000:.0f} ms")
    for name, steps in results.items():
        held = [s for s in steps if s.held]
        most = held[-1].sessions if held else 0
        cap = " (every step held: the most tried)" if steps and steps[-1].held else ""
        print(f"  {name:<10} {most:>4}{cap}")
    one, two = results.get("redis x1"), results.get("redis x2")
    if one and two:
        a = max([s.sessions for s in one if s.held], default=0)
        b = max([s.sessions for s in two if s.held], default=0)
        if a:
            print(f"  2 processes / 1 process (Redis): {b / a:.2f}x")
    if costs.times:
        times, pings = costs.times, costs.pings
        print(
            f"Redis adds to each decision (Journal.record, {len(times)} decisions, on a Redis of "
            f"its own before any host or session): p50 {bench_store.at(times, 0.5):.3f} ms, "
            f"p95 {bench_store.at(times, 0.95):.3f} ms, max {times[-1] * 1000:.3f} ms; "
            f"of it Redis's own work (its script) {costs.server / 1000:.3f} ms a decision; "
            f"a PING's round trip p50 {bench_store.at(pings, 0.5):.3f} ms, "
            f"p95 {bench_store.at(pings, 0.95):.3f} ms (any call's least, on this machine now); "
            f"{costs.steal} of the machine's time meanwhile"
        )
    memory, redis = results.get("memory x1"), results.get("redis x1")
    if memory and redis and memory[0].keys and redis[0].keys:
        print(
            f"Keystroke -> frame median at the first step: {redis[0].median * 1000:.1f} ms "
            f"with Redis, {memory[0].median * 1000:.1f} ms in memory (a difference within "
            "this noise says nothing of Redis's cost)"
        )


PAIR_SETTLE = 10.0
"""Seconds the sessions of a paired run play, all seated, before its timed seconds: they
arrive together (`ARRIVALS` a second), not step by step, so their first games end close
together."""


async def pairs(one: int, two: int, rounds: int, seconds: float, clients_first: bool) -> None:
    """`--pair N,M`: one process with Redis at N sessions and two at M, in turn, `rounds`
    times, each a fresh host and Redis, `seconds` timed once all are seated.

    The stepped runs find each configuration's most, but on a machine shared with other
    work, runs some ten minutes apart can see different machines (a pair's ratio came out
    1.42 and 2.40 in one afternoon): alternating, every run of one configuration has one of
    the other beside it, within a few minutes, and the order flips each round (ABBA) so a
    machine growing slower or faster does not favour either. With M = 1.7 x N or more, two
    processes meet the goal when they hold M in the rounds where one process holds N."""
    plan = [(1, one), (2, two)]
    ran: dict[int, list[Step]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as folder:
        key = Path(folder) / "host_key"
        for number in range(rounds):
            for workers, count in plan if number % 2 == 0 else plan[::-1]:
                print(
                    f"round {number + 1}, redis x{workers}, {count} sessions "
                    f"({time.strftime('%H:%M:%S')}):",
                    flush=True,
                )
                steps = await configuration(
                    "redis", workers, [count], seconds, key, math.inf, clients_first,
                    PAIR_SETTLE,
                )  # fmt: skip
                nothing = Step(count, 0, *(float("nan"),) * 6, failed=count, games=0)
                ran[workers].append(steps[0] if steps else nothing)
    print()
    print(
        f"Paired: {rounds} rounds, {seconds:g} s timed each, keystroke -> frame p95 goal "
        f"{P95_GOAL * 1000:.0f} ms; two processes at {two / one:.2f}x the sessions of one"
    )
    for workers, count in plan:
        steps = ran[workers]
        p95s = " ".join(f"{s.p95 * 1000:.1f}" for s in steps)
        print(
            f"  redis x{workers} at {count:>4}: held in {sum(s.held for s in steps)} of "
            f"{len(steps)} rounds; p95 by round {p95s} ms, median "
            f"{statistics.median(s.p95 for s in steps) * 1000:.1f} ms"
        )
    both = sum(a.held and b.held for a, b in zip(ran[1], ran[2], strict=True))
    only_one = sum(a.held and not b.held for a, b in zip(ran[1], ran[2], strict=True))
    print(f"  rounds where both held: {both}; where one process held and two did not: {only_one}")


def wanted(argv: list[str]) -> bool:
    """Whether bench_ssh.py's arguments ask for this load."""
    return any(arg.split("=")[0] in ("--playing", "--store", "--workers", "--pair") for arg in argv)


def main(argv: list[str]) -> None:
    """`bench_ssh.py --playing` (or --store/--workers): each configuration asked for."""
    parser = argparse.ArgumentParser(prog="bench_ssh.py --playing", description=__doc__)
    parser.add_argument("--playing", action="store_true")
    parser.add_argument("--store", default="memory,redis", help="memory, redis or both")
    parser.add_argument("--workers", default="1,2", help="host processes: 1, 2 or 1,2")
    parser.add_argument("--sessions", default=",".join(map(str, STEPS)))
    parser.add_argument("--seconds", type=float, default=15.0, help="timed at each step")
    parser.add_argument("--budget", type=float, default=1500.0, help="seconds for the run")
    parser.add_argument(
        "--clients",
        choices=("first", "equal"),
        default="first",
        help=f"first: the host and Redis run at nice +{BEHIND}, behind the clients (default); "
        "equal: all at one priority, as before",
    )
    parser.add_argument(
        "--pair",
        metavar="N,M",
        help="instead of stepping: one process with Redis at N sessions and two at M, in "
        "turn, --rounds times (see `pairs`); M defaults to 1.7 x N, rounded up to 8",
    )
    parser.add_argument("--rounds", type=int, default=3, help="with --pair")
    args = parser.parse_args(argv)
    # the host's preferences its own, as they start (dice animation at normal speed)
    os.environ.setdefault("CANTINA_CONFIG_DIR", tempfile.mkdtemp())
    random.seed(1)
    if args.pair:
        one, _, two = args.pair.partition(",")
        n = int(one)
        m = int(two) if two else math.ceil(n * 1.7 / 8) * 8
        if max(n, m) > MOST_SESSIONS or min(n, m, args.rounds) < 1:
            parser.error(f"--pair: 1 to {MOST_SESSIONS} sessions each, and a round or more")
        asyncio.run(pairs(n, m, args.rounds, args.seconds, args.clients == "first"))
        return
    stores = args.store.split(",")
    workers = [int(w) for w in args.workers.split(",")]
    counts = [int(n) for n in args.sessions.split(",")]
    if max(counts) > MOST_SESSIONS:
        parser.error(f"at most {MOST_SESSIONS} sessions (an address and a table each)")
    asyncio.run(run(stores, workers, counts, args.seconds, args.budget, args.clients == "first"))
