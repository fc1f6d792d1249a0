"""`cantina serve`: start the host, say where and with which key, run until stopped."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncssh

from cantina.ssh.keys import (
    fingerprint,
    host_key_path,
    load_or_create_host_key,
    read_authorized_keys,
)
from cantina.ssh.server import Host, HostOptions
from cantina.store.memory import StoreAway
from cantina.store.redis_store import StoreRefused


def tune_collector() -> None:
    """Move everything loaded at start-up (textual, the rules, stylesheets) out of the
    collector's sight, and collect the young generations in small, frequent steps.
    With every session in one process a collection pauses all of them at once: measured
    with 64 sessions typing (benchmarks/bench_ssh.py), Python's defaults paused for up to
    370 ms (full collections over every session's objects), and fewer, larger young
    collections (20000, 20, 50) for up to 290 ms. With 24 sessions playing (--playing, 40 s,
    a frame's lines no longer cyclic garbage: textual_compat.strips_kept_out_of_cycles),
    (5000, 4, 100) paused 18 times, p50 17 ms, at most 62 ms; (2000, 4, 250) 61 times,
    p50 5 ms, at most 35 ms. A full collection still waits for as many objects kept as
    before (2000 x 4 x 250 = 5000 x 4 x 100)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


COLLECTOR_THRESHOLDS = (2000, 4, 250)
"""The collector's thresholds in a host (see `tune_collector`)."""


def warm_up() -> None:
    """Import what every session needs once, before the first player waits for it."""
    from cantina.ssh import app  # noqa: F401


async def run_host(
    options: HostOptions,
    ready: Callable[[Host], object] | None = None,
    *,
    tune_gc: bool = True,
    key: asyncssh.SSHKey | None = None,
    announce: bool = True,
) -> None:
    """Host until cancelled. A worker of `--workers N` is given the key its parent loaded
    (so every worker presents one host key) and says nothing as it starts: the parent
    speaks for them all."""
    key_path = host_key_path(options.host_key)
    if key is None:
        key = load_or_create_host_key(key_path)
    authorized = read_authorized_keys(options.authorized_keys)
    host = Host(options, authorized)
    await host.start(key)
    warm_up()
    if tune_gc:
        tune_collector()
    if announce:
        kept = len(host.lobby.tables) if host.lobby is not None else 0
        for line in banner(options, host.port, key_path, key, kept):
            print(f"cantina: {line}", flush=True)
    if ready is not None:
        ready(host)
    try:
        await asyncio.Event().wait()
    finally:
        await host.close()


def banner(
    options: HostOptions,
    port: int,
    key_path: Path,
    key: asyncssh.SSHKey,
    kept: int,
    workers: str = "",
) -> list[str]:
    """What the host says as it starts: where, with which key, whom it admits, its
    limits, where its tables are kept."""
    lines = [
        f"serving on {options.host} port {port}{workers}",
        f"host key {key_path}",
        f"host key fingerprint {fingerprint(key)}",
    ]
    if options.open:
        lines.append("--open: any key is admitted")
    elif options.authorized_keys is not None:
        lines.append(f"players' keys from {options.authorized_keys}")
    if options.guests:
        lines.append("--guests: clients without a key are admitted")
    lines.append(settings_line(options))
    if options.store:
        lines.append(f"tables kept in {shown_url(options.store)}; {kept} taken up")
    return lines


def settings_line(options: HostOptions) -> str:
    """The host's limits in one line, as it starts."""
    limits = options.limits
    return (
        f"{limits.max_sessions} sessions, {limits.per_address} an address; "
        f"idle timeout {limits.idle_timeout:g} s; away grace {options.away_grace:g} s; "
        f"{options.tables_per_player} tables a player, {options.max_tables} in all; logging in: "
        f"{limits.startups_per_address} an address, startups {limits.startups}, "
        f"grace {limits.login_timeout:g} s; {strikes_words(options)}"
    )


def strikes_words(options: HostOptions) -> str:
    """How the host holds an address whose sessions abuse it (`Limits.strikes`)."""
    limits = options.limits
    if not limits.strikes:
        return "an address is never held for its sessions' abuse (--strikes 0)"
    return (
        f"an address is held after {limits.strikes} abusive sessions in "
        f"{limits.strike_window:g} s, for {limits.strike_wait:g} s (doubling, up to "
        f"{limits.strike_wait_max:g} s)"
    )


def shown_url(url: str) -> str:
    """A store's address as printed: without its password, if it has one."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    where = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + where))


def log_to_stderr(pids: bool = False) -> None:
    """The host's own view: each login, refusal and disconnect (logger `cantina.ssh`,
    INFO), and each table set, started and closed, as one line on stderr, with the time;
    with several workers, with the process id of the one that wrote it."""
    handler = logging.StreamHandler(sys.stderr)
    who = "cantina[%(process)d]" if pids else "cantina"
    handler.setFormatter(logging.Formatter(f"%(asctime)s {who}: %(message)s"))
    # the store: Redis away, and back; the lobby: each table set, started and closed
    for name in ("cantina.ssh", "cantina.store", "cantina.lobby"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def admits_somebody(options: HostOptions) -> bool:
    if not options.open and options.authorized_keys is None and not options.guests:
        print(
            "cantina: nobody could get in: give --authorized-keys FILE, or --open",
            file=sys.stderr,
        )
        return False
    return True


def serve(options: HostOptions) -> int:
    if not admits_somebody(options):
        return 2
    log_to_stderr()
    return reported(lambda: asyncio.run(until_terminated(run_host(options))), options)


async def until_terminated(hosting: Awaitable[None]) -> None:
    """Host until SIGTERM (a service manager's stop, `kill`), then close as Ctrl-C does:
    each player told the host is closing, every table put away. Python's default ends
    the process where it stands, and players saw only their connection drop."""
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    with contextlib.suppress(asyncio.CancelledError):
        await hosting


def reported(run: Callable[[], object], options: HostOptions) -> int:
    """Run the host; what stops it with an error, as one line (and status 1)."""
    try:
        run()
    except KeyboardInterrupt:
        pass
    except socket.gaierror as err:  # an address that names nothing
        print(f"cantina: --host {options.host}: {err.strerror}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as err:
        print(f"cantina: {err}", file=sys.stderr)
        return 1
    except StoreAway as err:
        where = shown_url(options.store or "")
        print(f"cantina: --store {where}: Redis cannot be reached ({err})", file=sys.stderr)
        return 1
    except StoreRefused as err:
        where = shown_url(options.store or "")
        print(f"cantina: --store {where}: Redis refused the host ({err})", file=sys.stderr)
        return 1
    return 0
