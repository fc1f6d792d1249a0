"""What can go wrong with a campaign's save, as one family of errors: a caller that opens,
lists or changes saves catches `CampaignError` and shows its message."""

from __future__ import annotations

from cantina.text import plain_reason


class CampaignError(Exception):
    """A campaign that cannot be opened, played or changed; the message says why."""


class Damaged(CampaignError):
    """A save that cannot be played: which file, which field, and what is wrong."""

    def __init__(self, file: str, field: str, reason: str) -> None:
        self.file = file
        self.field = field
        self.reason = plain_reason(reason)  # the schema's words, for people
        where = f"{file}: {field}: " if field else f"{file}: "
        super().__init__(where + self.reason)


class InUse(CampaignError):
    """Another process is playing this campaign."""
