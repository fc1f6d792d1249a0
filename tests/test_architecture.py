"""The rules core stays free of the UI: only the app and SSH-host modules may load textual."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import cantina

UI_MODULES = ("cantina.app", "cantina.ssh")
"""Module prefixes allowed to import textual: the app and the SSH host."""


def core_modules() -> list[str]:
    names = [
        info.name
        for info in pkgutil.walk_packages(cantina.__path__, prefix="cantina.")
        if not info.name.startswith(UI_MODULES) and not info.name.endswith("__main__")
    ]
    return ["cantina", *names]


CHECK = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
    loaded = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
    if loaded:
        raise SystemExit(f"importing {name} loaded {loaded[0]}")
"""


def test_rules_core_never_loads_textual():
    """Imports every non-UI module in a fresh interpreter and fails on the first that pulls
    in textual, directly or through another module."""
    modules = core_modules()
    assert "cantina.games.vigo" in modules and "cantina.cli" in modules
    done = subprocess.run(
        [sys.executable, "-c", CHECK, *modules], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr or done.stdout


def test_the_check_catches_a_textual_import(tmp_path):
    """The same check fails for a module that imports textual, so it is not vacuous."""
    (tmp_path / "leaky.py").write_text("import textual.app\n")
    done = subprocess.run(
        [sys.executable, "-c", CHECK, "leaky"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode != 0 and "leaky loaded textual" in done.stderr
