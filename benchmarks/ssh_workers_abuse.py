"""One abusive session among workers: does it slow only the sessions of its own process?

`cantina serve --store redis://... --workers N` (N >= 2, default limits, a fresh
redis-server of its own on 127.0.0.1), and honest sessions from 127.0.0.1 spread evenly
over the workers (--per-worker each, 4 by default), each typing a key a second into the
lobby's join-code field, timed to the first output after it (bench_ssh.py --abuse's
typist: a key unanswered in 5 s counts as 5 s). First a quiet baseline; then a control,
no attack but a process spinning --control of a core (0.8 by default, about what the
resize storm's attacker and its worker take together: what competing for the cores does
by itself); then each attack in turn (bench_ssh.py's own attack code, in a process of
its own, from an address of its own, 127.0.0.10 on), for --phase seconds each, every
attacking session on worker 1 (the abuser's). BENCH_LOG=1 prints the workers' log
lines of each phase.

Which worker holds a connection is read from the host's side, without changing the host:
the client opens the TCP connection itself, and its local port is looked up in
/proc/net/tcp (the host's end of it: its socket inode), and the inode among the workers'
/proc/PID/fd. A connection that landed on another worker is closed before its SSH
handshake, once one has landed on the wanted worker (the parent hands each connection to
the worker with the fewest, so those held make it the one with the fewest), so no other
worker ever serves an attacking session (each such socket is one line in that worker's
log, `disconnect 127.0.0.12 (not logged in) after ...`); a session the host ends comes
back to worker 1 the same way. Attacks: b (Tab at 500 B/s), c (`v`/Esc), d (8 resize
storms), e (bad escapes), f (table hog), g (table hog, 2 sessions); not a (its idle
sockets are plain TCP, spread over every worker).

For each phase and each worker: its honest keys' median, p95 and max, the p95's ratio to
the same worker's baseline, the worker's CPU (seconds a second) and its log lines. The
goal: every other worker's p95 within 2x its baseline and no key of theirs over 1 s. The
clients, the attacker and the workers share the machine: on 2 cores a busy abuser's worker
takes processor time from everyone, so the other workers' figures carry that too.

    .venv/bin/python benchmarks/bench_ssh.py --abuse --workers 2 [--phase 15]
        [--attacks bcd] [--per-worker 4] [--control 0.8]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import asyncssh
import bench_ssh
import ssh_playing

HOST = """
import sys
from pathlib import Path
from cantina.ssh.server import HostOptions
from cantina.ssh.workers import serve_workers

port, key, store, workers = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
sys.exit(serve_workers(HostOptions(port=port, host_key=key, open=True, store=store), workers))
"""

SPIN = """
import sys, time
phase, share = float(sys.argv[1]), float(sys.argv[2])
print(0, flush=True)
sys.stdin.readline()
end = time.perf_counter() + phase
while time.perf_counter() < end:
    started = time.perf_counter()
    while time.perf_counter() - started < 0.01 * share:
        pass
    time.sleep(0.01 * (1 - share))
print(f"spinning {time.process_time() / phase:.2f} s a second, no connection", flush=True)
"""

PINNABLE = "bcdefg"
"""The attacks whose sessions can be kept on one worker (a's sockets are plain TCP)."""
Link = tuple[bench_ssh.Screen, asyncssh.SSHClientConnection, asyncssh.SSHClientChannel]


@dataclass
class Workers:
    """The workers' port and process ids: which of them holds a connection."""

    port: int
    pids: list[int]

    def host_end(self, client_port: int) -> int | None:
        """The socket inode of the host's end of the connection from `client_port`."""
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with contextlib.suppress(FileNotFoundError):
                for line in Path(table).read_text().splitlines()[1:]:
                    fields = line.split()
                    local, remote = fields[1], fields[2]
                    if (
                        int(local.rsplit(":", 1)[1], 16) == self.port
                        and int(remote.rsplit(":", 1)[1], 16) == client_port
                    ):
                        return int(fields[9])
        return None

    async def holder(self, client_port: int, timeout: float = 5.0) -> int | None:
        """The pid of the worker that accepted the connection from `client_port` (None if
        none has, in `timeout`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            inode = self.host_end(client_port)
            if inode:
                wanted = f"socket:[{inode}]"
                for pid in self.pids:
                    with contextlib.suppress(OSError):
                        for fd in os.listdir(f"/proc/{pid}/fd"):
                            with contextlib.suppress(OSError):
                                if os.readlink(f"/proc/{pid}/fd/{fd}") == wanted:
                                    return pid
            await asyncio.sleep(0.02)
        return None

    async def connect(
        self, worker: int, key: asyncssh.SSHKey, name: str, address: str, size=(80, 24)
    ) -> Link:
        """A session on `worker`, from `address`, in the lobby: connections that land on
        another worker are closed before their handshake and tried again."""
        loop = asyncio.get_running_loop()
        # connections that landed on another worker, held open until one lands on
        # `worker`: the parent hands each to the worker with the fewest, so holding them
        # makes `worker` the one with the fewest
        elsewhere: list[socket.socket] = []
        try:
            return await self._connect(loop, worker, key, name, address, size, elsewhere)
        finally:
            for sock in elsewhere:
                sock.close()

    async def _connect(
        self,
        loop: asyncio.AbstractEventLoop,
        worker: int,
        key: asyncssh.SSHKey,
        name: str,
        address: str,
        size: tuple[int, int],
        elsewhere: list[socket.socket],
    ) -> Link:
        for _ in range(64):
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.bind((address, 0))
                await loop.sock_connect(sock, ("127.0.0.1", self.port))
                if await self.holder(sock.getsockname()[1]) != worker:
                    elsewhere.append(sock)
                    continue
            except OSError:
                sock.close()
                await asyncio.sleep(0.2)
                continue
            conn = await asyncssh.connect(
                "127.0.0.1",
                self.port,
                sock=sock,
                username=name,
                client_keys=[key],
                known_hosts=None,
                agent_path=None,
                connect_timeout=30,
            )
            chan, screen = await conn.create_session(
                bench_ssh.Screen, term_type="xterm-256color", term_size=size, encoding=None
            )
            await screen.wait_for(b"shared tables", 30)
            return screen, conn, chan
        raise OSError(f"no connection from {address} landed on worker pid {worker}")


class HostWorkers:
    """`cantina serve --store ... --workers N`'s code, its log (every worker's lines,
    `cantina[PID]: ...`) in `log`."""

    def __init__(self, key: Path, store: str, count: int, log: IO[str]) -> None:
        port = ssh_playing.free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOST, str(port), str(key), store, str(count)],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        said = ""
        deadline = time.monotonic() + 120
        while "fingerprint" not in said:
            line = self.process.stdout.readline()
            if not line or time.monotonic() > deadline:
                self.stop()
                raise SystemExit(f"bench: the host did not start: {said.strip()}")
            said += line
        found = re.search(r"pids ([\d, ]+)", said)
        if found is None:
            self.stop()
            raise SystemExit(f"bench: the host named no workers: {said.strip()}")
        self.workers = Workers(port, [int(pid) for pid in found.group(1).split(", ")])

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


async def attacker(letter: str, workers: Workers, target: int, phase: float) -> None:
    """One attack, from a process of its own, every session of it on worker `target`: as
    bench_ssh.attack_worker (its sessions connected, it says how many, waits for a line on
    stdin, attacks for the phase, prints its notes)."""
    key = asyncssh.generate_private_key("ssh-ed25519")

    async def pinned(port: int, key: asyncssh.SSHKey, name: str, address: str, size=(80, 24)):
        return await workers.connect(target, key, name, address, size)

    bench_ssh.connect_as = pinned  # the attacks' own reconnects: to the same worker
    ready = next(n for name, n in bench_ssh.ATTACKS.items() if name.startswith(f"{letter}."))
    source = bench_ssh.attacker_of(letter)
    links = [await workers.connect(target, key, f"attacker{i}", source) for i in range(ready)]
    print(len(links), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    notes: list[str] = []
    spent = time.process_time()
    if letter in "bce":
        kind = {"b": "tab", "c": "vesc", "e": "bad"}[letter]
        await bench_ssh.attack_keys(workers.port, key, phase, notes, kind, links, source)
    elif letter == "d":
        await bench_ssh.attack_resize(workers.port, key, phase, notes, links, source)
    elif letter == "f":
        await bench_ssh.attack_tables(workers.port, key, phase, notes, source)
    else:
        await bench_ssh.attack_tables(workers.port, key, phase, notes, source, 2, links)
    notes.append(f"attacker's CPU {(time.process_time() - spent) / phase:.2f} s a second")
    print("\n".join(notes), flush=True)


def cpu(pids: list[int]) -> dict[int, float]:
    return {pid: ssh_playing.cpu_seconds(pid) for pid in pids}


async def phases(
    host: HostWorkers, log: IO[str], phase: float, which: str, per: int, share: float
) -> None:
    workers = host.workers
    abused = workers.pids[0]
    key = asyncssh.generate_private_key("ssh-ed25519")
    honest: dict[int, list[Link]] = {pid: [] for pid in workers.pids}
    for number, pid in enumerate(workers.pids, 1):
        for i in range(per):
            link = await workers.connect(pid, key, f"honest{number}x{i}", bench_ssh.HONEST)
            honest[pid].append(link)
    for links in honest.values():
        for _, _, chan in links:
            chan.write(b"j")  # to the join-code field (a focus change: not timed)
    await asyncio.sleep(2)
    names = {pid: f"{n} (pid {pid})" for n, pid in enumerate(workers.pids, 1)}
    names[abused] += " abuser's"
    print(
        f"{len(workers.pids)} workers, {per} honest sessions on each; every attacking "
        f"session on worker 1 (pid {abused})",
        flush=True,
    )
    print(
        f"{'phase':<20} {'worker':<24} {'keys':>5} {'median':>8} {'p95':>8} {'max':>7} "
        f"{'p95/base':>9} {'CPU':>5} {'log':>4}",
        flush=True,
    )
    base: dict[int, float] = {}
    control = f"control: {share:g} core" if share else ""
    attacks = [
        n for n in bench_ssh.ATTACKS if n != "baseline" and n[0] in which and n[0] in PINNABLE
    ]
    for name in ["baseline", *([control] if control else []), *attacks]:
        process = None
        if name == control:  # no attack: a process taking as much processor time
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                SPIN,
                str(phase),
                str(share),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            assert process.stdout is not None
            await process.stdout.readline()
        elif name != "baseline":
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                __file__,
                "--attacker",
                name[0],
                "--port",
                str(workers.port),
                "--pids",
                ",".join(map(str, workers.pids)),
                "--phase",
                str(phase),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            assert process.stdout is not None
            if int(await process.stdout.readline() or 0):  # its sessions, once connected
                await asyncio.sleep(2)
        echoes: dict[int, list[float]] = {pid: [] for pid in workers.pids}
        typing = [
            bench_ssh.honest_typist(screen, chan, phase, echoes[pid])
            for pid, links in honest.items()
            for screen, _, chan in links
        ]
        log_at = log.seek(0, 2)
        before, started = cpu(workers.pids), time.perf_counter()
        busy, own = bench_ssh.machine_busy(), time.process_time()
        notes: list[str] = []
        if process is None:
            await asyncio.gather(*typing)
        else:
            assert process.stdout is not None and process.stdin is not None
            process.stdin.write(b"go\n")
            said, *_ = await asyncio.gather(process.stdout.read(), *typing)
            await process.wait()
            notes = said.decode().splitlines()
        took = time.perf_counter() - started
        after = cpu(workers.pids)
        notes.append(
            f"honest clients' CPU {(time.process_time() - own) / took:.2f} s a second; "
            f"the machine's {(bench_ssh.machine_busy() - busy) / took:.2f} of "
            f"{os.cpu_count()} cores busy"
        )
        log.seek(log_at)
        logged = log.read().splitlines()
        if os.environ.get("BENCH_LOG"):  # the workers' lines of the phase, as they are
            notes += logged
        met = True
        for number, pid in enumerate(workers.pids):
            times = echoes[pid]
            p95, top = bench_ssh.pct(times, 0.95), max(times)
            base.setdefault(pid, p95)
            if pid != abused:
                met = met and p95 <= 2 * base[pid] and top <= 1.0
            lines = sum(1 for line in logged if f"cantina[{pid}]" in line)
            print(
                f"{name if number == 0 else '':<20} {names[pid]:<24} {len(times):>5} "
                f"{statistics.median(times) * 1000:>6.1f}ms {p95 * 1000:>6.1f}ms "
                f"{top * 1000:>5.0f}ms {p95 / base[pid]:>8.1f}x "
                f"{(after[pid] - before[pid]) / took:>5.2f} {lines:>4}",
                flush=True,
            )
        if process is not None:
            verdict = "yes" if met else "NO"
            print(f"{'':<20} other workers within 2x, no key over 1 s: {verdict}", flush=True)
        for note in notes:
            print(f"{'':<20} {note}", flush=True)
        await asyncio.sleep(3)  # what the attack left behind settles
    for links in honest.values():
        for _, conn, _ in links:
            conn.close()


async def run(count: int, phase: float, which: str, per: int, share: float) -> None:
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryFile("w+") as log:
        redis = ssh_playing.Redis(Path(folder))
        try:
            host = HostWorkers(Path(folder) / "host_key", redis.url, count, log)
            try:
                await phases(host, log, phase, which, per, share)
            finally:
                host.stop()
        finally:
            redis.stop()


def main(argv: list[str]) -> None:
    """`bench_ssh.py --abuse --workers N`, and its attacker processes."""
    parser = argparse.ArgumentParser(prog="bench_ssh.py --abuse --workers N", description=__doc__)
    parser.add_argument("--abuse", action="store_true")
    parser.add_argument("--workers", type=int, default=2, help="host processes (2 or more)")
    parser.add_argument("--phase", type=float, default=15.0, help="seconds of each attack")
    parser.add_argument("--attacks", default="bcd", help=f"which attacks, of {PINNABLE}")
    parser.add_argument("--per-worker", type=int, default=4, help="honest sessions on each")
    parser.add_argument(
        "--control",
        type=float,
        default=0.8,
        help="share of a core a process spins for a phase with no attack (0: no such phase)",
    )
    parser.add_argument("--attacker", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--pids", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.attacker:
        pids = [int(pid) for pid in args.pids.split(",")]
        asyncio.run(attacker(args.attacker, Workers(args.port, pids), pids[0], args.phase))
        return
    if args.workers < 2:
        parser.error("--workers: 2 or more (one abuser's worker and at least one other)")
    if not set(args.attacks) <= set(PINNABLE):
        parser.error(f"--attacks: letters of {PINNABLE} (a's idle sockets cannot be pinned)")
    if not 0 <= args.control <= 1:
        parser.error("--control: a share of one core, 0 to 1")
    if not 1 <= args.per_worker <= 6:
        parser.error("--per-worker: 1 to 6 (a worker admits 8 sessions from one address)")
    os.environ.setdefault("CANTINA_CONFIG_DIR", tempfile.mkdtemp())
    asyncio.run(run(args.workers, args.phase, args.attacks, args.per_worker, args.control))


if __name__ == "__main__":
    main(sys.argv[1:])
