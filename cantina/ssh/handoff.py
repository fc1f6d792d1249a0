"""What `cantina serve --workers N`'s parent and each worker say over their socket pair,
and the worker's side of it: the connections handed to it, the news it sends back, and
its asks before a login or a session counts. One packet a message; NUMBER is the
connection's, as the parent numbered it when handing it over (the parent's side is in
workers.py, its counts in ledger.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections import deque
from collections.abc import Callable

import asyncssh

from cantina.ssh.asyncssh_compat import lingering
from cantina.ssh.limits import STRIKES
from cantina.ssh.server import Handed, Host

log = logging.getLogger("cantina.ssh")

HAND = "c"
"""`c NUMBER HOW [REFUSAL]`, with the connection's descriptor: serve it (HOW `-`), refuse
it with REFUSAL (`r`), or let it in only in place of a silent one of its address (`w`)."""
ANSWER = "a"
"""`a ASK [REFUSAL]`: the parent's answer to a worker's ask (no refusal: it counts)."""
TAKEN = "t"
"""`t NUMBER`: a connection handed over is now being served."""
ENDED = "e"
"""`e NUMBER`: a connection handed over has ended (with its login and sessions)."""
LOGIN = "l"
"""`l ASK NUMBER`: may this connection, logged in, stay?"""
SESSION = "s"
"""`s ASK NUMBER`: may a new session start on this connection?"""
FINISHED = "f"
"""`f ASK NUMBER`: the session of this connection asked about as ASK has ended (the
parent counts it no more if it counted it)."""
STRUCK = "k"
"""`k WHY NUMBER`: a session of this connection ended for abuse, or sent what cannot be
read; WHY is the reason's place among limits.STRIKES (`strike_code`). The parent counts
it against the connection's address, and holds the address on every worker."""
PACKET = 1024
"""The longest message either sends."""
ASK_TIMEOUT = 5.0
"""Seconds a worker waits for its parent's answer before letting the login or session
in all the same (the parent answers within a turn of its loop; this is for a parent
that is going away or stalled, so that nobody waits on it forever). Once one ask has
waited that long, the worker asks on but waits for no answer until the parent answers
again: a player's login and session do not wait 5 s each, nor does every login after."""
OUTBOX = 100_000
"""Packets a worker keeps for a parent that reads nothing, at most (a few MB): past it,
the oldest go (a parent stalled that long is as good as gone)."""


def strike_code(why: str) -> int:
    """A reason among limits.STRIKES as STRUCK tells it: a number."""
    return list(STRIKES).index(why)


def strike_why(code: int) -> str | None:
    """The reason STRUCK told as `code` (None: not one of ours)."""
    reasons = list(STRIKES)
    return reasons[code] if 0 <= code < len(reasons) else None


def take_handed(host: Host, hand: socket.socket) -> None:
    """Serve each connection the parent hands over this worker's end of the pair, and
    tell the parent when one is taken and when it ends (it counts them to share out);
    the host asks the parent before a login or a session counts (`ParentCounts`)."""
    loop = asyncio.get_running_loop()
    hand.setblocking(False)
    serving: set[asyncio.Task[None]] = set()

    tell = Outbox(hand, loop).tell
    counts = host.counts = ParentCounts(tell)

    async def serve(sock: socket.socket, handed: Handed) -> None:
        try:
            await host.adopt(sock, handed)
        except (asyncssh.Error, OSError, TimeoutError):
            pass  # ended before the login: its Gate has logged why
        finally:
            if not lingering(sock):  # a refusal still read: its transport closes it after
                sock.close()
            tell(ENDED, handed.number)

    def handed() -> None:
        while True:
            try:
                said, fds, _, _ = socket.recv_fds(hand, PACKET, 8)
            except BlockingIOError:
                return
            except OSError:
                said, fds = b"", []
            if not said and not fds:  # the parent has closed its end
                loop.remove_reader(hand.fileno())
                with contextlib.suppress(ValueError, OSError):  # (closed already)
                    loop.remove_writer(hand.fileno())
                counts.parent_gone()
                return
            word, number, rest = [*said.decode(errors="replace").split(" ", 2), "", ""][:3]
            if word == ANSWER and number.isdigit():
                counts.answered(int(number), rest)
            for fd in fds:
                sock = socket.socket(fileno=fd)
                if word != HAND or not number.isdigit():
                    sock.close()
                    continue
                how, _, refusal = rest.partition(" ")
                ticket = Handed(int(number), refusal if how == "r" else "", how == "w")
                tell(TAKEN, ticket.number)
                task = loop.create_task(serve(sock, ticket))
                serving.add(task)
                task.add_done_callback(serving.discard)

    loop.add_reader(hand.fileno(), handed)


class Outbox:
    """What a worker tells its parent, over its end of their socket pair: each packet
    sent at once, or, while the pair's buffer is full (a parent stopped or stalled reads
    nothing), kept in order and sent as soon as it reads again. Dropped, a connection's
    or a session's end would stay counted in the parent for good."""

    def __init__(self, sock: socket.socket, loop: asyncio.AbstractEventLoop) -> None:
        self.sock = sock
        self.loop = loop
        self.waiting: deque[bytes] = deque()
        self.gone = False
        """The parent's end is closed (this worker is ending): nothing more is sent."""

    def tell(self, *words: object) -> None:
        packet = " ".join(str(w) for w in words).encode()
        if self.gone:
            return
        if self.waiting:
            self.waiting.append(packet)
        elif not self.send(packet):
            self.waiting.append(packet)
            self.loop.add_writer(self.sock.fileno(), self.flush)
        if len(self.waiting) > OUTBOX:  # a parent gone for good: it ends this worker soon
            self.waiting.popleft()

    def send(self, packet: bytes) -> bool:
        """Whether `packet` is sent (or need not be: the parent is gone)."""
        try:
            self.sock.send(packet)
        except BlockingIOError:
            return False
        except OSError:
            self.gone = True
            self.waiting.clear()
        return True

    def flush(self) -> None:
        while self.waiting:
            if not self.send(self.waiting[0]):
                return
            if self.waiting:
                self.waiting.popleft()
        self.loop.remove_writer(self.sock.fileno())


class ParentCounts:
    """A worker's side of the parent's counts (server.Counts): each ask a packet to the
    parent and a future for its answer."""

    def __init__(self, tell: Callable[..., None]) -> None:
        self.tell = tell
        self.asks: dict[int, asyncio.Future[str]] = {}
        self.last = 0
        self.silent = False
        """An ask went unanswered for ASK_TIMEOUT, and the parent has said nothing since:
        what is asked is let in at once, uncounted (the parent counts it when it reads
        the ask, if it ever does)."""

    async def login(self, handed: Handed) -> str | None:
        return (await self.ask(LOGIN, handed))[0]

    async def session(self, handed: Handed) -> tuple[str | None, int]:
        return await self.ask(SESSION, handed)

    def session_ended(self, handed: Handed, ask: int) -> None:
        self.tell(FINISHED, ask, handed.number)

    def strike(self, handed: Handed, why: str) -> None:
        self.tell(STRUCK, strike_code(why), handed.number)

    async def ask(self, word: str, handed: Handed) -> tuple[str | None, int]:
        """The parent's answer (a refusal, or None), and the number it was asked with."""
        self.last += 1
        ask = self.last
        self.tell(word, ask, handed.number)
        if self.silent:
            return None, ask
        answer = self.asks[ask] = asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(answer, ASK_TIMEOUT) or None, ask
        except TimeoutError:
            if not self.silent:  # said once, for every ask let in until it answers
                self.silent = True
                log.warning(
                    "the parent has not answered in %g s: logins and sessions are let in "
                    "uncounted until it does",
                    ASK_TIMEOUT,
                )
            return None, ask
        finally:
            self.asks.pop(ask, None)

    def answered(self, ask: int, refusal: str) -> None:
        if self.silent:
            self.silent = False
            log.info("the parent answers again: logins and sessions are counted")
        answer = self.asks.get(ask)
        if answer is not None and not answer.done():
            answer.set_result(refusal)

    def parent_gone(self) -> None:
        """Nobody will answer: what is asked is let in (this worker is ending)."""
        for answer in self.asks.values():
            if not answer.done():
                answer.set_result("")
