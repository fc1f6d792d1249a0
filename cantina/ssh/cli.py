"""`cantina serve`'s arguments, turned into the host's options."""

from __future__ import annotations

import argparse
import dataclasses

from cantina.ssh.limits import Limits
from cantina.ssh.serve import serve
from cantina.ssh.server import HostOptions


def serve_command(args: argparse.Namespace) -> int:
    """Host the cantina; a file named that is not there, or not a file, is refused at once
    (the command line has checked the numbers)."""
    for flag, path in (("--authorized-keys", args.authorized_keys), ("--host-key", args.host_key)):
        if path is None or (flag == "--host-key" and not path.exists()):
            continue  # a host key that is not there yet is made
        if not path.is_file():
            what = "is not a file" if path.exists() else "is not there"
            raise SystemExit(f"cantina: {flag} {path} {what}")
    limits = dataclasses.replace(Limits(), max_sessions=args.max_sessions)
    return serve(
        HostOptions(
            host=args.host,
            port=args.port,
            host_key=args.host_key,
            authorized_keys=args.authorized_keys,
            open=args.open,
            guests=args.guests,
            limits=limits,
            save_dir=getattr(args, "save_dir", None),
        )
    )
