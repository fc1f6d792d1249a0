"""`cantina serve --workers 2` as a real process tree, with a real Redis and real SSH
clients on 127.0.0.1: connections to its one port land on both workers, evenly, each on
the one with fewer, every one sees the one host key, a stopped worker is given no more,
a worker killed with -9 leaves the other serving (and is started again), SIGTERM or
Ctrl-C stops every worker, and the limits are the whole host's, not each worker's."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import asyncssh
import pytest
import test_ssh
from redis_server import free_port, needs_redis, redis_server  # noqa: F401
from ssh_clients import OpenSSH, Terminal, plain, run_client, ssh_options
from test_ssh import Keys, needs_openssh

from cantina.ssh.keys import fingerprint, load_or_create_host_key
from cantina.ssh.limits import Limits

pytestmark = [needs_openssh, needs_redis]

keys = test_ssh.keys
own_config = test_ssh.own_config

ROOT = Path(__file__).resolve().parent.parent
LOGIN = re.compile(r"cantina\[(\d+)\]: login 127\.0\.0\.\d+ \S+ as '(\w+)'")


class Workers:
    """`cantina serve --workers N --store URL` in a session of its own (so a Ctrl-C can
    be sent to its process group, as a terminal does); its log read as it comes."""

    def __init__(self, process: asyncio.subprocess.Process, said: str) -> None:
        self.process = process
        self.said = said
        self.log = ""
        self.changed = asyncio.Event()
        self.reader = asyncio.create_task(self.read())
        found = re.search(r"with (\d+) workers \(pids ([\d, ]+)\)", said)
        assert found, said
        self.pids = [int(pid) for pid in found.group(2).split(", ")]
        assert len(self.pids) == int(found.group(1))

    @classmethod
    async def start(cls, keys: Keys, port: int, url: str, count: int = 2, *options: str) -> Workers:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "cantina",
            "serve",
            "--port",
            str(port),
            "--host-key",
            str(keys.host_key),
            "--authorized-keys",
            str(keys.authorized),
            "--store",
            url,
            "--workers",
            str(count),
            *options,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            start_new_session=True,
        )
        said = ""
        assert process.stdout is not None
        while "taken up" not in said:
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            assert line, f"the host ended as it started: {said}"
            said += line.decode()
        return cls(process, said)

    async def read(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self.log += line.decode()
            self.changed.set()

    async def expect(self, pattern: str, timeout: float = 30) -> re.Match[str]:
        deadline = asyncio.get_running_loop().time() + timeout
        while not (found := re.search(pattern, self.log)):
            left = deadline - asyncio.get_running_loop().time()
            assert left > 0, f"{pattern!r} never logged: {self.log[-1500:]}"
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return found

    def logins(self) -> dict[str, int]:
        """Each user logged in so far: the pid of the worker that took them."""
        return {user: int(pid) for pid, user in LOGIN.findall(self.log)}

    async def stop(self) -> None:
        if self.process.returncode is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            await self.process.wait()
        self.reader.cancel()


def alive(pid: int) -> bool:
    """Whether a process is there and not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def connect(
    keys: Keys, port: int, user: str, source: str = "127.0.0.1"
) -> tuple[asyncssh.SSHClientConnection, str]:
    """An asyncssh client logged in as `user` from `source` (any 127.x address is this
    machine); the fingerprint of the host key it was shown."""
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=user,
        client_keys=[str(keys.player)],
        known_hosts=None,
        agent_path=None,
        connect_timeout=20,
        local_addr=(source, 0),
    )
    key = conn.get_server_host_key()
    assert key is not None
    return conn, fingerprint(key)


@pytest.fixture
async def workers(keys: Keys, redis_server):  # noqa: F811
    host = await Workers.start(keys, free_port(), redis_server.url)
    yield host
    await host.stop()


def port_of(host: Workers) -> int:
    found = re.search(r"port (\d+)", host.said)
    assert found
    return int(found.group(1))


async def openssh_gets_the_lobby(keys: Keys, port: int) -> None:
    """A real OpenSSH client gets the lobby, whichever worker it lands on."""
    ssh = await OpenSSH.start(keys.partner, port, "-tt", user="bob")
    try:
        await ssh.expect("shared tables", timeout=30)
    finally:
        ssh.kill()


async def test_connections_to_one_port_land_on_both_workers_with_one_host_key(
    keys: Keys, workers: Workers
):
    port = port_of(workers)
    host_key = fingerprint(load_or_create_host_key(keys.host_key))
    assert f"host key fingerprint {host_key}" in workers.said
    assert re.search(r"\d+ sessions, .* \(the whole host's, over its workers\)", workers.said), (
        workers.said
    )
    assert all(alive(pid) for pid in workers.pids)
    links = [await connect(keys, port, f"p{i}") for i in range(16)]
    try:
        assert {shown for _, shown in links} == {host_key}
        await workers.expect("as 'p15'")
        took = workers.logins()
        assert set(took) == {f"p{i}" for i in range(16)}
        # the kernel spreads connections by their source port: all 16 on one worker of two
        # would happen once in 2^15 runs
        assert set(took.values()) == set(workers.pids)
    finally:
        for conn, _ in links:
            conn.close()
    await openssh_gets_the_lobby(keys, port)


async def test_each_login_goes_to_the_worker_with_fewer_connections(keys: Keys, workers: Workers):
    """The parent shares connections out by count: 12 logins split 6/6 (the kernel's
    SO_REUSEPORT hash did so about one run in five), and once one worker's 6 have left,
    the next 6 all go to it (by the hash, one run in 64)."""
    port = port_of(workers)
    first = [await connect(keys, port, f"p{i}") for i in range(12)]
    try:
        await workers.expect("as 'p11'")
        took = workers.logins()
        assert sorted(Counter(took.values()).values()) == [6, 6], took
        emptied = took["p0"]
        for i, (conn, _) in enumerate(first):
            if took[f"p{i}"] == emptied:
                conn.close()
        await workers.expect(r"(?s)(disconnect 127\.0\.0\.1 .*){6}")
        await asyncio.sleep(1)  # the worker has told the parent
        second = [await connect(keys, port, f"q{i}") for i in range(6)]
        await workers.expect("as 'q5'")
        for conn, _ in second:
            conn.close()
        took = workers.logins()
        assert {took[f"q{i}"] for i in range(6)} == {emptied}, took
    finally:
        for conn, _ in first:
            conn.close()


async def test_a_stopped_worker_is_handed_no_more_connections(keys: Keys, workers: Workers):
    """A worker stopped (SIGSTOP) leaves the one connection handed to it unanswered; the
    parent sees it untaken and gives every later one to the other worker (with the
    kernel's hash, about half of them hung)."""
    port = port_of(workers)
    stopped, other = workers.pids
    os.kill(stopped, signal.SIGSTOP)
    try:
        failed = 0
        links = []
        for i in range(8):
            try:
                links.append(
                    await asyncssh.connect(
                        "127.0.0.1",
                        port,
                        username=f"s{i}",
                        client_keys=[str(keys.player)],
                        known_hosts=None,
                        agent_path=None,
                        connect_timeout=3,
                    )
                )
            except (TimeoutError, asyncssh.Error, OSError):
                failed += 1
        assert failed <= 1 and len(links) >= 7
        await workers.expect("as 's7'")
        took = workers.logins()
        assert {pid for user, pid in took.items() if user.startswith("s")} == {other}, took
        for conn in links:
            conn.close()
    finally:
        os.kill(stopped, signal.SIGCONT)


async def test_a_worker_killed_with_minus_9_leaves_the_other_serving_and_is_started_again(
    keys: Keys, workers: Workers
):
    port = port_of(workers)
    dead, other = workers.pids
    os.kill(dead, signal.SIGKILL)
    await workers.expect(
        rf"worker \d \(pid {dead}\) ended after \d+ s: killed by SIGKILL; starting another"
    )
    before = workers.log
    # the other goes on serving: nobody is turned away while the dead one is replaced
    links = [await connect(keys, port, f"q{i}") for i in range(8)]
    for conn, _ in links:
        conn.close()
    await openssh_gets_the_lobby(keys, port)
    assert alive(other)
    found = await workers.expect(r"worker \d \(pid (\d+)\) listening")
    new = int(found.group(1))
    assert new not in (dead, other) and alive(new)
    assert workers.log.startswith(before)
    # and the new one takes connections too
    links = [await connect(keys, port, f"r{i}") for i in range(16)]
    for conn, _ in links:
        conn.close()
    await workers.expect("as 'r15'")
    assert new in {pid for user, pid in workers.logins().items() if user.startswith("r")}


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C"])
async def test_sigterm_or_ctrl_c_stops_every_worker(keys: Keys, workers: Workers, how: str):
    port = port_of(workers)
    ssh = await OpenSSH.start(keys.partner, port, "-tt", user="bob")
    try:
        await ssh.expect("shared tables", timeout=30)
        if how == "SIGTERM":
            workers.process.send_signal(signal.SIGTERM)
        else:  # a terminal's Ctrl-C reaches the whole foreground process group
            os.killpg(workers.process.pid, signal.SIGINT)
        assert await asyncio.wait_for(workers.process.wait(), 20) == 0
        await asyncio.wait_for(ssh.process.wait(), 10)  # its session was ended
    finally:
        ssh.kill()
    assert not any(alive(pid) for pid in workers.pids)
    assert "Traceback" not in workers.log
    with pytest.raises(OSError):
        await connect(keys, port, "late")


def test_workers_without_redis_are_refused_with_status_2(keys: Keys):
    """Workers share the lobby and the tables through Redis: in-process tables would be
    one worker's alone, so a player could not find a table set on another."""
    done = subprocess.run(
        [sys.executable, "-m", "cantina", "serve", "--open", "--port", "0", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2
    assert done.stderr.startswith("cantina: --workers 2 needs --store redis://HOST:PORT/DB")
    assert len(done.stderr.splitlines()) == 1 and done.stdout == ""


async def test_workers_end_with_their_parent_even_when_it_is_killed_with_minus_9(
    keys: Keys, workers: Workers
):
    """Workers left behind would go on taking a share of the port, unsupervised."""
    workers.process.kill()
    await workers.process.wait()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while any(alive(pid) for pid in workers.pids):
        assert loop.time() < deadline, "a worker outlived its parent"
        await asyncio.sleep(0.1)


async def test_a_second_serve_with_workers_on_a_port_in_use_is_refused(
    keys: Keys,
    workers: Workers,
    redis_server,  # noqa: F811
):
    """SO_REUSEPORT would let it share the port silently with the first one's workers."""
    port = port_of(workers)
    done = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cantina",
        "serve",
        "--open",
        "--port",
        str(port),
        "--host-key",
        str(keys.host_key),
        "--store",
        redis_server.url,
        "--workers",
        "2",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    out, err = await asyncio.wait_for(done.communicate(), 60)
    assert done.returncode == 1
    assert err.decode().splitlines() == [
        f"cantina: --port {port} on 127.0.0.1: Address already in use"
    ], err
    assert out == b""


# --- the limits are the whole host's -------------------------------------------------------


async def limited(keys: Keys, url: str, *options: str) -> Workers:
    return await Workers.start(keys, free_port(), url, 2, *options)


async def session(
    keys: Keys, port: int, user: str
) -> tuple[asyncssh.SSHClientConnection, Terminal]:
    """A player's terminal: a PTY on a shell, through an asyncssh client."""
    conn, _ = await connect(keys, port, user)
    _, terminal = await terminal_on(conn)
    return conn, terminal


async def terminal_on(
    conn: asyncssh.SSHClientConnection,
) -> tuple[asyncssh.SSHClientChannel[bytes], Terminal]:
    """A new session on `conn`, with a PTY, read through a `Terminal`."""
    return await conn.create_session(
        Terminal, term_type="xterm-256color", term_size=(80, 24), encoding=None
    )


async def test_sessions_from_one_address_are_counted_over_both_workers(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """--per-address 2: two sessions, one on each worker (each the worker's first), and a
    third is refused in one line though its worker holds only one (each worker counting
    its own let it in); once one ends, a new one is let in, on either worker."""
    host = await limited(keys, redis_server.url, "--per-address", "2")
    port = port_of(host)
    links: list[tuple[asyncssh.SSHClientConnection, Terminal]] = []
    try:
        for user in ("p0", "p1"):
            links.append(await session(keys, port, user))
            await links[-1][1].expect("shared tables")
        took = host.logins()
        assert took["p0"] != took["p1"], took  # one on each worker
        conn, third = await session(keys, port, "p2")
        links.append((conn, third))
        await asyncio.wait_for(third.closed.wait(), 20)
        assert b"cantina: too many sessions from your address" in third.errors
        await host.expect(r"refused 127\.0\.0\.1 \S+ 'p2': too many sessions from your address")

        links[0][0].close()  # p0 leaves: its worker tells the parent
        await host.expect(r"disconnect 127\.0\.0\.1 \S+ 'p0'")
        late = None
        for _ in range(20):  # the parent hears of it within a turn of the worker's loop
            conn, late = await session(keys, port, "p3")
            links.append((conn, late))
            done = asyncio.create_task(late.closed.wait())
            shown = asyncio.create_task(late.expect("shared tables"))
            await asyncio.wait([done, shown], return_when=asyncio.FIRST_COMPLETED, timeout=20)
            done.cancel()
            if shown.done() and shown.exception() is None:
                break
            shown.cancel()
            await asyncio.sleep(0.2)
        else:
            raise AssertionError("no session let in once one had ended")
    finally:
        for conn, _ in links:
            conn.close()
        await host.stop()


class Lost(asyncssh.SSHClient):
    """An asyncssh client that keeps why its connection ended (after its login)."""

    def __init__(self) -> None:
        self.lost: asyncio.Future[Exception | None] = asyncio.get_event_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)


async def test_logged_in_connections_from_one_address_are_counted_over_both_workers(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """--per-address 1 (so 2 logged-in connections an address): one on each worker, and
    a third is refused at its login with the host's line, though its worker holds one."""
    host = await limited(keys, redis_server.url, "--per-address", "1")
    port = port_of(host)
    links = []
    try:
        for user in ("p0", "p1"):
            links.append(await connect(keys, port, user))
        await host.expect("as 'p1'")
        took = host.logins()
        assert took["p0"] != took["p1"], took
        third, client = await asyncssh.create_connection(
            Lost,
            "127.0.0.1",
            port,
            username="p2",
            client_keys=[str(keys.player)],
            known_hosts=None,
            agent_path=None,
        )
        links.append((third, ""))
        refused = await asyncio.wait_for(client.lost, 20)
        assert isinstance(refused, asyncssh.DisconnectError)
        assert refused.reason.startswith("cantina: too many connections from your address")
    finally:
        for conn, _ in links:
            conn.close()
        await host.stop()


async def test_the_cantina_is_full_over_both_workers_for_an_openssh_client(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """--max-sessions 2: with one session on each worker, a real OpenSSH client's is
    refused with the host's line."""
    host = await limited(keys, redis_server.url, "--max-sessions", "2")
    port = port_of(host)
    links: list[tuple[asyncssh.SSHClientConnection, Terminal]] = []
    try:
        for user in ("p0", "p1"):
            links.append(await session(keys, port, user))
            await links[-1][1].expect("shared tables")
        ssh = await OpenSSH.start(keys.partner, port, "-tt", user="bob")
        try:
            await asyncio.wait_for(ssh.process.wait(), 30)
            assert "cantina: the cantina is full; try again later" in ssh.errors.decode()
        finally:
            ssh.kill()
    finally:
        for conn, _ in links:
            conn.close()
        await host.stop()


async def hold_logging_in(port: int, version: bool) -> tuple[asyncio.StreamWriter, bytes]:
    """A connection that stays before its login: it sends an SSH version (a client
    still starting) or nothing (a socket held open); what the host sent it so far."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if version:
        writer.write(b"SSH-2.0-stalled\r\n")
        await writer.drain()
    said = await asyncio.wait_for(reader.readline(), 10)  # the host's version: it is served
    return writer, said


async def test_connections_logging_in_from_one_address_are_counted_over_both_workers(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """--startups-per-address 2: two clients stalled after their SSH version, one on each
    worker, and a third connection from their address is refused with the host's line;
    once the two are sockets that never sent a version, one makes way for a player."""
    host = await limited(keys, redis_server.url, "--startups-per-address", "2")
    port = port_of(host)
    held = []
    try:
        for _ in range(2):
            held.append(await hold_logging_in(port, version=True))
        assert all(said.startswith(b"SSH-2.0-") for _, said in held)
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await connect(keys, port, "p0")
        assert refused.value.reason.startswith(
            "cantina: too many connections from your address are logging in; try again later"
        )
        for writer, _ in held:
            writer.close()
        await host.expect(r"(?s)(disconnect 127\.0\.0\.1 \(not logged in\).*){2}")
        await asyncio.sleep(0.5)  # the workers have told the parent

        held = [await hold_logging_in(port, version=False) for _ in range(2)]
        await asyncio.sleep(1.2)  # silent past SILENT_MAKES_WAY
        conn, _ = await connect(keys, port, "p1")
        conn.close()
        await host.expect("made way for a new connection")
    finally:
        for writer, _ in held:
            writer.close()
        await host.stop()


async def test_the_early_drop_counts_connections_logging_in_on_both_workers(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """--max-startups 2:100:2: with two clients logging in, one on each worker, a third
    connection is dropped with the host's line (each worker, holding one, would not)."""
    host = await limited(keys, redis_server.url, "--max-startups", "2:100:2")
    port = port_of(host)
    held = []
    try:
        for _ in range(2):
            held.append(await hold_logging_in(port, version=True))
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await connect(keys, port, "p0")
        assert refused.value.reason.startswith(
            "cantina: too many connections are logging in; try again later"
        )
    finally:
        for writer, _ in held:
            writer.close()
        await host.stop()


class StopsParent(asyncssh.SSHClient):
    """A client that stops the parent of the workers (SIGSTOP) as it begins its login, so
    the worker's question about that login waits, and the client's session opens first."""

    def __init__(self, parent: int, key: Path) -> None:
        self.parent = parent
        self.key: Path | None = key

    def public_key_auth_requested(self) -> list[Path]:
        key, self.key = self.key, None
        if key is None:
            return []
        os.kill(self.parent, signal.SIGSTOP)
        return [key]


async def login_stopping_the_parent(
    keys: Keys, port: int, parent: int
) -> asyncssh.SSHClientConnection:
    """'early' logged in through `StopsParent`: the parent is stopped (SIGSTOP) as the
    login begins; sending it SIGCONT is the caller's."""
    conn, _ = await asyncssh.create_connection(
        lambda: StopsParent(parent, keys.player),
        "127.0.0.1",
        port,
        username="early",
        client_keys=[],  # (any of this user's own first) then StopsParent's
        known_hosts=None,
        agent_path=None,
    )
    return conn


async def test_a_session_opened_before_its_login_was_counted_waits_and_then_lasts(
    keys: Keys,
    workers: Workers,
):
    """The worker asks the parent about a login; the client's session may open before
    the answer (here the parent is stopped meanwhile): the session waits for it, then
    runs, and lasts past the no-session time (20 s), which its login armed."""
    port = port_of(workers)
    parent = workers.process.pid
    try:
        conn = await login_stopping_the_parent(keys, port, parent)
        _, terminal = await terminal_on(conn)
        await asyncio.sleep(0.5)
        assert "shared tables" not in plain(bytes(terminal.output)), "it waits for the answer"
    finally:
        os.kill(parent, signal.SIGCONT)
    try:
        await terminal.expect("shared tables")
        await asyncio.sleep(Limits().no_session_timeout + 2)
        assert not terminal.closed.is_set(), workers.log[-800:]
        assert "no session was opened" not in workers.log
    finally:
        conn.close()


async def test_a_worker_killed_with_minus_9_takes_its_sessions_counts_with_it(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """--per-address 2, a session on each worker: the one worker killed with -9, its
    session no longer counts, so a new session from that address is let in (on the
    other worker, while the dead one is replaced)."""
    host = await limited(keys, redis_server.url, "--per-address", "2")
    port = port_of(host)
    links: list[tuple[asyncssh.SSHClientConnection, Terminal]] = []
    try:
        for user in ("p0", "p1"):
            links.append(await session(keys, port, user))
            await links[-1][1].expect("shared tables")
        dead = host.logins()["p0"]
        os.kill(dead, signal.SIGKILL)
        await host.expect(rf"\(pid {dead}\) ended after \d+ s: killed by SIGKILL")
        links.append(await session(keys, port, "p2"))
        await links[-1][1].expect("shared tables")
        assert host.logins()["p2"] != dead
    finally:
        for conn, _ in links:
            conn.close()
        await host.stop()


async def test_a_parent_that_does_not_answer_lets_the_player_in_uncounted_with_one_line(
    keys: Keys,
    workers: Workers,
):
    """The parent stopped (SIGSTOP) as a player logs in, and left stopped: the worker
    waits ASK_TIMEOUT for its answer about the login, then lets the player in, and their
    session too without waiting again, saying so in one log line (not one per ask);
    once the parent runs again and answers, the worker says that in one line, and the
    logins after count as before."""
    port = port_of(workers)
    parent = workers.process.pid
    conn = None
    try:
        conn = await login_stopping_the_parent(keys, port, parent)
        _, terminal = await terminal_on(conn)
        await terminal.expect("shared tables", timeout=30)  # the parent still stopped
        assert alive(parent)
        state = Path(f"/proc/{parent}/stat").read_text().rsplit(")", 1)[1].split()[0]
        assert state == "T", "the parent was stopped all along"
        _, second = await terminal_on(conn)
        await second.expect("shared tables", timeout=30)
    finally:
        os.kill(parent, signal.SIGCONT)
    try:
        await workers.expect("the parent answers again: logins and sessions are counted")
        unanswered = [line for line in workers.log.splitlines() if "not answered" in line]
        assert len(unanswered) == 1, workers.log[-1500:]
        assert re.fullmatch(
            r"\S+ \S+ cantina\[\d+\]: the parent has not answered in 5 s: logins and "
            r"sessions are let in uncounted until it does",
            unanswered[0],
        ), unanswered
        assert "as 'early'" in workers.log and "Traceback" not in workers.log
        later, _ = await connect(keys, port, "later")
        later.close()
        await workers.expect("as 'later'")
        assert len([line for line in workers.log.splitlines() if "not answered" in line]) == 1
    finally:
        if conn is not None:
            conn.close()


async def test_the_rate_of_new_sessions_from_one_address_holds_over_both_workers(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """An address may start `session_burst` (16) sessions at once, then `session_rate`
    (0.5) a second. 24 sessions opened at once from one address, 12 on each worker (on
    two connections, one on each): each worker's own budget would let all 12 in; the
    parent's, the whole host's, lets in the burst and what refilled meanwhile, and the
    rest are refused in the host's one line."""
    limits = Limits()
    host = await limited(keys, redis_server.url, "--per-address", "24")
    port = port_of(host)
    links = []
    try:
        for user in ("p0", "p1"):
            links.append((await connect(keys, port, user))[0])
        await host.expect("as 'p1'")
        took = host.logins()
        assert took["p0"] != took["p1"], took  # one connection on each worker

        async def start(conn: asyncssh.SSHClientConnection) -> tuple[bool, bytes]:
            chan, terminal = await terminal_on(conn)
            shown = asyncio.create_task(terminal.expect("shared tables", timeout=60))
            ended = asyncio.create_task(terminal.closed.wait())
            await asyncio.wait([shown, ended], return_when=asyncio.FIRST_COMPLETED)
            for task in (shown, ended):
                task.cancel()
            let_in = shown.done() and not shown.cancelled() and shown.exception() is None
            chan.close()
            return let_in, bytes(terminal.errors)

        loop = asyncio.get_running_loop()
        began = loop.time()
        ended = await asyncio.gather(*(start(links[i % 2]) for i in range(24)))
        took_s = loop.time() - began
        let_in = sum(1 for shown, _ in ended if shown)
        refused = [errors for shown, errors in ended if not shown]
        refill = int(took_s * limits.session_rate) + 1
        assert limits.session_burst <= let_in <= limits.session_burst + refill < 24, (
            let_in,
            took_s,
        )
        line = b"cantina: new sessions from your address come too fast; try again in 2 s"
        assert refused and all(line in errors for errors in refused), refused
        await host.expect(r"refused 127\.0\.0\.1 \S+ '(p0|p1)': new sessions from your address")
    finally:
        for conn in links:
            conn.close()
        await host.stop()


async def test_a_worker_killed_with_minus_9_mid_login_takes_its_logins_counts_with_it(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """--startups-per-address 2: two clients stalled after their SSH version, one on each
    worker, hold their address's connections logging in (a third is refused). The one
    worker killed with -9, its stalled client goes with it and counts no more: a player
    from that address logs in and gets the lobby (on the other worker, or the new one)."""
    host = await limited(keys, redis_server.url, "--startups-per-address", "2")
    port = port_of(host)
    held = []
    conn = None
    try:
        for _ in range(2):
            held.append(await hold_logging_in(port, version=True))
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await connect(keys, port, "p0")
        assert refused.value.reason.startswith("cantina: too many connections from your address")
        dead = host.pids[0]
        os.kill(dead, signal.SIGKILL)
        await host.expect(rf"\(pid {dead}\) ended after \d+ s: killed by SIGKILL")
        conn, terminal = await session(keys, port, "p1")
        await terminal.expect("shared tables")
        assert host.logins()["p1"] != dead
    finally:
        if conn is not None:
            conn.close()
        for writer, _ in held:
            writer.close()
        await host.stop()


async def test_a_session_let_in_uncounted_and_refused_late_does_not_free_anothers_place(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """--per-address 1, the parent stopped as a player logs in: the worker lets their
    login and two sessions in uncounted. Once the parent runs again it reads the asks in
    order, counting the first session and refusing the second (one an address). The
    second ending must not uncount the first, still running: a session from a new
    connection is refused as the address's second (it was let in, two running)."""
    host = await limited(keys, redis_server.url, "--per-address", "1")
    port = port_of(host)
    parent = host.process.pid
    links = []
    try:
        conn = await login_stopping_the_parent(keys, port, parent)
        links.append(conn)
        terminals = []
        try:
            for _ in range(2):
                chan, terminal = await terminal_on(conn)
                await terminal.expect("shared tables", timeout=30)
                terminals.append((chan, terminal))
        finally:
            os.kill(parent, signal.SIGCONT)
        await host.expect("the parent answers again")
        await asyncio.sleep(0.5)  # the parent has read both asks
        chan, terminal = terminals[1]
        chan.close()
        await asyncio.wait_for(terminal.closed.wait(), 10)
        await asyncio.sleep(0.5)  # its end told to the parent
        assert not terminals[0][1].closed.is_set()
        late, third = await session(keys, port, "late")
        links.append(late)
        shown = asyncio.create_task(third.expect("shared tables", timeout=20))
        closed = asyncio.create_task(third.closed.wait())
        await asyncio.wait([shown, closed], return_when=asyncio.FIRST_COMPLETED, timeout=25)
        for task in (shown, closed):
            task.cancel()
        assert closed.done() and not closed.cancelled(), "let in as if the address had none"
        assert b"cantina: too many sessions from your address" in third.errors
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(parent, signal.SIGCONT)
        for link in links:
            link.close()
        await host.stop()


async def test_an_address_held_for_its_sessions_abuse_on_one_worker_is_held_on_the_other(
    keys: Keys,
    redis_server,  # noqa: F811
):
    """Two sessions of one address send what the host cannot read, both on one worker
    (`Limits.strikes` 2): the address is the whole host's to hold, so its next connection,
    handed to the other worker, is refused at once, before its key exchange, with the
    lone host's line; a new session on its connection already on the other worker is
    refused too, and another address is untouched. Each worker holding on its own
    strikes let both in on the other one."""
    host = await limited(keys, redis_server.url)
    assert (
        "an address is held after 2 abusive sessions in 60 s, for 30 s (doubling, up to 300 s)"
        " (the whole host's, over its workers)" in host.said
    ), host.said
    port = port_of(host)
    attacker = "127.0.0.2"
    line = "sessions from your address sent input the host cannot read; try again in"
    links: list[asyncssh.SSHClientConnection] = []
    try:
        for user in ("early", "bad"):  # one on each worker (each the one with fewer)
            links.append((await connect(keys, port, user, attacker))[0])
        early, bad = links
        await host.expect("as 'bad'")
        took = host.logins()
        assert took["early"] != took["bad"], took
        for struck in (1, 2):  # two sessions on the one worker, each a strike
            chan, terminal = await terminal_on(bad)
            await terminal.expect("shared tables")
            chan.write(b"\x1b[9999999u")  # a key past Unicode: unreadable
            await host.expect(
                rf"(?s)(cantina\[{took['bad']}\]: input from {attacker} .*){{{struck}}}"
            )
        await host.expect(rf"holding {attacker} for 30 s: its sessions sent input the host cannot")

        began = asyncio.get_running_loop().time()
        with pytest.raises(asyncssh.DisconnectError) as refused:  # 1 connection each: to 1
            links.append((await connect(keys, port, "late", attacker))[0])
        # as a lone host says it: the SSH disconnect's reason and code
        said = refused.value  # (asyncssh's client adds the code to a reason it has no name for)
        assert re.fullmatch(rf"cantina: {line} (29|30) s \(error 12\)", said.reason), said
        assert said.code == asyncssh.DISC_TOO_MANY_CONNECTIONS == 12
        assert asyncio.get_running_loop().time() - began < 2
        refusal = await host.expect(
            rf"cantina\[(\d+)\]: refused {attacker} \(not logged in\): {line}"
        )
        assert int(refusal[1]) == took["early"] != took["bad"], host.log[-1500:]
        status, _, err = await run_client(  # OpenSSH prints that line
            "ssh", *ssh_options(keys.player, port), "-b", attacker, "-tt", "late@127.0.0.1"
        )
        assert status == 255 and f"cantina: {line} " in err, err

        _, late_session = await terminal_on(early)  # on the other worker
        await asyncio.wait_for(late_session.closed.wait(), 20)  # not the lobby
        assert f"cantina: {line}".encode() in late_session.errors, late_session.errors

        conn, honest = await session(keys, port, "honest")  # another address: let in
        links.append(conn)
        await honest.expect("shared tables")
    finally:
        for conn in links:
            conn.close()
        await host.stop()
