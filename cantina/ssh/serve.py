"""`cantina serve`: start the host, say where and with which key, run until stopped."""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
import sys
from urllib.parse import urlsplit, urlunsplit

from cantina.ssh.keys import (
    fingerprint,
    host_key_path,
    load_or_create_host_key,
    read_authorized_keys,
)
from cantina.ssh.server import Host, HostOptions
from cantina.store.memory import StoreAway


def tune_collector() -> None:
    """Move everything loaded at start-up (textual, the rules, stylesheets) out of the
    collector's sight, and collect the young generations in smaller, more frequent steps.
    With every session in one process a collection pauses all of them at once: measured
    with 64 sessions typing (benchmarks/bench_ssh.py), Python's defaults paused for up to
    370 ms (full collections over every session's objects), and fewer, larger young
    collections (20000, 20, 50) for up to 290 ms; these settings for about 30 ms."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(5000, 4, 100)


def warm_up() -> None:
    """Import what every session needs once, before the first player waits for it."""
    from cantina.ssh import app  # noqa: F401


async def run_host(options: HostOptions, ready=None, *, tune_gc: bool = True) -> None:
    key_path = host_key_path(options.host_key)
    key = load_or_create_host_key(key_path)
    authorized = read_authorized_keys(options.authorized_keys)
    host = Host(options, authorized)
    await host.start(key)
    warm_up()
    if tune_gc:
        tune_collector()
    print(f"cantina: serving on {options.host} port {host.port}", flush=True)
    print(f"cantina: host key {key_path}", flush=True)
    print(f"cantina: host key fingerprint {fingerprint(key)}", flush=True)
    if options.open:
        print("cantina: --open: any key is admitted", flush=True)
    elif options.authorized_keys is not None:
        print(f"cantina: players' keys from {options.authorized_keys}", flush=True)
    if options.guests:
        print("cantina: --guests: clients without a key are admitted", flush=True)
    print(f"cantina: {settings_line(options)}", flush=True)
    if options.store:
        kept = len(host.lobby.tables) if host.lobby is not None else 0
        print(f"cantina: tables kept in {shown_url(options.store)}; {kept} taken up", flush=True)
    if ready is not None:
        ready(host)
    try:
        await asyncio.Event().wait()
    finally:
        await host.close()


def settings_line(options: HostOptions) -> str:
    """The host's limits in one line, as it starts."""
    limits = options.limits
    return (
        f"{limits.max_sessions} sessions, {limits.per_address} an address; "
        f"idle timeout {limits.idle_timeout:g} s; away grace {options.away_grace:g} s; "
        f"{options.tables_per_player} tables a player; logging in: "
        f"{limits.startups_per_address} an address, startups {limits.startups}, "
        f"grace {limits.login_timeout:g} s"
    )


def shown_url(url: str) -> str:
    """A store's address as printed: without its password, if it has one."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    where = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + where))


def log_to_stderr() -> None:
    """The host's own view: each login, refusal and disconnect (logger `cantina.ssh`,
    INFO) as one line on stderr, with the time."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s cantina: %(message)s"))
    for name in ("cantina.ssh", "cantina.store"):  # the store: Redis away, and back
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def serve(options: HostOptions) -> int:
    if not options.open and options.authorized_keys is None and not options.guests:
        print(
            "cantina: nobody could get in: give --authorized-keys FILE, or --open",
            file=sys.stderr,
        )
        return 2
    log_to_stderr()
    try:
        asyncio.run(run_host(options))
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
    return 0
