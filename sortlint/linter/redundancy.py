"""Messages for keys that normalisation found redundant (SL003, SL103, SL201)."""

from __future__ import annotations

from collections.abc import Sequence

from sortlint.linter.context import because
from sortlint.ordering import KeyVerdict


def describe(verdicts: Sequence[KeyVerdict], index: int, texts: Sequence[str], what: str) -> str:
    """Why key `index` (written as `texts[index]`) is redundant, naming the evidence."""
    verdict = verdicts[index]
    subject = f"{what} {texts[index]}"
    if verdict.redundant == "constant":
        reason = "is constant"
    elif verdict.redundant == "duplicate":
        reason = "repeats an earlier key"
    elif verdict.redundant == "equivalent":
        reason = f"equals the earlier key {texts[_earlier_equal(verdicts, index)]}"
    else:
        reason = "is determined by the earlier keys"
    evidence = f": {because(verdict.evidence)}" if verdict.evidence else ""
    return f"{subject} {reason}{evidence}"


def _earlier_equal(verdicts: Sequence[KeyVerdict], index: int) -> int:
    target = verdicts[index].normalized.expr
    return next(
        j for j in range(index) if verdicts[j].redundant is None and verdicts[j].normalized.expr == target
    )
