"""The Expert against each other temperament: 3-seat Victim! and 4-seat Vigo's Favor.

For each temperament X it plays N games of Expert + two X (Victim!) and Expert + three X
(Vigo's Favor laps, no variants), seats rotating, and prints the Expert's win rate and net
per game with 95% intervals beside one X entry's, plus what X did. Not a timed test: a
measurement, run from the README.

    .venv/bin/python benchmarks/expert_vs_temperaments.py --games 20000
"""

from __future__ import annotations

import argparse
import time

from cantina.ai.temperament import temperament, temperaments
from cantina.games.victim import VictimSettings
from cantina.games.vigo import VigoSettings
from cantina.sim import simulate, wilson

GAMES = {"victim": (VictimSettings(), 2), "vigo": (VigoSettings(seats=4), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    expert = temperament("Expert")
    for game_id, (settings, rivals) in GAMES.items():
        print(
            f"\n{game_id}: Expert + {rivals} x rival, {args.games:,} games each, seed {args.seed}"
        )
        print(
            f"{'rival':<14}{'Expert win':>12}{'95% CI':>17}{'rival win':>11}{'Expert net':>12}"
            f"{'95% CI':>19}{'rival net':>11}   rival behaviour"
        )
        for rival in temperaments().values():
            if rival.best_response:
                continue
            start = time.perf_counter()
            result = simulate(game_id, [expert] + [rival] * rivals, args.games, args.seed, settings)
            seconds = time.perf_counter() - start
            data = result.to_json()
            me, them = data["seats"][0], data["seats"][1]
            low, high = wilson(me["wins"], args.games)
            net, net_low, net_high = me["net_per_game"]
            behaviour = ", ".join(f"{k} {v:.2f}" for k, v in them["behaviour"].items())
            print(
                f"{rival.name:<14}{me['win_rate']:>12.1%}{f'{low:.1%}-{high:.1%}':>17}"
                f"{them['win_rate']:>11.1%}{net:>+12.2f}{f'{net_low:+.2f} to {net_high:+.2f}':>19}"
                f"{them['net_per_game'][0]:>+11.2f}   {behaviour} ({seconds:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
