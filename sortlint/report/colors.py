"""Colour on a terminal: when to use it (`--color`, `NO_COLOR`, `FORCE_COLOR`) and the ANSI
styles of the text report's parts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

RESET = "\x1b[0m"
STYLES = {
    "path": "\x1b[1m",  # bold
    "code": "\x1b[1;31m",  # bold red
    "marker": "\x1b[31m",  # red
    "gutter": "\x1b[34m",  # blue: line numbers and the bar beside the source
    "help": "\x1b[36m",  # cyan: the fix and its applicability
    "basis": "\x1b[2m",  # dim
}


def wants_color(choice: str, is_terminal: bool, environment: Mapping[str, str]) -> bool:
    """`--color always|never` decides; `auto` colours a terminal, unless `NO_COLOR` is set
    (https://no-color.org), and anything when `FORCE_COLOR` is (as most tools read them)."""
    if choice != "auto":
        return choice == "always"
    if environment.get("NO_COLOR"):
        return False
    if environment.get("FORCE_COLOR", "0") not in ("", "0"):
        return True
    return is_terminal


@dataclass(frozen=True)
class Palette:
    """Paints a part of the report in its style, or leaves it as it is (`enabled` false)."""

    enabled: bool = False

    def paint(self, part: str, text: str) -> str:
        return f"{STYLES[part]}{text}{RESET}" if self.enabled and text else text


PLAIN = Palette()
