"""`cantina serve --workers N`: N host processes on one machine, one listening port.

One process runs one event loop, so one host uses one core. Here the parent loads the
host key once (so clients see one host whichever worker answers), imports what every
session needs, then forks N workers; each listens on the same port with SO_REUSEPORT and
the kernel shares the connections out among them. The workers share the lobby and the
tables through the Redis store, which is why it is required. The parent only supervises:
Ctrl-C or SIGTERM stops every worker cleanly (each closes its sessions and tables), and
a worker that dies is reported in one log line and started again.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import FrameType

import asyncssh

from cantina.ssh.keys import host_key_path, load_or_create_host_key, read_authorized_keys
from cantina.ssh.serve import (
    admits_somebody,
    banner,
    log_to_stderr,
    reported,
    run_host,
    settings_line,
    tune_collector,
    warm_up,
)
from cantina.ssh.server import Host, HostOptions

log = logging.getLogger("cantina.ssh")

READY_TIMEOUT = 120.0
"""Seconds a worker may take to start listening (taking up the tables kept in Redis)."""
STOP_TIMEOUT = 10.0
"""Seconds the workers have to close their sessions after SIGTERM, before SIGKILL."""
PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal a process gets when its parent dies."""
RESTART_DELAY = 5.0
"""A worker that died within this many seconds of starting waits this long before it is
started again, so one that dies at once does not spin."""


class Stopped(Exception):
    """SIGTERM to the parent: stop every worker, as Ctrl-C does."""


@dataclass
class Worker:
    number: int
    process: BaseProcess
    ready: Connection
    started: float
    kept: int | None = None
    """Tables taken up from the store, once the worker listens (None before)."""


def worker_main(options: HostOptions, key: asyncssh.SSHKey, ready: Connection, parent: int) -> None:
    """One worker: host until SIGTERM, then close every session and table. Ctrl-C at the
    terminal reaches the whole process group; the parent turns it into SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    end_with(parent)

    def listening(host: Host) -> None:
        ready.send(len(host.lobby.tables) if host.lobby is not None else 0)

    async def main() -> None:
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await run_host(options, listening, key=key, announce=False)

    sys.exit(reported(lambda: asyncio.run(main()), options))


def end_with(parent: int) -> None:
    """SIGTERM to this worker when its parent dies, even by kill -9 (Linux's
    PR_SET_PDEATHSIG): a worker left behind would go on taking a share of the port's
    connections, unsupervised, beside the workers of a new `cantina serve`."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # it died before that was set
        os._exit(1)


def exit_words(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def check_port_free(host: str, port: int) -> None:
    """The port is not another host's: the workers listen with SO_REUSEPORT, which would
    let them share it, silently, with the workers of another `cantina serve`."""
    for family, kind, proto, _, address in socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    ):
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(address)
            except OSError as err:
                raise OSError(f"--port {port} on {host}: {err.strerror}") from None


def reserve_port(host: str) -> socket.socket:
    """For --port 0: a port picked once for every worker, held (bound, not listening, so
    it takes no connections) until the workers stop."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    return sock


class Supervisor:
    """The parent: starts the workers, waits on them, starts again one that dies."""

    def __init__(self, options: HostOptions, key: asyncssh.SSHKey, count: int) -> None:
        self.options = options
        self.key = key
        self.count = count
        self.context = multiprocessing.get_context("fork")
        self.workers: dict[int, Worker] = {}
        self.due: dict[int, float] = {}
        """Workers to start again, by number: when."""

    def start(self, number: int) -> Worker:
        theirs, ours = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=worker_main,
            args=(self.options, self.key, ours, os.getpid()),
            name=f"cantina worker {number}",
            daemon=False,
        )
        process.start()
        ours.close()
        worker = Worker(number, process, theirs, time.monotonic())
        self.workers[number] = worker
        return worker

    def wait_ready(self, worker: Worker) -> bool:
        """Whether the worker came to listen (False: it ended first, having said why)."""
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            ready = multiprocessing.connection.wait(
                [worker.ready, worker.process.sentinel], timeout=deadline - time.monotonic()
            )
            if worker.ready in ready:
                with contextlib.suppress(EOFError):
                    worker.kept = int(worker.ready.recv())
                    return True
            if worker.process.sentinel in ready:
                worker.process.join()
                return False
        print(
            f"cantina: worker {worker.number} did not start listening in {READY_TIMEOUT:g} s",
            file=sys.stderr,
        )
        return False

    def supervise(self) -> None:
        """Until Ctrl-C or SIGTERM: a worker that ends is logged and started again."""
        while True:
            now = time.monotonic()
            for number, when in list(self.due.items()):
                if when <= now:
                    del self.due[number]
                    self.start(number)
            waits: list[Connection | int] = []
            for worker in self.workers.values():
                waits.append(worker.process.sentinel)
                if worker.kept is None:  # started again, not listening yet
                    waits.append(worker.ready)
            timeout = min(self.due.values(), default=now + 60) - now
            for ended in multiprocessing.connection.wait(waits, timeout=max(0, timeout)):
                for worker in list(self.workers.values()):
                    if ended is worker.ready and worker.kept is None:
                        self.listening(worker)
                    if ended is worker.process.sentinel:
                        self.ended(worker)

    def listening(self, worker: Worker) -> None:
        try:
            worker.kept = int(worker.ready.recv())
        except (EOFError, OSError):
            return  # it ended: its sentinel says so
        log.info("worker %d (pid %d) listening", worker.number, worker.process.pid)

    def ended(self, worker: Worker) -> None:
        worker.process.join()
        worker.ready.close()
        del self.workers[worker.number]
        lived = time.monotonic() - worker.started
        delay = RESTART_DELAY if lived < RESTART_DELAY else 0.0
        log.info(
            "worker %d (pid %d) ended after %.0f s: %s; starting another%s",
            worker.number,
            worker.process.pid,
            lived,
            exit_words(worker.process.exitcode),
            f" in {delay:g} s" if delay else "",
        )
        self.due[worker.number] = time.monotonic() + delay

    def stop(self) -> None:
        """SIGTERM to every worker; SIGKILL to any still there after STOP_TIMEOUT."""
        self.due.clear()
        for worker in self.workers.values():
            if worker.process.pid is not None and worker.process.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for worker in self.workers.values():
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.exitcode is None:
                worker.process.kill()
                worker.process.join()
        self.workers.clear()


def raise_stopped(signum: int, frame: FrameType | None) -> None:
    raise Stopped


def serve_workers(options: HostOptions, count: int) -> int:
    """`cantina serve --workers N` (N > 1, with a Redis store): start, supervise, stop."""
    if not admits_somebody(options):
        return 2
    log_to_stderr(pids=True)
    reservation: socket.socket | None = None
    supervisor: Supervisor | None = None
    previous = signal.signal(signal.SIGTERM, raise_stopped)

    def begin() -> None:
        nonlocal reservation, supervisor
        key_path = host_key_path(options.host_key)
        key = load_or_create_host_key(key_path)
        read_authorized_keys(options.authorized_keys)  # a bad file: one line, before forking
        shared = replace(options, reuse_port=True)
        if options.port == 0:
            reservation = reserve_port(options.host)
            shared.port = reservation.getsockname()[1]
        else:
            check_port_free(options.host, options.port)
        warm_up()  # imported once, shared by every worker's memory
        tune_collector()
        supervisor = Supervisor(shared, key, count)
        first = supervisor.start(1)  # alone first: a Redis not there is said once
        if not supervisor.wait_ready(first):
            raise SystemExit(1)
        for number in range(2, count + 1):
            if not supervisor.wait_ready(supervisor.start(number)):
                raise SystemExit(1)
        pids = ", ".join(str(w.process.pid) for w in supervisor.workers.values())
        lines = banner(
            shared,
            shared.port,
            key_path,
            key,
            first.kept or 0,
            f" with {count} workers (pids {pids})",
        )
        limits = settings_line(shared)
        for line in lines:
            each = " (each worker's)" if line == limits else ""
            print(f"cantina: {line}{each}", flush=True)
        supervisor.supervise()

    try:
        return reported(begin, options)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1
    except Stopped:
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        with contextlib.suppress(KeyboardInterrupt, Stopped):
            if supervisor is not None:
                supervisor.stop()
        if reservation is not None:
            reservation.close()
        gc.unfreeze()
