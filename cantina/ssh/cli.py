"""`cantina serve`'s arguments, turned into the host's options."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from cantina.ssh.limits import Limits, Startups
from cantina.ssh.serve import serve
from cantina.ssh.server import HostOptions
from cantina.ssh.workers import serve_workers

STRIKE_WAIT_TIMES = 10
"""An address held again and again waits at most this many times `--strike-wait` (by
default 30 s up to 300 s, as `Limits` has them)."""


def host_options(args: argparse.Namespace) -> HostOptions:
    """The host's options from `cantina serve`'s arguments (the command line has checked
    each number against its bounds)."""
    limits = dataclasses.replace(
        Limits(),
        max_sessions=args.max_sessions,
        per_address=args.per_address,
        idle_timeout=args.idle_timeout,
        login_timeout=args.login_grace,
        startups_per_address=args.startups_per_address,
        startups=Startups(*args.max_startups),
        work_rate=args.session_share,
        address_work_rate=args.address_share,
        work_burst=args.burst,
        strikes=args.strikes,
        strike_wait=args.strike_wait,
        strike_wait_max=STRIKE_WAIT_TIMES * args.strike_wait,
    )
    return HostOptions(
        host=args.host,
        port=args.port,
        host_key=args.host_key,
        authorized_keys=args.authorized_keys,
        open=args.open,
        guests=args.guests,
        limits=limits,
        away_grace=args.away_grace,
        tables_per_player=args.tables_per_player,
        max_tables=args.max_tables,
        save_dir=getattr(args, "save_dir", None),
        store=None if args.store == "memory" else args.store,
    )


def serve_command(args: argparse.Namespace) -> int:
    """Host the cantina; a file named that is not there, or not a file, is refused at once
    (the command line has checked the numbers)."""
    workers = getattr(args, "workers", 1)
    if workers > 1 and args.store == "memory":
        print(
            f"cantina: --workers {workers} needs --store redis://HOST:PORT/DB: each worker "
            "is a process of its own, and they share the lobby and tables through Redis",
            file=sys.stderr,
        )
        return 2
    for flag, path in (("--authorized-keys", args.authorized_keys), ("--host-key", args.host_key)):
        if path is None:
            continue
        if flag == "--host-key" and not path.exists():
            refuse_new_key_folder(path)
            continue  # a host key that is not there yet is made
        if not path.is_file():
            what = "is not a file" if path.exists() else "is not there"
            raise SystemExit(f"cantina: {flag} {path} {what}")
    if workers > 1:
        return serve_workers(host_options(args), workers)
    return serve(host_options(args))


def refuse_new_key_folder(path: Path) -> None:
    """A new host key named by `--host-key` is made only in a folder that is there, as
    `ssh-keygen -f` does: a mistyped folder would otherwise be made, quietly, around a
    new key, and returning players be shown a host they do not know."""
    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "is not there"
        raise SystemExit(
            f"cantina: --host-key {path}: the folder {folder} {what}; make it first,"
            " or name a key in a folder that is"
        )
