"""What each flag of the `cantina` command takes, and how a bad one is refused: in one
line on stderr, quoting what was given (cut short), never with a usage block or a
traceback. The bounds are the product's own limits, named here once."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import urllib.parse
from collections.abc import Callable
from typing import NoReturn

from cantina.text import clean_text

MAX_GAMES = 1_000_000
"""The most games one `sim` plays: minutes to an hour of play (Ctrl-C reports those played
so far), and each game's nets are kept for the intervals."""
MAX_JOBS = 256
"""The most processes one `tournament` runs: far more than cores gains nothing."""
MAX_SEED = 2**63 - 1
"""A seed as a campaign save holds it (`cantina.campaign.model.Seed`)."""
MAX_DELAY = 60.0
"""The longest pause between narrated lines, in seconds."""
MAX_SESSIONS = 128
"""The most SSH sessions at once: more could never open, as the host takes no more
connections than this at once (`cantina.ssh.limits.Limits.max_connections`)."""
MAX_TABLES = 64
"""The most shared tables a host keeps open unless told (`cantina.lobby.table.MAX_TABLES`),
so the most a player may have open (`--tables-per-player`)."""
MOST_TABLES = 1024
"""The most `--max-tables` may be: each table costs every host of a shared lobby a dealer."""
MAX_WAIT = 3600.0
"""The longest grace (to log in, or for an absent player) a host may give, in seconds."""
MAX_IDLE = 7 * 86400.0
"""The longest idle timeout: a week."""
MAX_STARTUPS = 1024
"""The most connections not yet logged in a host may hold at once."""
MAX_WORKERS = 4 * (os.cpu_count() or 1)
"""The most host processes of one `serve`: past a few a core they only add memory."""
MAX_STRIKES = 100
"""The most strikes within a minute an address may earn before it is held: past that,
its sessions would be held by nothing (`--strikes 0` says so plainly)."""
MAX_STRIKE_WAIT = 3600.0
"""The longest first wait of an address held for its sessions' abuse: an hour (doubled
each time it comes back, up to ten times that). Longer is a ban, a firewall's work."""
MAX_BURST = 10.0
"""The most seconds of the host's time a session may use at once (a burst past a few
seconds is one player holding every other up for that long)."""


def one_line(text: str) -> str:
    """`text` as one line safe to print: its whitespace (newlines too) single spaces, and
    no control characters, whatever an argument held."""
    return clean_text(" ".join(text.split()))


def fail(message: str) -> NoReturn:
    """Stop the command with one line on stderr (status 1): for what the command found
    (a save missing or damaged, a folder that is a file), not for what it was given."""
    raise SystemExit(f"cantina: {one_line(message)}")


def refuse(message: str) -> NoReturn:
    """Stop the command for a value it was given that it cannot take (seats, settings,
    names): one line on stderr, status 2, as argparse refuses a flag's value, so a script
    tells a bad command line from a failed run the same way for every check."""
    print(f"cantina: {one_line(message)}", file=sys.stderr)
    raise SystemExit(2)


def shown(text: str, limit: int = 40) -> str:
    """An argument as an error quotes it: in quotes, and cut short when long."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class Parser(argparse.ArgumentParser):
    """argparse, with every complaint about the arguments on one line on stderr (status
    2): no usage block, and a pointer to the help instead."""

    def error(self, message: str) -> NoReturn:
        found = re.fullmatch(r"argument ([^:]+): (.*)", message, re.DOTALL)
        if found:
            name, said = found[1].split("/")[0], found[2]
            choice = re.fullmatch(r"invalid choice: (.*) \(choose from (.*)\)", said, re.DOTALL)
            if choice:
                choices = ", ".join(c.strip("'") for c in choice[2].split(", "))
                message = f"there is no {name.lower()} {choice[1]}; choose from {choices}"
            elif said.startswith("must "):
                message = f"{name} {said}"
            elif said == "expected one argument":
                message = f"{name} needs a value"
            else:
                message = f"{name}: {said}"
        else:
            message = f"{message} (see `{self.prog} --help`)"
        self.exit(2, f"cantina: {one_line(message)}\n")


def whole(low: int | None, high: int | None, unit: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (either may be open)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, not {shown(text)}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {bounds(low, high, unit)}, not {value}")
        return value

    return parse


def number(low: float, high: float, what: str, span: str) -> Callable[[str], float]:
    """An argparse type: a number of `what` from `low` to `high` (said as `span`)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be a number of {what}, not {shown(text)}"
            ) from None
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"must be {span}, not {shown(text.strip())[1:-1]}")
        return value

    return parse


def seconds(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a number of seconds from `low` to `high`."""
    return number(low, high, "seconds", f"{low:g} to {high:g} seconds")


def share(low: float) -> Callable[[str], float]:
    """An argparse type: seconds of the host's time a second, from `low` to 1 (a share
    of one core: more than all of it means nothing)."""
    return number(low, 1, "seconds a second", f"{low:g} to 1 (seconds a second)")


def startups(text: str) -> tuple[int, int, int]:
    """An argparse type: OpenSSH's MaxStartups, `start:rate:full` (or one number, a hard
    cap), with 1 <= start <= full <= MAX_STARTUPS and a rate in percent."""
    parts = text.split(":")
    if len(parts) == 1:
        parts = [parts[0], "100", parts[0]]
    try:
        if len(parts) != 3:
            raise ValueError
        start, rate, full = (int(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be START:RATE:FULL (three whole numbers), not {shown(text)}"
        ) from None
    if not 0 <= rate <= 100:
        raise argparse.ArgumentTypeError(f"must have a RATE of 0 to 100 (percent), not {rate}")
    if not 1 <= start <= full <= MAX_STARTUPS:
        raise argparse.ArgumentTypeError(
            f"must have 1 <= START <= FULL <= {MAX_STARTUPS:,}, not {shown(text)}"
        )
    return start, rate, full


def store_url(text: str) -> str:
    """`memory`, or the address of a Redis: redis://, rediss:// or unix://, whose DB (the
    path of a redis:// one, or its `?db=`) is a number (redis-py would take `/abc` for DB 0
    without a word). Whether the Redis has that DB is its to say, as the host starts."""
    if text == "memory":
        return text
    if not text.startswith(("redis://", "rediss://", "unix://")):
        raise argparse.ArgumentTypeError(
            f"{shown(text)} is neither memory nor a redis://HOST:PORT/DB address"
        )
    address = urllib.parse.urlsplit(text)
    dbs = urllib.parse.parse_qs(address.query).get("db", [])
    if not address.scheme.startswith("unix"):
        dbs.append(address.path.strip("/"))
    for db in dbs:
        if db and not db.isdigit():
            raise argparse.ArgumentTypeError(
                f"{shown(text)}: the DB must be a number (0 to 15 on a Redis as it comes), "
                f"not {shown(db)}"
            )
    try:
        address.port  # noqa: B018 (it checks the port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown(text)}: the port is not a port") from None
    return text


def store_from_environment() -> str:
    """`cantina serve`'s store when `--store` is not given: CANTINA_STORE, else memory."""
    given = os.environ.get("CANTINA_STORE", "").strip()
    if not given:
        return "memory"
    try:
        return store_url(given)
    except argparse.ArgumentTypeError as err:
        fail(f"CANTINA_STORE: {err}")


def not_empty(text: str) -> str:
    """An argparse type: any text but none at all (an empty path would mean `.`)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def bounds(low: int | None, high: int | None, unit: str = "") -> str:
    """ "1 to 100", "1 or more"."""
    unit = f" {unit}" if unit else ""
    if low is not None and high is not None:
        return f"{low:,} to {high:,}{unit}"
    if low is not None:
        return f"{low:,}{unit} or more"
    return f"at most {high:,}{unit}"
