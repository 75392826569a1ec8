"""The lines a unified diff shows of the new version of a file.

Git, GitHub (a pull request file's `patch`) and GitLab (a merge request diff's `diff`) all
describe a file's change as unified-diff hunks. A review can comment on the new version's
lines the hunks show: the added ones, and the unchanged context around them, which also
have a line number in the old version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class ShownLines:
    """The new version's lines in a file's diff: `added` (added or modified), and
    `context` (unchanged lines shown around them, each with its old line number)."""

    added: frozenset[int] = frozenset()
    context: dict[int, int] = field(default_factory=dict)

    def shows(self, line: int) -> bool:
        return line in self.added or line in self.context


def shown_lines(patch: str) -> ShownLines:
    """Read a patch's hunks (the text from the first `@@` on; header lines before it are
    skipped). A `\\ No newline at end of file` marker is not a line."""
    added: set[int] = set()
    context: dict[int, int] = {}
    old = new = 0
    in_hunk = False
    for line in patch.splitlines():
        header = HUNK.match(line)
        if header:
            old, new = int(header.group(1)), int(header.group(3))
            in_hunk = True
            continue
        if not in_hunk or line.startswith("\\"):
            continue
        marker = line[:1]
        if marker == "+":
            added.add(new)
            new += 1
        elif marker == "-":
            old += 1
        elif marker == " " or line == "":
            context[new] = old
            old += 1
            new += 1
        else:  # the next file's header in a multi-file patch
            in_hunk = False
    return ShownLines(frozenset(added), context)
