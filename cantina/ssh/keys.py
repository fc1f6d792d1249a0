"""The host's key and the players' keys: loading, creating, fingerprints."""

from __future__ import annotations

import os
from pathlib import Path

import asyncssh
from platformdirs import user_data_path


def host_key_path(given: Path | None) -> Path:
    """`--host-key`, else `host_key` in the user data folder."""
    if given is not None:
        return given
    return user_data_path("cantina", appauthor=False) / "ssh_host_ed25519_key"


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """The host key at `path`, made (ed25519, mode 0600) the first time only, so
    returning players' clients keep recognising the host. ValueError, naming the file,
    when it holds no private key."""
    if path.exists():
        try:
            return asyncssh.read_private_key(path)
        except ValueError as err:  # not a key: say which file
            raise ValueError(f"{path}: {err}") from None
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


def read_authorized_keys(path: Path | None) -> asyncssh.SSHAuthorizedKeys | None:
    """The players' keys from an OpenSSH authorized_keys file, as asyncssh reads them: its
    options hold (a `from=` list limits where a key may come from) and a certificate
    authority's line admits nobody as a player. None when there is no file; ValueError,
    naming the file, when it holds no key at all."""
    if path is None or not path.exists():
        return None
    try:
        return asyncssh.read_authorized_keys(path)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None
