"""The host's key and the players' keys: loading, creating, fingerprints."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import asyncssh


def host_key_path(given: Path | None) -> Path:
    """`--host-key`, else `host_key` in the user data folder."""
    if given is not None:
        return given
    from platformdirs import user_data_path

    return user_data_path("cantina", appauthor=False) / "ssh_host_ed25519_key"


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """The host key at `path`, made (ed25519, mode 0600) the first time only, so
    returning players' clients keep recognising the host."""
    if path.exists():
        return asyncssh.read_private_key(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="cantina host key")
    # Create with 0600 from the start: the key never exists readable by others.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.export_private_key())
    return key


def fingerprint(key: asyncssh.SSHKey) -> str:
    """The SHA256 fingerprint, as OpenSSH shows it (`ssh-keygen -lf`)."""
    return key.get_fingerprint("sha256")


def read_authorized_keys(path: Path | None) -> frozenset[str]:
    """The fingerprints of the plain keys in an OpenSSH authorized_keys file. Options and
    certificate authorities are ignored: the cantina grants a seat at its tables, nothing
    more, and only to a listed key."""
    if path is None or not path.exists():
        return frozenset()
    found: set[str] = set()
    for line in path.read_text().splitlines():
        words = line.split()
        for i, word in enumerate(words):
            if word.startswith(KEY_TYPES) and i + 1 < len(words):
                with contextlib.suppress(asyncssh.KeyImportError, ValueError):
                    found.add(fingerprint(asyncssh.import_public_key(f"{word} {words[i + 1]}")))
                break
    return frozenset(found)


KEY_TYPES = ("ssh-", "ecdsa-", "sk-")
