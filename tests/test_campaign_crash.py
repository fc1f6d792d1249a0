"""Saves survive crashes and refuse garbage: SIGKILL during autosaves, and a fuzz of
mutated, truncated and hostile files, each refused cleanly and left untouched."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from cantina.campaign.check import Damaged
from cantina.campaign.store import MAX_FILE, UNEXPECTED, Store, load

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import decisions, drive, new_campaign

DRIVER = Path(__file__).parent / "campaign_driver.py"
KILLS = 30


def test_sigkill_during_autosaves_leaves_a_save_at_most_one_decision_behind(
    tmp_path: Path,
) -> None:
    """Kill the playing process at random moments, many times, each time resuming the
    same file: every save left behind loads, and holds every decision the process had
    reported saved, plus at most the one it was making."""
    rng = random.Random(20261121)
    store = Store(tmp_path)
    path = store.create(new_campaign("valdes", seed=99, rounds=1000))
    reported_total = 0
    kills_mid_play = 0
    for _ in range(KILLS):
        process = subprocess.Popen(
            [sys.executable, str(DRIVER), "play", str(path), "-1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert process.stdout is not None
        assert process.stdout.readline() == b"ready\n", process.stderr.read()
        time.sleep(rng.uniform(0.0, 0.25))
        process.send_signal(signal.SIGKILL)
        out, _err = process.communicate(timeout=30)
        assert process.returncode == -signal.SIGKILL
        lines = [line for line in out.splitlines() if line.endswith(b"]")]
        if lines:
            kills_mid_play += 1
            reported_total = int(lines[-1].split(b" ", 1)[0])
        campaign = load(path)  # raises Damaged if the kill left a broken save
        saved = decisions(campaign)
        assert reported_total <= saved <= reported_total + 1
        reported_total = saved
        assert [e.path for e in store.entries()] == [path], "no stray file is listed"
    assert kills_mid_play >= KILLS // 2, "most kills should land while decisions are saved"
    assert reported_total > KILLS


def _valid_save(tmp_path: Path) -> bytes:
    store = Store(tmp_path)
    path = store.create(new_campaign("vigo", seed=12, rounds=9))
    with store.open(path) as session:
        drive(session.campaign, 9, lambda *_: None)
    data = path.read_bytes()
    path.unlink()
    return data


HOSTILE_VALUES: list[object] = [
    None,
    True,
    -1,
    0,
    2**70,
    -(2**63),
    1e308,
    "",
    "x" * 5000,
    "\x1b[2J",
    [],
    {},
    [[[[]]]],
    {"type": "SetStake", "stake": 99},
    {"type": "Nope"},
]


def _mutate(rng: random.Random, good: bytes) -> bytes:
    """One damaged variant of a good save: a cut, flipped bytes, garbage, or a JSON value
    swapped for a hostile one somewhere in the tree."""
    kind = rng.randrange(5)
    if kind == 0:
        return good[: rng.randrange(len(good))]
    if kind == 1:
        data = bytearray(good)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind == 2:
        return rng.randbytes(rng.randint(0, 400))
    doc = json.loads(good)
    nodes: list[tuple[object, object]] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                nodes.append((node, key))
                walk(value)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                nodes.append((node, i))
                walk(value)

    walk(doc)
    parent, key = rng.choice(nodes)
    if kind == 3 and isinstance(parent, dict) and rng.random() < 0.3:
        del parent[key]
    else:
        parent[key] = rng.choice(HOSTILE_VALUES)  # type: ignore[index]
    return json.dumps(doc).encode()


def test_fuzzed_saves_are_refused_cleanly_and_left_untouched(tmp_path: Path) -> None:
    good = _valid_save(tmp_path / "make")
    rng = random.Random(7)
    folder = tmp_path / "saves"
    folder.mkdir()
    refused = 0
    for n in range(3000):
        data = _mutate(rng, good)
        path = folder / f"fuzz-{n}.json"
        path.write_bytes(data)
        try:
            load(path)
        except Damaged as err:
            refused += 1
            assert str(err).startswith(path.name), err
            assert UNEXPECTED not in str(err), "every refusal has a reason of its own"
        # anything else (a crash) fails the test; a mutation that is still a valid
        # campaign (say, a changed name) simply loads
        assert path.read_bytes() == data
        if n % 60:
            path.unlink()  # keep a sample for the listing below
    assert refused > 2500
    deep = folder / "deep.json"
    deep.write_bytes(b'{"format": 2, "settings": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")
    huge = folder / "huge.json"
    huge.write_bytes(b" " * (MAX_FILE + 1))
    intact = folder / "intact.json"
    intact.write_bytes(good)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}
    entries = Store(folder).entries()
    assert {e.path for e in entries} == set(before)
    assert [e.path for e in entries if e.campaign is not None and e.path == intact] == [intact]
    reasons = {e.path.name: str(e.problem) for e in entries if e.problem}
    assert "deep.json" in reasons and "huge.json" in reasons and "too big" in reasons["huge.json"]
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}
    assert after == before, "listing never writes, renames or deletes a file"
    assert os.listdir(folder) == [p.name for p in before] or set(os.listdir(folder)) == {
        p.name for p in before
    }
