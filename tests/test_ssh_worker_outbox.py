"""What a worker of `cantina serve --workers N` tells its parent goes over a real Unix
socket pair (SOCK_SEQPACKET, as `Supervisor.start` makes it). A parent stopped or stalled
reads nothing, and the pair's buffer fills: the packets after that are kept, in order, and
sent when it reads again, not dropped (a dropped `e NUMBER`, a connection's end, would
leave that connection counted against its address in the parent for good)."""

from __future__ import annotations

import asyncio
import socket

from cantina.ssh.handoff import ENDED, Outbox

PACKETS = 3000
"""Far more than the pair holds with small buffers (a few hundred)."""


async def test_what_a_worker_tells_a_parent_that_reads_nothing_waits_and_all_of_it_arrives():
    parent, worker = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with parent, worker:
        worker.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        parent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        worker.setblocking(False)
        parent.setblocking(False)
        loop = asyncio.get_running_loop()
        outbox = Outbox(worker, loop)
        for number in range(PACKETS):  # the parent stopped: nothing read meanwhile
            outbox.tell(ENDED, number)
        assert outbox.waiting, "the pair's buffer filled, and the rest waits"
        heard: list[bytes] = []
        deadline = loop.time() + 20
        while len(heard) < PACKETS:  # the parent reads again
            assert loop.time() < deadline, f"{len(heard)} of {PACKETS} arrived"
            try:
                heard.append(parent.recv(1024))
            except BlockingIOError:
                await asyncio.sleep(0.001)  # the worker's loop sends what waits
        assert heard == [f"{ENDED} {n}".encode() for n in range(PACKETS)]
        assert not outbox.waiting
        outbox.tell(ENDED, PACKETS)  # and once it has caught up, at once again
        assert parent.recv(1024) == f"{ENDED} {PACKETS}".encode()


async def test_nothing_is_kept_for_a_parent_that_has_gone():
    parent, worker = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with worker:
        worker.setblocking(False)
        parent.close()
        outbox = Outbox(worker, asyncio.get_running_loop())
        outbox.tell(ENDED, 1)
        outbox.tell(ENDED, 2)
        assert outbox.gone and not outbox.waiting
