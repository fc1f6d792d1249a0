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


class WrongCodes:
    """Wrong rejoin codes entered: by person while connected (up to `tries`), and by
    address over REJOIN_WINDOW (up to REJOIN_TRIES_PER_ADDRESS): nobody guesses at
    others' seats."""

    def __init__(self, tries: int) -> None:
        self.tries = tries
        self.by_identity: dict[str, int] = {}
        """Wrong rejoin codes entered, by identity, while connected."""
        self.by_address: dict[str, tuple[float, int]] = {}
        """Wrong rejoin codes by address: since when, how many (for REJOIN_WINDOW)."""
        self.tried: dict[str, set[str]] = {}
        """The wrong codes each person entered, while connected: one entered again (Enter
        pressed twice, a code sent again after "no seat has that rejoin code") is no new
        guess, and counts once: a guest who did that ran out of tries for their seat."""

    def _from(self, address: str, now: float) -> tuple[float, int]:
        since, wrong_here = self.by_address.get(address, (now, 0))
        if now - since > REJOIN_WINDOW:
            since, wrong_here = now, 0
        return since, wrong_here

    def check(self, identity: str, address: str, now: float) -> None:
        """ValueError when this person, or their address, has no tries left."""
        _, wrong_here = self._from(address, now)
        if self.by_identity.get(identity, 0) >= self.tries:
            raise ValueError("too many wrong rejoin codes from this connection")
        if address and wrong_here >= REJOIN_TRIES_PER_ADDRESS:
            raise ValueError("too many wrong rejoin codes from your address; try again later")

    def wrong(self, identity: str, address: str, now: float, code: str) -> ValueError:
        """Count a wrong code (once, however often this person enters it); the error
        that tells the person how many tries are left."""
        since, wrong_here = self._from(address, now)
        tried = self.tried.setdefault(identity, set())
        if code in tried:
            return self._told(identity)
        tried.add(code)
        self.by_identity[identity] = self.by_identity.get(identity, 0) + 1
        if address:
            self.by_address[address] = (since, wrong_here + 1)
            for old, (began, _) in list(self.by_address.items()):  # old ones go
                if now - began > REJOIN_WINDOW:
                    del self.by_address[old]
        return self._told(identity)

    def forget(self, identity: str) -> None:
        """This person's last session ended: what they entered goes with it."""
        self.by_identity.pop(identity, None)
        self.tried.pop(identity, None)

    def _told(self, identity: str) -> ValueError:
        left = self.tries - self.by_identity.get(identity, 0)
        more = f"{left} more {'try' if left == 1 else 'tries'}" if left else "no more tries"
        return ValueError(f"no seat has that rejoin code ({more})")
