"""Join codes, that name a table, and guests' rejoin codes, that put a new connection
back in a guest's seat: how they are drawn, and how many wrong rejoin codes a person
and an address may enter."""

from __future__ import annotations

import secrets

CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Join codes: no 0/O, 1/I/L to misread."""
CODE_LENGTH = 4
REJOIN_LENGTH = 6
"""Rejoin codes: 31**6, about 887 million, against a few tries a connection."""
REJOIN_TRIES = 5
"""Wrong rejoin codes one person (a guest: one connection) may enter."""
REJOIN_TRIES_PER_ADDRESS = 20
"""Wrong rejoin codes from one address in REJOIN_WINDOW, over all its connections (a new
guest connection is a new person, with tries of its own)."""
REJOIN_WINDOW = 600.0


def draw_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def new_rejoin_code(taken: set[str]) -> str:
    """A rejoin code no seat has (`taken`)."""
    while True:
        code = "".join(secrets.choice(CODE_LETTERS) for _ in range(REJOIN_LENGTH))
        if code not in taken:
            return code
