"""The saves list, read fast: each save's `listing` (name, game, roster, round, banks) is
first in its file, so listing a folder reads a few hundred bytes of each save, however
long its history. A file whose first bytes are not such a listing (an older format, or a
damaged file) is loaded whole instead, and says what is wrong with it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import msgspec

from cantina.campaign.model import FORMAT, Listing
from cantina.campaign.series import summary_text, where_text
from cantina.seating import Seat, clean_name

HEAD = 8192
"""Bytes read from the start of a save: a listing at its largest (eight seats of sixteen
characters, each escaped six bytes wide) stays well inside."""


class _Head(msgspec.Struct, forbid_unknown_fields=True):
    format: Literal[3]  # FORMAT: the first with a listing
    listing: Listing


assert FORMAT == 3, "a new format: say here how its listing is read"


def _object_end(data: bytes, start: int) -> int | None:
    """Where the JSON object opening at `start` ends (just after its `}`), or None when it
    does not end within `data`. Strings are skipped whole, escapes included."""
    depth = 0
    in_string = escaped = False
    for i in range(start, len(data)):
        byte = data[i]
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte == 0x7B:  # {
            depth += 1
        elif byte == 0x7D:  # }
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def read_listing(path: Path) -> Listing | None:
    """The listing at the start of a save, if it has one and the file ends as a whole save
    does (a file cut short is loaded whole, to say so); None otherwise."""
    try:
        with open(path, "rb") as file:
            head = file.read(HEAD)
            size = os.fstat(file.fileno()).st_size
            if size > len(head):
                file.seek(size - 2)
            tail = file.read(2) if size > len(head) else head[-2:]
    except OSError:
        return None
    return listing_in(head, tail)


def listing_in(head: bytes, tail: bytes) -> Listing | None:
    """The listing in a save's first `HEAD` bytes, if it has one and its last two bytes
    end it as a whole save does; None otherwise (for saves kept elsewhere than a file)."""
    if not tail.rstrip(b"\n").endswith(b"}"):
        return None
    key = head.find(b'"listing"', 0, 64)
    brace = head.find(b"{", key) if key >= 0 else -1
    end = _object_end(head, brace) if brace >= 0 else None
    if end is None:
        return None
    try:
        return msgspec.json.decode(head[:end] + b"}", type=_Head).listing
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None


class Listed:
    """A campaign as the saves list shows it (its name and seats cleaned, as everywhere)."""

    def __init__(self, listing: Listing) -> None:
        self.listing = listing
        self.name = clean_name(listing.name, "Campaign", 40)
        self.game = listing.game
        self.seats = tuple(
            Seat(clean_name(s.name, f"Player {i}"), s.temperament)
            for i, s in enumerate(listing.roster, 1)
        )
        self.over = listing.over
        self.played = listing.played

    def where(self) -> str:
        d = self.listing
        number = d.played + (0 if d.over else 1)
        return where_text(d.game, number, d.rounds, len(d.roster), d.laps)

    def summary(self) -> str:
        return summary_text([s.name for s in self.seats], self.listing.banks, self.over)
