"""The table's one random source, and a scripted stand-in for worked examples.

Every die in every game is drawn through a `Dice`, so a table can be replayed from its
seed and its decisions, and saved mid-game with the generator's exact position.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Literal, TypeVar

import msgspec

Colour = Literal["red", "blue"]
"""A chance cube's face: three red faces and three blue, so each colour is a 1/2 chance."""

T = TypeVar("T")


class DiceState(msgspec.Struct, frozen=True):
    """The Mersenne Twister's full state (`random.Random.getstate()`) as plain JSON data."""

    version: int
    internal: tuple[int, ...]
    gauss_next: float | None = None


class Dice:
    """A seeded random source with one method per kind of die the games use.

    All draws come from `getrandbits` with rejection, so each face is exactly equally
    likely and the sequence depends only on the seed (or the restored state).
    """

    __slots__ = ("_bits", "_rng")

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._bits = self._rng.getrandbits

    def below(self, n: int) -> int:
        """A uniform whole number in `range(n)`; `n` must be at least 1."""
        if n == 1:
            return 0
        k = (n - 1).bit_length()
        r = self._bits(k)
        while r >= n:
            r = self._bits(k)
        return r

    def cube(self) -> Colour:
        """Roll a chance cube."""
        return "red" if self._bits(1) else "blue"

    def d6(self) -> int:
        return self.below(6) + 1

    def d12(self) -> int:
        return self.below(12) + 1

    def face(self, faces: Sequence[str]) -> str:
        """Roll a die with custom faces (Victim!'s Support, Sabotage and Neutral dice)."""
        return faces[self.below(len(faces))]

    def choice(self, options: Sequence[T]) -> T:
        """Pick one option uniformly: for AI seats and random drivers, from the same source."""
        return options[self.below(len(options))]

    def uniform(self) -> float:
        """A float in [0, 1) with 53 random bits: for weighted AI choices and noise."""
        return self._bits(53) * 1.1102230246251565e-16  # 2 ** -53

    def state(self) -> DiceState:
        version, internal, gauss_next = self._rng.getstate()
        return DiceState(version, internal, gauss_next)

    @classmethod
    def from_state(cls, state: DiceState) -> Dice:
        dice = cls()
        try:
            dice._rng.setstate((state.version, tuple(state.internal), state.gauss_next))
        except (ValueError, TypeError, OverflowError) as err:
            raise ValueError(
                f"the saved random source is not a valid generator state: {err}"
            ) from None
        return dice


class ScriptExhausted(AssertionError):
    """A scripted table asked for more dice than its script holds."""


class ScriptedDice(Dice):
    """Dice that show the given faces in order, to reproduce a rule text's worked example.

    Each entry is what one roll shows: a colour for a chance cube, a number for a d6 or
    d12, a face name for a custom die. A roll of the wrong kind fails at once, naming the
    position in the script, so a wrong script never passes silently.
    """

    __slots__ = ("_script", "_used")

    def __init__(self, script: Iterable[str | int]) -> None:
        super().__init__(0)
        self._script = list(script)
        self._used = 0

    @property
    def remaining(self) -> int:
        return len(self._script) - self._used

    def _next(self, what: str, allowed: Iterable[str | int]) -> str | int:
        if self._used >= len(self._script):
            raise ScriptExhausted(f"script ran out at roll {self._used + 1} ({what})")
        value = self._script[self._used]
        if value not in allowed:
            raise ScriptExhausted(
                f"script roll {self._used + 1} is {value!r}, but the game rolled {what}"
            )
        self._used += 1
        return value

    def cube(self) -> Colour:
        return self._next("a chance cube", ("red", "blue"))  # type: ignore[return-value]

    def d6(self) -> int:
        return self._next("a d6", range(1, 7))  # type: ignore[return-value]

    def d12(self) -> int:
        return self._next("a d12", range(1, 13))  # type: ignore[return-value]

    def face(self, faces: Sequence[str]) -> str:
        return self._next(f"a die with faces {sorted(set(faces))}", faces)  # type: ignore[return-value]

    def state(self) -> DiceState:
        raise TypeError("scripted dice belong to tests and cannot be saved")
