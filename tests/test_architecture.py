"""The shape of the code: the rules core free of the UI, imports that point one way (the
SSH host, then the app, then the screens, then the core), and every import deferred into
a function listed here with its reason, so none hides a circle."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import cantina

ROOT = Path(__file__).resolve().parent.parent
UI_MODULES = ("cantina.app", "cantina.ssh")
"""Module prefixes allowed to import textual: the app and the SSH host."""
TOP = {"cantina", "cantina.cli", "cantina.__main__"}
"""The package's face and the command line, which imports each command's modules."""


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
    assert "cantina.dealer" in modules and "cantina.lobby" in modules
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


def contract(name_starts: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (found,) = [c for c in contracts if c["name"].startswith(name_starts)]
    return found


def test_the_core_contract_covers_every_core_module():
    """A new module of the core falls under the import-linter contract that keeps the
    screens, the app and the host out of it: every module of cantina is in its list (or
    inside a package that is), or is the app, the host or the command line."""
    covered = tuple(contract("The core never imports")["source_modules"])
    left_out = [
        name
        for name in core_modules()
        if name not in TOP and not any(name == c or name.startswith(c + ".") for c in covered)
    ]
    assert left_out == [], f"add these to the core's contract in pyproject.toml: {left_out}"


DEFERRED = {
    (
        "cantina.app",
        "cantina.campaign.store",
    ): "campaigns load when one is opened, not with the menu",
    ("cantina.app", "screens.standings"): "its campaign code loads when a campaign is opened",
    ("cantina.app", "cantina.dealer"): "the rules core and the AI load with the first table",
    ("cantina.app", "cantina.live"): "the rules core and the AI load with the first table",
    ("cantina.app", "screens.game_screens"): "the table screens load with the first table",
    ("cantina.app", "screens.rules"): "the rules (markdown) load when first asked for",
    ("cantina.app", "screens.dialogs"): "the quit question loads when quitting mid-game",
    ("cantina.cli", "cantina.app"): "each command loads only what it needs",
    ("cantina.cli", "cantina.games.table"): "each command loads only what it needs",
    ("cantina.cli", "cantina.games.dice"): "each command loads only what it needs",
    ("cantina.cli", "cantina.seating"): "each command loads only what it needs",
    ("cantina.cli", "cantina.campaign.store"): "each command loads only what it needs",
    ("cantina.cli", "cantina.ai.temperament"): "each command loads only what it needs",
    ("cantina.cli", "cantina.watch"): "each command loads only what it needs",
    ("cantina.cli", "cantina.campaign.commands"): "each command loads only what it needs",
    ("cantina.cli", "cantina.ssh.cli"): "asyncssh loads for `serve` only",
    ("cantina.cli", "cantina.sim_report"): "each command loads only what it needs",
    ("cantina.cli", "cantina.analysis_report"): "each command loads only what it needs",
    ("cantina.cli", "cantina.measure"): "each command loads only what it needs",
    ("cantina.cli", "cantina.progress"): "each command loads only what it needs",
    ("cantina.cli", "cantina.tournament"): "each command loads only what it needs",
    ("cantina.cli", "cantina.tournament_report"): "each command loads only what it needs",
    ("cantina.cli", "screens.charts"): "textual loads for `tournament --plot` only",
    ("cantina.ssh.serve", "cantina.ssh"): "the host listens before the app is loaded",
    ("cantina.ssh.server", "cantina.ssh.app"): "the host listens before the app is loaded",
    ("screens.menu", "screens.setup"): "each screen off the menu loads when first opened",
    ("screens.menu", "screens.campaigns"): "each screen off the menu loads when first opened",
    ("screens.menu", "screens.settings"): "each screen off the menu loads when first opened",
}
"""Every import made inside a function, by (importer, imported), and why it waits: the
start of the menu, or of a command, pays only for what it uses. None dodges a circle
(import-linter's contracts count these imports too)."""


def deferred_imports() -> set[tuple[str, str]]:
    found = set()
    for package in ("cantina", "screens"):
        for path in sorted((ROOT / package).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            module = module.removesuffix(".__init__")
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for function in ast.walk(tree):
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for node in ast.walk(function):
                    if isinstance(node, ast.ImportFrom) and node.module:
                        found.add((module, node.module))
                    elif isinstance(node, ast.Import):
                        found.update((module, alias.name) for alias in node.names)
    return found


def test_every_deferred_import_is_listed_with_its_reason():
    found = deferred_imports()
    unlisted = sorted(found - DEFERRED.keys())
    assert not unlisted, f"an import inside a function, not listed with its reason: {unlisted}"
    gone = sorted(DEFERRED.keys() - found)
    assert not gone, f"listed, but no longer deferred (take them off the list): {gone}"
    assert all(DEFERRED.values())
