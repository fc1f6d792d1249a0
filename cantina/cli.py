"""The `cantina` command line.

Kept free of heavy imports: each command imports what it needs when it runs, so
`cantina --version` and the local start path never pay for what only other commands use.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import cantina

DESCRIPTION = """\
Cantina: chance-cube dice games from a space cantina, in your terminal.
Three games: Vigo's Favor, Val-Des and Victim!"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cantina", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"cantina {cantina.__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    parser.parse_args(argv)
    parser.print_help()
    return 0
