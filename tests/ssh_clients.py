"""Real SSH clients for the hosting tests: OpenSSH's `ssh` and `sftp` as subprocesses,
and asyncssh clients for the load and fault tests. Nothing here fakes the server side."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
from pathlib import Path

import asyncssh

ANSI = re.compile(rb"\x1b(\[[0-9;?<>=$ ]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")

HAVE_OPENSSH = shutil.which("ssh") is not None and shutil.which("sftp") is not None


def plain(data: bytes) -> str:
    """Terminal output less its escape sequences, for finding the words drawn."""
    return ANSI.sub(b"", data).decode("utf-8", "replace")


def make_key(path: Path) -> Path:
    """An ed25519 client key pair (OpenSSH format) at `path` and `path.pub`."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    path.write_bytes(key.export_private_key())
    path.chmod(0o600)
    path.with_suffix(".pub").write_bytes(key.export_public_key())
    return path


def ssh_options(key: Path, port: int) -> list[str]:
    """No user config, no known-hosts file, this key only, never a prompt."""
    return [
        "-F",
        "/dev/null",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "BatchMode=yes",
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "IdentityAgent=none",
        "-o",
        "ConnectTimeout=10",
        "-i",
        str(key),
        "-p",
        str(port),
    ]


class OpenSSH:
    """`ssh -tt` to the host: its screen output collected, keys sent on stdin."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.output = bytearray()
        self.errors = bytearray()
        self._changed = asyncio.Event()
        self._readers = [
            asyncio.create_task(self._read(process.stdout, self.output)),
            asyncio.create_task(self._read(process.stderr, self.errors)),
        ]

    @classmethod
    async def start(
        cls, key: Path, port: int, *args: str, user: str = "player", env: dict | None = None
    ) -> OpenSSH:
        process = await asyncio.create_subprocess_exec(
            "ssh",
            *ssh_options(key, port),
            *args,
            f"{user}@127.0.0.1",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        return cls(process)

    async def _read(self, stream: asyncio.StreamReader | None, into: bytearray) -> None:
        assert stream is not None
        while chunk := await stream.read(65536):
            into.extend(chunk)
            self._changed.set()
        self._changed.set()

    @property
    def text(self) -> str:
        return plain(bytes(self.output))

    def mark(self) -> int:
        """Where the output stands now, to look only at what comes after."""
        return len(self.output)

    async def expect(self, words: str, timeout: float = 15.0, since: int = 0) -> None:
        """Wait until `words` have been drawn (after `since`), or fail saying what was."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while words not in plain(bytes(self.output[since:])):
            left = deadline - loop.time()
            if left <= 0 or (self.process.returncode is not None and self._done()):
                tail = plain(bytes(self.output[since:]))[-1500:]
                raise AssertionError(f"{words!r} never arrived; the screen showed:\n{tail}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))

    def _done(self) -> bool:
        return all(reader.done() for reader in self._readers)

    def send(self, keys: str | bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(keys.encode() if isinstance(keys, str) else keys)

    async def finish(self, timeout: float = 15.0) -> int:
        """Wait for the client to end (closing its input); its exit status."""
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
            await asyncio.wait_for(asyncio.gather(*self._readers), timeout)
        except TimeoutError:
            self.kill()
            raise
        return self.process.returncode or 0

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
        for reader in self._readers:
            reader.cancel()


async def run_client(*command: str, timeout: float = 20.0, env: dict | None = None):
    """Run a client to its end with no input: (status, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    return process.returncode, out, err.decode("utf-8", "replace")


class Terminal(asyncssh.SSHClientSession):
    """An asyncssh client session with a PTY that keeps what it is sent."""

    def __init__(self) -> None:
        self.output = bytearray()
        self.errors = bytearray()
        self.closed = asyncio.Event()
        self.changed = asyncio.Event()

    def data_received(self, data: bytes, datatype) -> None:
        (self.errors if datatype else self.output).extend(data)
        self.changed.set()

    def connection_lost(self, exc) -> None:
        self.closed.set()
        self.changed.set()

    async def expect(self, words: str, timeout: float = 15.0, since: int = 0) -> float:
        """Wait for `words` on the screen; the loop time they arrived."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while words not in plain(bytes(self.output[since:])):
            left = deadline - loop.time()
            if left <= 0 or self.closed.is_set():
                tail = plain(bytes(self.output[since:]))[-800:]
                raise AssertionError(f"{words!r} never arrived; the screen showed:\n{tail}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.5))
        return loop.time()


async def connect(
    port: int, key: asyncssh.SSHKey | None, *, user: str = "player", **session: object
) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHClientChannel, Terminal]:
    """An asyncssh client with a PTY on a shell, as a player's terminal would be."""
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=user,
        client_keys=[key] if key else [],
        known_hosts=None,
        agent_path=None,
        connect_timeout=10,
    )
    chan, terminal = await conn.create_session(
        Terminal,
        term_type=session.pop("term_type", "xterm-256color"),
        term_size=session.pop("term_size", (80, 24)),
        encoding=None,
        **session,
    )
    return conn, chan, terminal
