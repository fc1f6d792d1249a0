"""The one atomic writer, for campaign saves and preferences alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from cantina import preferences as prefs
from cantina.campaign import store
from cantina.files import write_atomic


def test_a_write_replaces_the_file_whole_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "save.json"
    write_atomic(target, b"old")
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["save.json"]


def test_without_replace_an_existing_file_is_never_touched(tmp_path: Path) -> None:
    target = tmp_path / "save.json"
    target.write_bytes(b"kept")
    with pytest.raises(FileExistsError):
        write_atomic(target, b"other", replace=False)
    assert target.read_bytes() == b"kept"
    assert [p.name for p in tmp_path.iterdir()] == ["save.json"]


@pytest.fixture
def config(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("CANTINA_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


def test_preferences_are_saved_through_it(config: Path, monkeypatch) -> None:
    written: list[Path] = []
    monkeypatch.setattr(prefs, "write_atomic", lambda path, data: written.append(path))
    prefs.save(prefs.Preferences(theme="cantina-phosphor"))
    assert written == [config / "preferences.json"]


def test_preferences_come_back_as_saved(config: Path) -> None:
    prefs.save(prefs.Preferences(theme="cantina-phosphor", pace=0.5))
    assert prefs.load() == (prefs.Preferences(theme="cantina-phosphor", pace=0.5), None)
    assert [p.name for p in config.iterdir()] == ["preferences.json"]


def test_the_store_still_offers_the_writer_by_its_old_name() -> None:
    assert store.write_atomic is write_atomic
