"""What can go wrong with a campaign's save, as one family of errors: a caller that opens,
lists or changes saves catches `CampaignError` and shows its message."""

from __future__ import annotations

import errno

from cantina.text import clean_text, plain_reason

_OS_REASONS = {
    errno.EROFS: "the folder is read-only",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EACCES: "this user may not write in that folder",
    errno.EPERM: "this user may not write in that folder",
    errno.ENOENT: "the folder is not there",
    errno.ENOTDIR: "the folder is not there",
    errno.EIO: "the disk reported an error",
}


def os_reason(err: OSError) -> str:
    """Why a file could not be written, in a few plain words ("the disk is full"), not the
    system's `[Errno 28] No space left on device: '/…/.duo.json.123.tmp'`."""
    if err.errno in _OS_REASONS:
        return _OS_REASONS[err.errno]
    return clean_text(err.strerror or type(err).__name__).lower() or "the system refused"


def explain(err: Exception) -> str:
    """What a caller shows of a campaign that could not be opened or changed: its own
    words, or for a file the system refused, the plain reason (never `[Errno 30] …`)."""
    if isinstance(err, OSError):
        return os_reason(err)
    return str(err)


class CampaignError(Exception):
    """A campaign that cannot be opened, played or changed; the message says why."""


class Damaged(CampaignError):
    """A save that cannot be played: which file, which field, and what is wrong."""

    def __init__(self, file: str, field: str, reason: str) -> None:
        # A file's name and a schema's words can hold anything a file does: cleaned, so
        # nothing from disk reaches a terminal as a command (an ESC, a BEL).
        self.file = clean_text(file)
        self.field = clean_text(field)
        self.reason = clean_text(plain_reason(reason))  # the schema's words, for people
        where = f"{self.file}: {self.field}: " if field else f"{self.file}: "
        super().__init__(where + self.reason)


class InUse(CampaignError):
    """Another process is playing this campaign."""


class NotFound(CampaignError, LookupError):
    """No save in the folder goes by the name asked for."""


class Ambiguous(CampaignError, LookupError):
    """Several saves go by the name asked for: the file name tells them apart."""

    def __init__(self, name: str, candidates: list[tuple[str, str]]) -> None:
        self.candidates = [(clean_text(c), clean_text(f)) for c, f in candidates]
        """Each save it could be, as (its campaign's name, its file's name), cleaned."""
        which = ", ".join(f"{campaign} ({file})" for campaign, file in self.candidates)
        super().__init__(f"{name!r} could be any of: {which}; give the file name")


class NameTaken(CampaignError):
    """Another campaign in the folder has that name already."""
