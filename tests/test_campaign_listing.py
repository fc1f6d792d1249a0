"""The saves list reads each save's listing (its first few hundred bytes), not its whole
history, so a folder of long campaigns lists at once; what it shows is what the whole
campaign says, and a listing edited apart from the rest is refused when the save opens."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cantina.campaign.errors import Damaged
from cantina.campaign.listing import HEAD, read_listing
from cantina.campaign.store import Store, load

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import drive, new_campaign

FIXTURES = Path(__file__).parent / "fixtures"


def _played(folder: Path, game: str, decisions: int, rounds: int = 4) -> Path:
    store = Store(folder)
    path = store.create(new_campaign(game, decisions + 1, rounds))
    with store.open(path) as session:
        drive(session.campaign, decisions, lambda *_: None)
    return path


@pytest.mark.parametrize("game", ["vigo", "valdes", "victim"])
def test_the_list_shows_what_the_whole_campaign_says(tmp_path: Path, game: str) -> None:
    """Fresh, mid-round, between rounds and over: name, game, where and standings."""
    paths = [_played(tmp_path / str(n), game, n) for n in (0, 1, 3, 400)]
    for path in paths:
        (entry,) = Store(path.parent).entries()
        whole = load(path)
        assert entry.campaign is not None
        shown = entry.campaign
        assert (shown.name, shown.game, shown.over) == (whole.name, whole.game, whole.over)
        assert shown.where() == whole.where() and shown.summary() == whole.summary()
    assert load(paths[-1]).over


def test_listing_a_save_reads_only_its_first_bytes(tmp_path: Path, monkeypatch) -> None:
    path = _played(tmp_path, "valdes", 200, rounds=40)
    assert path.stat().st_size > 4 * HEAD, "a save with some history"
    shutil.copy(FIXTURES / "campaign-format-2-vigo.json", tmp_path / "older.json")
    loaded: list[str] = []
    real = load

    def counted(file: Path):
        loaded.append(file.name)
        return real(file)

    monkeypatch.setattr("cantina.campaign.store.load", counted)
    entries = Store(tmp_path).entries()
    assert sorted(e.path.name for e in entries if e.campaign) == ["older.json", path.name]
    assert loaded == ["older.json"], "only the older format (no listing) is loaded whole"


def test_a_listing_edited_apart_from_its_campaign_is_refused_on_opening(tmp_path: Path) -> None:
    path = _played(tmp_path, "vigo", 3)
    doc = json.loads(path.read_bytes())
    doc["listing"]["banks"] = [999] * len(doc["banks"])
    path.write_text(json.dumps(doc, indent=1))
    (entry,) = Store(tmp_path).entries()
    assert entry.campaign is not None and "999" in entry.campaign.summary()
    with pytest.raises(Damaged, match=r"\$\.listing: edited: differs from the campaign"):
        Store(tmp_path).open(path)
    # refused once, it is listed as damaged (by name) until the file changes
    (entry,) = Store(tmp_path).entries()
    assert entry.campaign is None and entry.problem is not None
    assert entry.problem.field == "$.listing" and entry.called == doc["name"]
    path.write_text(json.dumps(doc, indent=2))
    (entry,) = Store(tmp_path).entries()
    assert entry.campaign is not None, "a changed file is listed from its listing again"


def test_a_file_cut_short_is_not_listed_from_its_first_bytes(tmp_path: Path) -> None:
    path = _played(tmp_path, "valdes", 30, rounds=10)
    assert read_listing(path) is not None
    path.write_bytes(path.read_bytes()[:-40])
    assert read_listing(path) is None
    (entry,) = Store(tmp_path).entries()
    assert entry.campaign is None and entry.problem is not None
