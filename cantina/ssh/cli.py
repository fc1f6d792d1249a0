"""`cantina serve`'s arguments, turned into the host's options."""

from __future__ import annotations

import argparse
import dataclasses

from cantina.ssh.limits import Limits
from cantina.ssh.serve import serve
from cantina.ssh.server import HostOptions


def serve_command(args: argparse.Namespace) -> int:
    limits = dataclasses.replace(Limits(), max_sessions=max(1, args.max_sessions))
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
