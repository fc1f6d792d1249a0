"""Where the stylesheets are: the installed `styles` folder, shipped in the wheel."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path, PurePath


def stylesheets(*names: str) -> list[str | PurePath]:
    """Paths of .tcss files in the installed `styles` folder. Found through the import
    system, as `importlib.resources` would, without loading it (and zipfile) on the way
    to the menu."""
    folders = [Path(folder) for folder in import_module("styles").__path__]

    def find(name: str) -> str:  # `styles` is a namespace package: it may span folders
        return str(next((f / name for f in folders if (f / name).is_file()), folders[0] / name))

    return [find(name) for name in names]  # in the type Textual's CSS_PATH takes
