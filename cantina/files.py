"""Files that are whole or not at all: the one way the cantina writes what it keeps."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, replace: bool = True) -> None:
    """Write `data` to `path` so that a crash leaves the old file or the new one, whole:
    a temporary file in the same folder, fsync, rename over the old file, fsync of the
    folder. With `replace` False an existing file is never touched (FileExistsError)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if the name is taken: never clobbers
            os.unlink(tmp)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a write cut short (a full disk) leaves nothing
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
