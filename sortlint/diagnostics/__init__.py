"""Diagnostics: what a check reports and how a report is fixed, in the spirit of ruff's
`ruff_diagnostics`. Findings, edits, fixes with an ordered applicability, and fingerprints.

The bottom layer above `sortlint.errors`: everything above it speaks these types, and it
imports nothing else of sortlint.
"""

from sortlint.diagnostics.effects import Effect, Prediction, Unknown
from sortlint.diagnostics.edits import Edit, UneditableRegion, apply_edits
from sortlint.diagnostics.findings import Basis, Finding
from sortlint.diagnostics.fingerprints import fingerprint, fingerprints, flagged_text
from sortlint.diagnostics.fixes import Applicability, Fix

__all__ = [
    "Applicability", "Basis", "Edit", "Effect", "Finding", "Fix", "Prediction", "UneditableRegion", "Unknown", "apply_edits",
    "fingerprint", "fingerprints", "flagged_text",
]
