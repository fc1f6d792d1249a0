"""A campaign never loses a decision without a word: failed writes leave nothing behind,
a failed autosave is counted and tried again on leaving, and what cannot be done (a
read-only folder, a lock held elsewhere, a file nested too deeply) is said in one plain
sentence."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

from cantina.campaign.errors import CampaignError, Damaged, InUse, explain
from cantina.campaign.store import NESTED, UNEXPECTED, Store, load
from cantina.files import write_atomic

sys.path.insert(0, str(Path(__file__).parent))
from campaign_driver import decisions, drive, new_campaign


def _full_disk(*_args: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_write_cut_short_leaves_no_temporary_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("cantina.files.os.fsync", _full_disk)
    with pytest.raises(OSError):
        write_atomic(tmp_path / "duo.json", b"{}")
    with pytest.raises(OSError):
        write_atomic(tmp_path / "new.json", b"{}", replace=False)
    assert os.listdir(tmp_path) == []


def test_a_failed_autosave_is_counted_and_tried_again_on_leaving(
    tmp_path: Path, monkeypatch
) -> None:
    store = Store(tmp_path)
    path = store.create(new_campaign("valdes", 5, 3))
    failures: list[OSError] = []
    with store.open(path) as session:
        session.on_error = failures.append
        drive(session.campaign, 2, lambda *_: None)
        assert session.saved and session.unsaved == 0
        monkeypatch.setattr("cantina.campaign.store.write_atomic", _full_disk)
        drive(session.campaign, 3, lambda *_: None)
        assert len(failures) == 3 and not session.saved
        assert session.unsaved == 3
        assert decisions(load(path)) == 2, "the file holds the last good save"
        assert not session.settle(), "still full"
        monkeypatch.undo()
        assert session.settle() and session.saved and session.unsaved == 0
    assert decisions(load(path)) == 5
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_an_unsaved_campaign_can_be_exported_with_every_decision(
    tmp_path: Path, monkeypatch
) -> None:
    store = Store(tmp_path / "saves")
    path = store.create(new_campaign("vigo", 8, 3))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with store.open(path) as session:
        session.on_error = lambda _err: None
        monkeypatch.setattr("cantina.campaign.store.write_atomic", _full_disk)
        drive(session.campaign, 4, lambda *_: None)
        assert session.unsaved == 4
        monkeypatch.undo()
        copy = session.export(elsewhere)
        with pytest.raises(CampaignError, match="never replaces"):
            session.export(copy)
    assert decisions(load(copy)) == 4 and decisions(load(path)) == 0


def test_a_read_only_folder_is_said_in_one_sentence(tmp_path: Path, monkeypatch) -> None:
    store = Store(tmp_path)
    path = store.create(new_campaign("vigo", 3, 3))
    real_open = os.open

    def read_only(file, flags, *args):
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system", str(file))
        return real_open(file, flags, *args)

    monkeypatch.setattr("cantina.campaign.store.os.open", read_only)
    with pytest.raises(CampaignError) as caught:
        store.open(path)
    said = str(caught.value)
    assert said == (
        "the campaign 'vigo 3' cannot be played here: the folder is read-only, "
        "so its moves could not be saved"
    )
    assert "Errno" not in said and ".lock" not in said


def test_the_lock_message_names_the_campaign_not_its_file(tmp_path: Path) -> None:
    store = Store(tmp_path)
    campaign = new_campaign("valdes", 1, 2)
    campaign.data.name = "Duo"
    path = store.create(campaign)
    assert path.stem == "duo"
    with store.open(path), pytest.raises(InUse) as caught:
        store.open(path)
    assert "'Duo'" in str(caught.value) and "'duo'" not in str(caught.value)


def test_a_deeply_nested_file_is_refused_as_damaged_in_one_sentence(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_bytes(b'{"format": 2, "settings": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")
    with pytest.raises(Damaged) as caught:
        load(deep)
    assert str(caught.value) == f"deep.json: {NESTED}"
    assert UNEXPECTED not in str(caught.value) and "RecursionError" not in str(caught.value)


def test_what_the_system_refused_is_said_plainly() -> None:
    said = [
        explain(OSError(errno.EROFS, "Read-only file system", "/x/.duo.json.12.tmp")),
        explain(OSError(errno.ENOSPC, "No space left on device")),
        explain(OSError(errno.EACCES, "Permission denied", "/x")),
        explain(OSError(errno.ELOOP, "Too many levels of symbolic links", "/x")),
        explain(InUse("the campaign 'Duo' is open in another cantina")),
    ]
    assert said == [
        "the folder is read-only",
        "the disk is full",
        "this user may not write in that folder",
        "too many levels of symbolic links",
        "the campaign 'Duo' is open in another cantina",
    ]
