"""Temperaments: named profiles of a few numbers, loaded from `temperaments.toml`.

Behaviour is data so that a new opponent is a new table in the file, and so that the
Expert's best reply (Victim!) can treat every other temperament as an exact distribution.
"""

from __future__ import annotations

import functools
import tomllib
from importlib.resources import files
from typing import Annotated

import msgspec

Unit = Annotated[float, msgspec.Meta(ge=-1.0, le=1.0)]


class Temperament(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How an AI seat bends the exact odds; see the comments in temperaments.toml."""

    name: str
    description: str
    risk: Unit = 0.0
    greed: Annotated[float, msgspec.Meta(ge=0.0, le=1.0)] = 0.0
    loyalty: Unit = 0.0
    superstition: Unit = 0.0
    noise: Annotated[float, msgspec.Meta(ge=0.0, le=100.0)] = 0.0
    best_response: bool = False


@functools.cache
def temperaments() -> dict[str, Temperament]:
    """Every temperament shipped with the package, by name, in the file's order."""
    raw = tomllib.loads(files("cantina.ai").joinpath("temperaments.toml").read_text("utf-8"))
    return {
        name: msgspec.convert({"name": name, **fields}, Temperament) for name, fields in raw.items()
    }


def temperament(name: str) -> Temperament:
    """Look a temperament up by name, case-insensitively, with a clear error."""
    by_lower = {key.lower(): value for key, value in temperaments().items()}
    try:
        return by_lower[name.strip().lower()]
    except KeyError:
        known = ", ".join(temperaments())
        raise ValueError(f"no temperament {name!r}; choose from {known}") from None
