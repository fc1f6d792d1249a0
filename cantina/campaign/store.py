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

import contextlib
import errno
import fcntl
import os
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import msgspec
import platformdirs

from cantina.campaign.check import read_campaign
from cantina.campaign.errors import (
    Ambiguous,
    CampaignError,
    Damaged,
    InUse,
    NameTaken,
    NotFound,
    os_reason,
)
from cantina.campaign.listing import Listed, read_listing
from cantina.campaign.series import MAX_CAMPAIGN_NAME, Campaign, campaign_name
from cantina.files import write_atomic  # the autosave test swaps it here for a full disk
from cantina.text import clean_text

UNEXPECTED = "could not be read (an unexpected error)"
NESTED = "not a cantina save: its data is nested far deeper than a save's"

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


class Lock(Protocol):
    """What an open campaign holds while it is played: a flock here, a lease in Redis."""

    def release(self) -> None: ...


class Campaigns(Protocol):
    """A player's campaigns as the app and its screens use them: this folder's `Store`,
    or the same documents kept in Redis (`cantina.store.campaigns`). Each save is known by
    a path whose name is its file's (in Redis, a document named as the file would be)."""

    @property
    def folder(self) -> Path: ...

    def entries(self) -> list[Entry]: ...

    def create(self, campaign: Campaign) -> Path: ...

    def import_file(self, source: Path) -> Imported: ...

    def load(self, path: Path) -> Campaign: ...

    def open(self, path: Path) -> OpenCampaign: ...

    def names(self, but: Path | None = None) -> dict[str, Path]: ...

    def rename(self, path: Path, name: str) -> None: ...

    def delete(self, path: Path) -> None: ...

    def export(self, path: Path, destination: Path) -> Path: ...


def rename_in(store: Campaigns, path: Path, name: str) -> None:
    """Give the campaign at `path` a new display name, in whichever store keeps it.
    NameTaken, and nothing changed, when another campaign there has that name."""
    name = campaign_name(name)
    owner = store.names(but=path).get(name.casefold())
    if owner is not None:
        raise NameTaken(
            f"another campaign is called {name!r} ({clean_text(owner.name)}); choose another name"
        )
    with store.open(path) as session:
        session.campaign.data.name = name
        session.save()


class CampaignLock:
    """An exclusive advisory lock on one save, held while it is played."""

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(f".{path.stem}.lock")
        self._fd: int | None = None

    def acquire(self, name: str) -> None:
        """Hold the lock; InUse (naming the campaign `name`) when another process does,
        CampaignError in one sentence when the lock cannot be made (a read-only folder)."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as err:
            raise CampaignError(
                f"the campaign {name!r} cannot be played here: {os_reason(err)}, "
                "so its moves could not be saved"
            ) from None
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
    """The save's bytes, its listing first (brought up to date: what the list shows)."""
    campaign.data.listing = campaign.listing()
    return msgspec.json.format(msgspec.json.encode(campaign.data), indent=1) + b"\n"


def read(path: Path) -> bytes:
    """A save's bytes (Damaged when there are too many, or they cannot be read)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE:
            raise Damaged(path.name, "", f"{size} bytes is too big for a save (limit {MAX_FILE})")
        with open(path, "rb") as file:
            return file.read(MAX_FILE + 1)
    except OSError as err:
        raise Damaged(path.name, "", f"cannot be read: {err.strerror or err}") from None


def load(path: Path) -> Campaign:
    """The campaign in `path` (Damaged, naming the file and field, if it cannot be). A
    refusal is remembered for the file as it stands (`refused`)."""
    try:
        return campaign_in(read(path), path.name)
    except Damaged as problem:
        with contextlib.suppress(OSError):
            _REFUSED[path.resolve()] = (_signature(path), problem)
        raise


_REFUSED: dict[Path, tuple[tuple[int, int], Damaged]] = {}
"""Saves whose listing reads well but which were refused when loaded whole (a hand-edited
history), with the file's size and time then: the list shows them damaged from then on,
in this process, until the file changes."""


def _signature(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return (stat.st_size, stat.st_mtime_ns)


def refused(path: Path) -> Damaged | None:
    """Why the save at `path`, as it stands, was refused when loaded whole, if it was."""
    known = _REFUSED.get(path.resolve())
    try:
        return known[1] if known is not None and known[0] == _signature(path) else None
    except OSError:
        return None


def campaign_in(raw: bytes, file: str) -> Campaign:
    """The campaign a save's bytes hold, checked whole (Damaged, naming `file` and the
    field, if it cannot be played): for a file, or a document kept elsewhere."""
    try:
        return read_campaign(raw, file)
    except Damaged:
        raise
    except RecursionError:  # msgspec's limit on nesting: no save nests so deep
        raise Damaged(file, "", NESTED) from None
    except Exception as err:  # a reading bug must not take the whole listing down
        raise Damaged(file, "", f"{UNEXPECTED} ({type(err).__name__}: {err})") from err


class _Named(msgspec.Struct):
    name: str = ""


def name_in(raw: bytes) -> str | None:
    """The campaign name a save holds, read without checking the rest of it (so a damaged
    save's too, when that much is whole); None when there is none to read."""
    try:
        return msgspec.json.decode(raw, type=_Named).name or None
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # nested past msgspec's
        return None


def readable_name(path: Path) -> str | None:
    """The campaign name a damaged save holds, when that much of it can be read (so the
    list can say which campaign it was, and asking for it by name says it is damaged,
    not missing); None when it cannot."""
    try:
        name = name_in(read(path))
    except Damaged:
        return None
    return campaign_name(name) if name else None


@dataclass(frozen=True)
class Entry:
    """One file in the save folder: a campaign, or why it could not be read."""

    path: Path
    campaign: Listed | None
    """What the list shows of it (read from its listing, not its whole history)."""
    problem: Damaged | None
    modified: float
    called: str | None = None
    """A damaged save's campaign name, when that much of it can be read (cleaned)."""

    @property
    def file(self) -> str:
        """The file's name as it may be shown (cleaned: a name on disk can hold anything)."""
        return clean_text(self.path.name)


@dataclass(frozen=True)
class Imported:
    """A save imported into a folder."""

    path: Path
    name: str
    """What the campaign is called in the folder."""
    was: str
    """What it was called in the file imported: another name when that one was taken."""

    def __str__(self) -> str:
        called = repr(self.name) if self.was == self.name else f"{self.was!r} as {self.name!r}"
        return f"{called} ({clean_text(self.path.name)})"


class Store:
    """A save folder: list, create, open (locked, autosaving), rename, delete, export."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def entries(self) -> list[Entry]:
        """Every save, newest first; damaged ones carry their reason and are left as found.

        Each save is listed from its listing, the first few hundred bytes of its file, so
        a folder of long campaigns lists at once; it is checked whole when it is opened.
        A file without one (an older format, or damaged) is loaded whole here."""
        found = []
        for path in self._files():
            try:
                modified = path.stat().st_mtime
            except OSError:
                continue
            listing = read_listing(path)
            problem = refused(path)
            if listing is not None and problem is not None:  # its listing does not tell
                found.append(Entry(path, None, problem, modified, campaign_name(listing.name)))
                continue
            if listing is not None:
                found.append(Entry(path, Listed(listing), None, modified))
                continue
            try:
                found.append(Entry(path, Listed(load(path).listing()), None, modified))
            except Damaged as problem:
                found.append(Entry(path, None, problem, modified, readable_name(path)))
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
        """The save of the campaign called `name`, or with that file name (with or without
        `.json`, any case); a file name given exactly is always that file. NotFound, or
        Ambiguous (listing each save it could be), when there is not exactly one."""
        given = name.strip()
        if not given:
            raise NotFound(f"no campaign called {name!r} in {self.folder}")
        entries = self.entries()
        for entry in entries:
            if entry.path.name == given:
                return entry.path
        wanted, cleaned = given.casefold(), campaign_name(given).casefold()
        called = {
            entry.path: entry.campaign.name if entry.campaign else entry.called for entry in entries
        }
        found = [
            entry
            for entry in entries
            if wanted in (entry.path.name.casefold(), entry.path.stem.casefold())
            or (called[entry.path] or "").casefold() == cleaned
        ]
        if not found:
            raise NotFound(f"no campaign called {name!r} in {self.folder}")
        if len(found) > 1:
            raise Ambiguous(
                name,
                [(called[e.path] or "a damaged save", e.path.name) for e in found],
            )
        return found[0].path

    def names(self, but: Path | None = None) -> dict[str, Path]:
        """The campaign names taken in this folder, case-folded, each with its save: every
        save's but `but`'s, a damaged one's too when its name can still be read."""
        taken: dict[str, Path] = {}
        for path in self._files():
            if but is not None and path.name == but.name:
                continue
            listing = read_listing(path)
            try:
                name = listing.name if listing is not None else name_in(read(path))
            except Damaged:
                continue
            if name:
                taken.setdefault(name.casefold(), path)
        return taken

    def free_name(self, name: str) -> str:
        """`name` as a campaign is called (cleaned), numbered when another campaign here
        has it already (in any case): "Campaign" is "Campaign 2" beside a "Campaign", and
        "Campaign 3" beside both."""
        return free_name(name, self.names())

    def create(self, campaign: Campaign) -> Path:
        """Save a new campaign under a name and a file name of its own (never another's):
        its name is numbered when taken (`free_name`), and it keeps the new name."""
        self.folder.mkdir(parents=True, exist_ok=True)
        campaign.data.name = self.free_name(campaign.name)
        return write_new(self.folder, file_stem(campaign.name), encode(campaign))

    def import_file(self, source: Path) -> Imported:
        """A copy of the save at `source` in this folder, checked as every save is loaded
        (Damaged, naming the file and field, when it is not a whole campaign), under a
        campaign name and a file name of its own. `source` is only read."""
        campaign = load(source)
        was = campaign.name
        return Imported(self.create(campaign), campaign.name, was)

    def load(self, path: Path) -> Campaign:
        """A save's whole campaign, checked (Damaged when it cannot be played)."""
        return load(path)

    def open(self, path: Path) -> OpenCampaign:
        """Lock a save and load it for play (InUse, or Damaged, when that cannot be)."""
        lock = CampaignLock(path)
        listing = read_listing(path)  # the name, for a message: not the whole file
        name = listing.name if listing is not None else name_in(read(path))
        lock.acquire(campaign_name(name or path.stem))
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
        rename_in(self, path, name)

    def delete(self, path: Path) -> None:
        """Delete a save no cantina has open (InUse otherwise), whole or damaged: only
        its lock is needed, not its campaign."""
        lock = CampaignLock(path)
        lock.acquire(campaign_name(readable_name(path) or path.stem))
        try:
            path.unlink()
        finally:
            lock.release()
        lock.path.unlink(missing_ok=True)

    def export(self, path: Path, destination: Path) -> Path:
        """A copy of a save at `destination`: a file that must not exist, or a folder, where
        the copy's file is named after the campaign as it is called now (after a rename,
        its new name; the save's own file keeps the name it was made with), numbered when
        taken. A damaged save is copied as it is, under its own file name."""
        raw = path.read_bytes()
        return export_bytes(raw, name_in(raw) or path.stem, destination)


def free_name(name: str, taken: Collection[str]) -> str:
    """`name` cleaned, numbered when `taken` (case-folded names) has it already."""
    name = campaign_name(name)
    if name.casefold() not in taken:
        return name
    for n in range(2, 1000):
        suffix = f" {n}"
        candidate = name[: MAX_CAMPAIGN_NAME - len(suffix)].rstrip() + suffix
        if candidate.casefold() not in taken:
            return candidate
    raise NameTaken(f"too many campaigns called {name!r}")


def typed_path(text: str) -> Path:
    """A path as the player typed it, `~` and `~user` expanded; CampaignError saying why
    when it cannot lead anywhere (Path raises RuntimeError for an unknown user, and the
    system ValueError for a NUL)."""
    if "\0" in text:
        raise CampaignError("a path cannot hold a NUL character")
    try:
        return Path(text).expanduser()
    except RuntimeError:
        user = text[1:].split(os.sep, 1)[0]
        raise CampaignError(f"there is no user {user!r} here for {text!r} to start from") from None


def export_bytes(raw: bytes, name: str, destination: Path) -> Path:
    """`raw` (a save's bytes) at `destination`: a new file, or a new file named after the
    campaign `name` in the folder `destination` (CampaignError: never over a file)."""
    if destination.is_dir():
        return write_new(destination, file_stem(name), raw)
    if destination.exists():
        raise CampaignError(f"{destination} is there already; an export never replaces a file")
    if not destination.parent.is_dir():  # said with the folder's name, not "the folder"
        raise CampaignError(f"there is no folder {clean_text(str(destination.parent))}")
    try:
        write_atomic(destination, raw, replace=False)
    except FileExistsError:
        raise CampaignError(
            f"{destination} is there already; an export never replaces a file"
        ) from None
    return destination


def write_new(folder: Path, stem: str, data: bytes) -> Path:
    """`data` in a new file of `folder` named `stem.json`, else `stem-2.json`, and so on:
    never over another file."""
    for n in range(1, 1000):
        path = folder / (f"{stem}.json" if n == 1 else f"{stem}-{n}.json")
        try:
            write_atomic(path, data, replace=False)
        except FileExistsError:
            continue
        return path
    raise OSError(f"too many files called {stem}.json in {folder}")


class OpenCampaign:
    """A campaign open for play: locked, and saved after every change until closed."""

    def __init__(self, path: Path, campaign: Campaign, lock: Lock) -> None:
        self.path = path
        self.campaign = campaign
        self.lock = lock
        self.saves = 0
        self.on_error: Callable[[OSError], None] | None = None
        """Told of an autosave that failed (a full disk, say); without it, it raises."""
        self.failure: OSError | None = None
        """Why the last save failed, while it has not been made good."""
        self._saved_decisions = campaign.decisions
        campaign.on_change = lambda _campaign: self.autosave()

    def write(self, data: bytes) -> None:
        """Put the save's bytes where it is kept (OSError when they cannot be)."""
        write_atomic(self.path, data)

    def save(self) -> None:
        try:
            self.write(encode(self.campaign))
        except OSError as err:
            self.failure = err
            raise
        self.saves += 1
        self.failure = None
        self._saved_decisions = self.campaign.decisions

    def autosave(self) -> None:
        """Save after a decision. A failure must not stop the game: the campaign stays
        whole in memory and the next decision writes it all again."""
        try:
            self.save()
        except OSError as err:
            if self.on_error is None:
                raise
            self.on_error(err)

    @property
    def unsaved(self) -> int:
        """The decisions made since the last save that was written (0: all are saved)."""
        return self.campaign.decisions - self._saved_decisions

    @property
    def saved(self) -> bool:
        return self.failure is None

    def settle(self) -> bool:
        """Before leaving: a save that failed is tried again; whether all is saved now."""
        if self.failure is not None:
            try:
                self.save()
            except OSError:
                return False
        return True

    def export(self, destination: Path) -> Path:
        """The campaign as it stands here (unsaved decisions too) written elsewhere, as
        `Store.export` writes a save; its own file and lock are left as they are."""
        return export_bytes(encode(self.campaign), self.campaign.name, destination)

    def close(self) -> None:
        self.campaign.on_change = None
        self.lock.release()

    def __enter__(self) -> OpenCampaign:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
