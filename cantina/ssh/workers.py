"""`cantina serve --workers N`: N host processes on one machine, one listening port.

One process runs one event loop, so one host uses one core. Here the parent loads the
host key once (so clients see one host whichever worker answers), imports what every
session needs, opens the port, then forks N workers. The parent accepts each connection
and hands it (its file descriptor, over a Unix socket pair) to the worker with the
fewest live connections, which serves it as its own (`Host.adopt`): the sessions are
shared out evenly. The kernel's SO_REUSEPORT hash split 40 logins from 40 addresses
anywhere from 20/21 to 12/29, and one listening socket shared by the workers went to
whichever was idle first (16/0); a worker that has not taken a connection handed to it
in STUCK seconds (stopped, or stalled) is given no more until it takes it. The workers
share the lobby and the tables through the Redis store, which is why it is required.

The limits are the whole host's, as with one process (`--per-address 8` is 8 sessions
from one address, whichever workers they land on): the parent, which sees every
connection, holds the counts (`Ledger`), and the addresses held for their sessions'
abuse (each strike told by the worker that saw it: an address held is held on every
worker). It refuses a connection as it accepts it when the host would (its address
starting sessions too fast, or held, too many connections logging in: the early drop),
by handing it with its refusal to a worker that tells the client in one line, as the
host does, and spends no key exchange on it; and a worker asks it, over their socket
pair, before a logged-in connection or a new session counts (the answer is a turn of
the parent's loop away), and tells it when a session or a connection ends. A worker
that dies takes its counts with it (not the strikes: those are the parent's). What the
two say is in handoff.py (with the worker's side of it), the parent's counts in
ledger.py.
The parent also supervises: Ctrl-C or SIGTERM stops every worker cleanly (each closes
its sessions and tables), and a worker that dies is reported in one log line and started
again (meanwhile the others take every connection).
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
from collections import deque
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import FrameType

import asyncssh

from cantina.ssh.handoff import (
    ANSWER,
    ENDED,
    FINISHED,
    HAND,
    LOGIN,
    PACKET,
    SESSION,
    STRUCK,
    TAKEN,
    strike_why,
    take_handed,
)
from cantina.ssh.keys import host_key_path, load_or_create_host_key, read_authorized_keys
from cantina.ssh.ledger import Ledger
from cantina.ssh.limits import ADDRESS_LOGGING_IN, holding_line
from cantina.ssh.serve import (
    admits_somebody,
    banner,
    log_to_stderr,
    reported,
    run_host,
    settings_line,
    tune_collector,
    until_terminated,
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
STUCK = 0.5
"""Seconds a worker may leave a connection handed to it untaken before it is given no
more (until it takes it): a worker stopped (SIGSTOP) or stalled would hold new players'
connections unanswered. A busy worker takes one within a turn of its loop."""
BACKLOG = 128
"""Connections the kernel holds for the parent to accept."""
ACCEPTS = 64
"""Connections accepted at most in one go before the workers' news is read again."""
ACCEPT_PAUSE = 0.1
"""Seconds the parent waits after an accept failed (out of file descriptors, say)."""
FORGET_EVERY = 10.0
"""Seconds between the parent's sweeps of addresses whose session budget is full."""


class Stopped(Exception):
    """SIGTERM to the parent: stop every worker, as Ctrl-C does."""


@dataclass
class Worker:
    number: int
    process: BaseProcess
    ready: Connection
    hand: socket.socket
    """The parent's end of the Unix socket pair over which connections are handed."""
    started: float
    kept: int | None = None
    """Tables taken up from the store, once the worker listens (None before)."""
    live: int = 0
    """Connections handed to it that have not ended."""
    untaken: deque[float] = field(default_factory=deque)
    """When each connection handed to it and not yet taken was handed, oldest first."""

    def stuck(self, now: float) -> bool:
        return bool(self.untaken) and now - self.untaken[0] > STUCK


def worker_main(
    options: HostOptions,
    key: asyncssh.SSHKey,
    ready: Connection,
    parent: int,
    hand: socket.socket,
    inherited: list[socket.socket],
) -> None:
    """One worker: host the connections handed to it until SIGTERM, then close every
    session and table. Ctrl-C at the terminal reaches the whole process group; the parent
    turns it into SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    end_with(parent)
    for sock in inherited:  # the parent's: the port, and the other workers' pairs
        sock.close()

    def listening(host: Host) -> None:
        ready.send(len(host.lobby.tables) if host.lobby is not None else 0)
        take_handed(host, hand)

    hosting = run_host(options, listening, key=key, announce=False)
    sys.exit(reported(lambda: asyncio.run(until_terminated(hosting)), options))


def end_with(parent: int) -> None:
    """SIGTERM to this worker when its parent dies, even by kill -9 (Linux's
    PR_SET_PDEATHSIG): a worker left behind would go on serving its connections,
    unsupervised, beside the workers of a new `cantina serve`."""
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


def listen(host: str, port: int) -> list[socket.socket]:
    """The port, opened by the parent on each address `host` names (port 0: one free
    port, the same on each); a port in use is refused in one line (OSError)."""
    socks: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        ):
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if port == 0 and len(socks) > 1:
                address = (address[0], socks[0].getsockname()[1], *address[2:])
            try:
                sock.bind(address)
            except OSError as err:
                raise OSError(f"--port {port} on {host}: {err.strerror}") from None
            sock.listen(BACKLOG)
            sock.setblocking(False)
    except BaseException:
        for sock in socks:
            sock.close()
        raise
    return socks


class Supervisor:
    """The parent: starts the workers, hands each connection to one, waits on them,
    starts again one that dies."""

    def __init__(
        self,
        options: HostOptions,
        key: asyncssh.SSHKey,
        count: int,
        listeners: list[socket.socket] | None = None,
    ) -> None:
        self.options = options
        self.key = key
        self.count = count
        self.listeners = listeners or []
        self.context = multiprocessing.get_context("fork")
        self.workers: dict[int, Worker] = {}
        self.due: dict[int, float] = {}
        """Workers to start again, by number: when."""
        self.ledger = Ledger(options.limits)
        """What the limits are held to, over every worker."""
        self.forgot = time.monotonic()

    def start(self, number: int) -> Worker:
        theirs, ours = self.context.Pipe(duplex=False)
        hand, their_hand = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        inherited = [*self.listeners, *(w.hand for w in self.workers.values()), hand]
        process = self.context.Process(
            target=worker_main,
            args=(self.options, self.key, ours, os.getpid(), their_hand, inherited),
            name=f"cantina worker {number}",
            daemon=False,
        )
        process.start()
        ours.close()
        their_hand.close()
        hand.setblocking(False)
        worker = Worker(number, process, theirs, hand, time.monotonic())
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
        """Until Ctrl-C or SIGTERM: each connection is handed to a worker; a worker that
        ends is logged and started again."""
        while True:
            now = time.monotonic()
            for number, when in list(self.due.items()):
                if when <= now:
                    del self.due[number]
                    self.start(number)
            waits: list[Connection | socket.socket | int] = []
            for worker in self.workers.values():
                waits += [worker.process.sentinel, worker.hand]
                if worker.kept is None:  # started again, not listening yet
                    waits.append(worker.ready)
            if self.choose(now) is not None:  # else connections wait in the backlog
                waits += self.listeners
            if now - self.forgot > FORGET_EVERY:
                self.forgot = now
                self.ledger.forget()
            timeout = min(self.due.values(), default=now + 60) - now
            if any(w.untaken for w in self.workers.values()):
                timeout = min(timeout, STUCK / 2)  # to notice a worker stuck
            for ended in multiprocessing.connection.wait(waits, timeout=max(0, timeout)):
                if ended in self.listeners:
                    assert isinstance(ended, socket.socket)
                    self.accept(ended)
                for worker in list(self.workers.values()):
                    if ended is worker.hand:
                        self.news(worker)
                    if ended is worker.ready and worker.kept is None:
                        self.listening(worker)
                    if ended is worker.process.sentinel:
                        self.ended(worker)

    def choose(self, now: float) -> Worker | None:
        """The worker to hand the next connection to: of those listening, alive and not
        stuck, the one with the fewest live connections (None if there is none)."""
        ready = [w for w in self.workers.values() if self.takes(w, now)]
        return min(ready, key=lambda w: (w.live, w.number), default=None)

    def accept(self, listener: socket.socket) -> None:
        """Accept what waits (up to ACCEPTS), each handed to the worker `choose` says."""
        for _ in range(ACCEPTS):
            now = time.monotonic()
            worker = self.choose(now)
            if worker is None:
                return
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as err:  # out of file descriptors, say: said, tried again soon
                log.warning("accepting a connection failed: %s", err)
                time.sleep(ACCEPT_PAUSE)  # not at once: the port stays readable meanwhile
                return
            with conn:
                worker = self.hand(conn, worker, now)
                if worker is None:  # it died just now: the client sees the connection close
                    continue
            worker.live += 1
            worker.untaken.append(now)

    def hand(self, conn: socket.socket, worker: Worker, now: float) -> Worker | None:
        """Hand `conn` to `worker` (to another if its address is at its cap of connections
        logging in: to the one holding the oldest of them), counted or with its refusal;
        the worker it went to (None if that failed)."""
        try:
            address = str(conn.getpeername()[0])
        except OSError:  # gone already
            return None
        refusal, crowded = self.ledger.arriving(address)
        how = "r" if refusal else "-"
        if crowded:
            ready = {w.number: w for w in self.workers.values() if self.takes(w, now)}
            holding = [ready[n] for n in self.ledger.crowding(address) if n in ready]
            if holding:
                worker, how = holding[0], "w"
            else:  # none of its waiting connections is where one could make way
                refusal, how = ADDRESS_LOGGING_IN, "r"
        number = self.ledger.number()
        said = f"{HAND} {number} {how} {refusal}".rstrip().encode()
        try:
            socket.send_fds(worker.hand, [said], [conn.fileno()])
        except OSError:
            return None
        if not refusal:
            self.ledger.handed(number, worker.number, address, now)
        return worker

    @staticmethod
    def takes(worker: Worker, now: float) -> bool:
        """Whether connections may be handed to `worker` now: listening, alive, not stuck."""
        return worker.kept is not None and worker.process.exitcode is None and not worker.stuck(now)

    def news(self, worker: Worker) -> None:
        """What a worker says: a connection handed to it taken, or ended; a session
        ended, or struck; or what it asks (may this login stay, may this session start)."""
        while True:
            try:
                said = worker.hand.recv(PACKET)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                said = b""
            if not said:  # it has ended: its sentinel says so
                return
            word, *numbers = said.decode(errors="replace").split() or [""]
            if not numbers or len(numbers) > 2 or not all(n.isdigit() for n in numbers):
                continue  # not a word of ours
            last = int(numbers[-1])
            if word == TAKEN and worker.untaken:
                worker.untaken.popleft()
            elif word == ENDED:
                worker.live = max(0, worker.live - 1)
                self.ledger.ended(last)
            elif word == FINISHED and len(numbers) == 2:
                self.ledger.session_ended(last, int(numbers[0]))
            elif word == STRUCK and len(numbers) == 2:
                self.struck(last, int(numbers[0]))
            elif word in (LOGIN, SESSION) and len(numbers) == 2:
                ask = int(numbers[0])
                if word == LOGIN:
                    refusal = self.ledger.login(last) or ""
                else:
                    refusal = self.ledger.session(last, ask) or ""
                with contextlib.suppress(OSError):  # it has ended: its sentinel says so
                    worker.hand.send(f"{ANSWER} {numbers[0]} {refusal}".rstrip().encode())

    def struck(self, number: int, code: int) -> None:
        """A worker's session of connection `number` ended for abuse (or sent what cannot
        be read): counted against its address, which is held (one line) at
        `Limits.strikes`, its new connections refused as they are accepted."""
        why = strike_why(code)
        if why is None:
            return  # not a word of ours
        address, wait = self.ledger.strike(number, why)
        if wait:
            log.info(holding_line(address, why, wait))

    def listening(self, worker: Worker) -> None:
        try:
            worker.kept = int(worker.ready.recv())
        except (EOFError, OSError):
            return  # it ended: its sentinel says so
        log.info("worker %d (pid %d) listening", worker.number, worker.process.pid)

    def ended(self, worker: Worker) -> None:
        worker.process.join()
        worker.ready.close()
        worker.hand.close()
        del self.workers[worker.number]
        self.ledger.worker_ended(worker.number)
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
            worker.hand.close()
        self.workers.clear()
        for listener in self.listeners:
            listener.close()


def raise_stopped(signum: int, frame: FrameType | None) -> None:
    raise Stopped


def serve_workers(options: HostOptions, count: int) -> int:
    """`cantina serve --workers N` (N > 1, with a Redis store): start, supervise, stop."""
    if not admits_somebody(options):
        return 2
    log_to_stderr(pids=True)
    listeners: list[socket.socket] = []
    supervisor: Supervisor | None = None
    previous = signal.signal(signal.SIGTERM, raise_stopped)

    def begin() -> None:
        nonlocal supervisor
        key_path = host_key_path(options.host_key)
        key = load_or_create_host_key(key_path)
        read_authorized_keys(options.authorized_keys)  # a bad file: one line, before forking
        listeners.extend(listen(options.host, options.port))
        shared = replace(options, handed=True, port=listeners[0].getsockname()[1])
        warm_up()  # imported once, shared by every worker's memory
        tune_collector()
        supervisor = Supervisor(shared, key, count, listeners)
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
            whole = " (the whole host's, over its workers)" if line == limits else ""
            print(f"cantina: {line}{whole}", flush=True)
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
        for listener in listeners:
            listener.close()
        gc.unfreeze()
