"""`cantina watch`: one AI-only game, narrated line by line on the terminal."""

from __future__ import annotations

import sys
import time
from typing import Any

from cantina.ai.player import TableAI
from cantina.ai.temperament import Temperament
from cantina.games import GAMES
from cantina.games.dice import Dice
from cantina.narration import Narrator
from cantina.sim import play


def watch(game_id: str, seats: list[Temperament], settings: Any, seed: int, delay: float) -> int:
    info = GAMES[game_id]
    names = [f"{t.name} ({n})" for n, t in enumerate(seats, start=1)]
    narrate = Narrator(names)
    game = info.new(settings, Dice(seed))
    print(f"{info.title}, seed {seed}: " + ", ".join(names), flush=True)
    for event in play(game, TableAI(seats)):
        line = narrate(event)
        if line:
            print(line, flush=True)
            if delay:
                time.sleep(delay)
    sys.stdout.flush()
    return 0
