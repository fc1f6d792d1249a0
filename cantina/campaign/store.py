"""Where campaign files live, and how they are read, written, locked and listed.

Writes are atomic (`cantina.files.write_atomic`): a temporary file in the same folder,
fsync, rename over the old file, fsync of the folder, so a crash at any moment leaves
either the old save or the new one.
An advisory lock (flock on a hidden `.NAME.lock` beside the save) keeps two processes (a
local app and the SSH host, say) from playing one campaign at once; the kernel drops it
when its process dies, even by SIGKILL. A file that cannot be read is reported with its
name and the field at fault, and never written, renamed or deleted.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
import platformdirs

from cantina.campaign.check import read_campaign
from cantina.campaign.errors import Damaged, InUse
from cantina.campaign.series import Campaign, campaign_name
from cantina.files import write_atomic  # the autosave test swaps it here for a full disk

UNEXPECTED = "could not be read (an unexpected error)"

MAX_FILE = 16 * 1024 * 1024
"""Saves grow by about 3 KiB a round (benchmarks/bench_saves.py), so even 1,000 rounds, the
most a campaign has, stay well under this; anything bigger is refused unread."""


def save_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--save-dir`, else CANTINA_SAVE_DIR, else the user's data folder (platformdirs)."""
    if explicit:
        return Path(explicit)
    override = os.environ.get("CANTINA_SAVE_DIR")
    if override:
        return Path(override)
    return Path(platformdirs.user_data_dir("cantina", appauthor=False)) / "campaigns"


def file_stem(name: str) -> str:
    """A file name for a campaign name: letters, digits and dashes only."""
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-")
    return stem or "campaign"


class CampaignLock:
    """An exclusive advisory lock on one save, held while it is played."""

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(f".{path.stem}.lock")
        self._fd: int | None = None

    def acquire(self, name: str) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            holder = os.read(fd, 64).decode(errors="replace").strip()
            os.close(fd)
            if err.errno in (errno.EAGAIN, errno.EACCES):
                by = f" (process {holder})" if holder.isdigit() else ""
                raise InUse(
                    f"the campaign {name!r} is open in another cantina{by}; "
                    "close it there, or wait for that player to leave"
                ) from None
            raise
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def encode(campaign: Campaign) -> bytes:
    return msgspec.json.format(msgspec.json.encode(campaign.data), indent=1) + b"\n"


def load(path: Path) -> Campaign:
    """The campaign in `path` (Damaged, naming the file and field, if it cannot be)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE:
            raise Damaged(path.name, "", f"{size} bytes is too big for a save (limit {MAX_FILE})")
        with open(path, "rb") as file:
            raw = file.read(MAX_FILE + 1)
    except OSError as err:
        raise Damaged(path.name, "", f"cannot be read: {err.strerror or err}") from None
    try:
        return read_campaign(raw, path.name)
    except Damaged:
        raise
    except Exception as err:  # a reading bug must not take the whole listing down
        raise Damaged(path.name, "", f"{UNEXPECTED} ({type(err).__name__}: {err})") from err


@dataclass(frozen=True)
class Entry:
    """One file in the save folder: a campaign, or why it could not be read."""

    path: Path
    campaign: Campaign | None
    problem: Damaged | None
    modified: float


class Store:
    """A save folder: list, create, open (locked, autosaving), rename, delete, export."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def entries(self) -> list[Entry]:
        """Every save, newest first; damaged ones carry their reason and are left as found."""
        found = []
        for path in self._files():
            try:
                modified = path.stat().st_mtime
            except OSError:
                continue
            try:
                found.append(Entry(path, load(path), None, modified))
            except Damaged as problem:
                found.append(Entry(path, None, problem, modified))
        found.sort(key=lambda e: e.modified, reverse=True)
        return found

    def _files(self) -> Iterator[Path]:
        if not self.folder.is_dir():
            return iter(())
        return (
            p
            for p in sorted(self.folder.iterdir())
            if p.suffix == ".json" and not p.name.startswith(".") and p.is_file()
        )

    def find(self, name: str) -> Path:
        """The save of the campaign called `name` (or with that file name)."""
        wanted = name.strip().lower()
        for entry in self.entries():
            if entry.path.stem.lower() == wanted or entry.path.name.lower() == wanted:
                return entry.path
            if entry.campaign is not None and entry.campaign.name.lower() == wanted:
                return entry.path
        raise LookupError(f"no campaign called {name!r} in {self.folder}")

    def create(self, campaign: Campaign) -> Path:
        """Save a new campaign under a file name of its own (never another's)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        stem = file_stem(campaign.name)
        for n in range(1, 1000):
            path = self.folder / (f"{stem}.json" if n == 1 else f"{stem}-{n}.json")
            try:
                write_atomic(path, encode(campaign), replace=False)
            except FileExistsError:
                continue
            return path
        raise OSError(f"too many campaigns called {campaign.name!r}")

    def open(self, path: Path) -> OpenCampaign:
        """Lock a save and load it for play (InUse, or Damaged, when that cannot be)."""
        lock = CampaignLock(path)
        lock.acquire(path.stem)
        try:
            campaign = load(path)
        except BaseException:
            lock.release()
            raise
        for stale in path.parent.glob(f".{path.name}.*.tmp"):  # a write cut short by a crash
            stale.unlink(missing_ok=True)
        return OpenCampaign(path, campaign, lock)

    def rename(self, path: Path, name: str) -> None:
        """A new display name; the file keeps its name, so nothing else is disturbed."""
        with self.open(path) as session:
            session.campaign.data.name = campaign_name(name)
            session.save()

    def delete(self, path: Path) -> None:
        with self.open(path):
            path.unlink()
        path.with_name(f".{path.stem}.lock").unlink(missing_ok=True)

    def export(self, path: Path, destination: Path) -> Path:
        """A copy of a save at `destination` (a folder, or a file that must not exist)."""
        if destination.is_dir():
            destination = destination / path.name
        write_atomic(destination, path.read_bytes(), replace=False)
        return destination


class OpenCampaign:
    """A campaign open for play: locked, and saved after every change until closed."""

    def __init__(self, path: Path, campaign: Campaign, lock: CampaignLock) -> None:
        self.path = path
        self.campaign = campaign
        self.lock = lock
        self.saves = 0
        self.on_error: Callable[[OSError], None] | None = None
        """Told of an autosave that failed (a full disk, say); without it, it raises."""
        campaign.on_change = lambda _campaign: self.autosave()

    def save(self) -> None:
        write_atomic(self.path, encode(self.campaign))
        self.saves += 1

    def autosave(self) -> None:
        """Save after a decision. A failure must not stop the game: the campaign stays
        whole in memory and the next decision writes it all again."""
        try:
            self.save()
        except OSError as err:
            if self.on_error is None:
                raise
            self.on_error(err)

    def close(self) -> None:
        self.campaign.on_change = None
        self.lock.release()

    def __enter__(self) -> OpenCampaign:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
