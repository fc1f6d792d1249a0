"""AI speed: the Expert's solve time, its decision time, and sim throughput with AI seats.

Targets: a solve (the first evaluation at a fresh table, caches cleared) at most 0.5 s;
an Expert decision at most 1 ms at p99; sim throughput is reported as games per second.
Medians and percentiles from one run on this machine.

    python3 dev.py bench     (or: .venv/bin/python benchmarks/bench_ai.py)
"""

from __future__ import annotations

import argparse
import statistics
import time

from cantina.ai import victim_odds, vigo_odds
from cantina.ai.player import TableAI
from cantina.ai.temperament import temperament
from cantina.games.dice import Dice
from cantina.games.valdes import ValDesSettings
from cantina.games.victim import VictimGame, VictimSettings
from cantina.games.vigo import VigoGame, VigoSettings
from cantina.sim import simulate

TABLES = {
    "vigo": (VigoSettings(seats=4), "Expert,Bold,Cautious,Reckless"),
    "vigo+mercy": (VigoSettings(seats=4, mercy=True), "Expert,Bold,Cautious,Reckless"),
    "vigo+rising": (VigoSettings(seats=4, rising_stakes=True), "Expert,Bold,Cautious,Reckless"),
    "valdes": (ValDesSettings(seats=4, ante=1), "Expert,Superstitious,Bold,Rookie"),
    "victim": (VictimSettings(), "Expert,Treacherous,Loyal"),
}


def seats(names: str):
    return [temperament(name) for name in names.split(",")]


def solve_times(repeats: int) -> None:
    print("Expert solve: first evaluation at a fresh table, caches cleared (target <= 0.5 s)")
    for label, new in (
        ("Victim! (health 5,5,5)", lambda: VictimGame.new(VictimSettings(), Dice(1))),
        ("Vigo's Favor, 5 seats", lambda: VigoGame.new(VigoSettings(), Dice(1))),
        ("Vigo's Favor, 5 seats, mercy", lambda: VigoGame.new(VigoSettings(mercy=True), Dice(1))),
        (
            "Vigo's Favor, 5 seats, rising",
            lambda: VigoGame.new(VigoSettings(rising_stakes=True), Dice(1)),
        ),
    ):
        times = []
        for _ in range(repeats):
            victim_odds.clear_cache()
            vigo_odds.clear_memo()
            game = new()
            ai = TableAI(
                seats("Expert,Expert,Expert" if "Victim" in label else "Expert," * 4 + "Expert")
            )
            start = time.perf_counter()
            ai.choose(game)
            times.append(time.perf_counter() - start)
        print(
            f"  {label:<34} median {statistics.median(times) * 1000:8.1f} ms  "
            f"max {max(times) * 1000:8.1f} ms"
        )


def decision_times(games: int) -> None:
    print("Expert decisions in play, warm caches (target p99 <= 1 ms)")
    for label, (settings, names) in TABLES.items():
        game_id = label.split("+")[0]
        table = seats(names)
        expert_times: list[float] = []
        ai = TableAI(table)
        dice = Dice(3)
        for _ in range(games):
            if game_id == "vigo":
                game = VigoGame.new(settings, dice)
            elif game_id == "victim":
                game = VictimGame.new(settings, dice)
            else:
                from cantina.games.valdes import ValDesGame

                game = ValDesGame.new(settings, dice)
            while (decision := game.pending) is not None:
                start = time.perf_counter()
                action = ai.choose(game)
                elapsed = time.perf_counter() - start
                if table[decision.seat].best_response:
                    expert_times.append(elapsed)
                game.apply(decision.seat, action)
        expert_times.sort()
        p99 = expert_times[int(0.99 * (len(expert_times) - 1))]
        print(
            f"  {label:<12} {len(expert_times):>7,} decisions  median "
            f"{statistics.median(expert_times) * 1e6:7.1f} us  p99 {p99 * 1e6:8.1f} us  "
            f"max {expert_times[-1] * 1e3:7.2f} ms"
        )


def throughput(games: int) -> None:
    print(f"Sim throughput with AI seats ({games:,} games each, one run)")
    for label, (settings, names) in TABLES.items():
        game_id = label.split("+")[0]
        # every mercy round solves afresh (new banks, ~0.1 s): fewer games keep this short
        played = max(games // 20, 10) if label == "vigo+mercy" else games
        start = time.perf_counter()
        simulate(game_id, seats(names), played, 1, settings)
        elapsed = time.perf_counter() - start
        unit = "laps" if game_id == "vigo" else "games"
        print(f"  {label:<12} {names:<34} {played / elapsed:>9,.1f} {unit}/s ({played:,} played)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    solve_times(args.repeats)
    decision_times(args.games)
    throughput(args.games)


if __name__ == "__main__":
    main()
