"""A player's remembered choices (theme, animation speed, pace), kept between runs.

Stored as a small JSON file in the user's config folder (platformdirs), or under
`CANTINA_CONFIG_DIR` when set (tests, or a portable install). A damaged file is reported
and replaced by defaults in memory; it is never overwritten until the player saves again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import msgspec
import platformdirs

from cantina.files import write_atomic

SPEEDS = {"off": 0.0, "fast": 0.5, "normal": 1.0, "slow": 1.6}
"""Animation speed factors by name: 0 turns animation off (tests use it)."""


class Preferences(msgspec.Struct, kw_only=True):
    theme: str = "cantina-amber"
    animation: str = "normal"
    bell: bool = True
    """Ring the terminal's bell when a person's turn comes round after AI turns."""
    pace: Annotated[float, msgspec.Meta(ge=0.0, le=5.0)] = 0.5
    """Seconds each thing that happens at a table (a roll, a payment, a call) stays on
    show before the next, and an AI seat thinks, so a person can follow."""

    @property
    def animation_speed(self) -> float:
        return SPEEDS.get(self.animation, 1.0)


def config_dir() -> Path:
    override = os.environ.get("CANTINA_CONFIG_DIR")
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("cantina", appauthor=False))


def path() -> Path:
    return config_dir() / "preferences.json"


def load() -> tuple[Preferences, str | None]:
    """The saved preferences, or defaults and a one-line reason when the file is damaged."""
    file = path()
    try:
        return msgspec.json.decode(file.read_bytes(), type=Preferences), None
    except FileNotFoundError:
        return Preferences(), None
    except (OSError, msgspec.DecodeError) as err:
        return Preferences(), f"{file}: {err}; using defaults"


def save(preferences: Preferences) -> None:
    """Write atomically, as campaigns are saved: a crash leaves the old file or the new."""
    file = path()
    file.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(file, msgspec.json.format(msgspec.json.encode(preferences)))
