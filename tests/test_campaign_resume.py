"""A campaign resumed continues exactly: killed between rounds or in the middle of one,
then resumed by another process, it tells every event an unbroken run tells, AI choices
included (each round's AI random source is fixed by what the save holds)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cantina.campaign.series import decode_moves
from cantina.campaign.store import Store

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import drive, new_campaign

DRIVER = Path(__file__).parent / "campaign_driver.py"
ROUNDS = {"vigo": 4, "valdes": 3, "victim": 3}


def _unbroken(game: str, seed: int) -> tuple[list[bytes], list[int]]:
    """Every decision's events of a campaign played through without a stop, and how many
    decisions each round took."""
    campaign = new_campaign(game, seed, ROUNDS[game])
    events: list[bytes] = []
    drive(campaign, -1, lambda _count, line: events.append(line))
    lengths = [len(decode_moves(game, r.moves)) for r in campaign.data.finished]
    return events, lengths


def _run(path: Path, n: int, *, kill: bool) -> list[bytes]:
    """A real process plays `n` decisions of the save (autosaving each), then is killed
    with SIGKILL (or, for the last leg, plays to the end and exits)."""
    mode = "stop" if kill else "play"
    process = subprocess.Popen(
        [sys.executable, str(DRIVER), mode, str(path), str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    lines: list[bytes] = []
    while True:
        line = process.stdout.readline()
        if not line or line == b"stopped\n":
            break
        if line != b"ready\n":
            lines.append(line.rstrip(b"\n").split(b" ", 1)[1])
    if kill:
        process.send_signal(signal.SIGKILL)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == (-signal.SIGKILL if kill else 0), err.decode()
    return lines


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_killed_between_and_mid_round_then_resumed_tells_every_event_as_unbroken(
    tmp_path: Path, game: str
) -> None:
    seed = 4242
    expected, lengths = _unbroken(game, seed)
    assert len(lengths) >= 2 and lengths[1] >= 2, lengths
    between = lengths[0]  # the first round just finished, the next not begun
    mid = between + lengths[1] // 2  # in the middle of the second round
    path = Store(tmp_path).create(new_campaign(game, seed, ROUNDS[game]))
    told = _run(path, between, kill=True)
    told += _run(path, mid - between, kill=True)
    told += _run(path, -1, kill=False)
    assert len(told) == len(expected)
    for n, (got, want) in enumerate(zip(told, expected, strict=True)):
        assert got == want, f"decision {n} differs after a resume"
