"""Which file defines a table, for the files that read it: a glance at the text of every file
of the project, before any is read for itself.

A view or table that a statement of one file creates or writes is known to the statements
of other files only through the file that is the name's *definer* (`Preparation.definers`):
the workspace analyses it first, on demand, when another file names the table, so a file
checked alone sees what a check of the whole project would show it, whatever the order of
the paths. A name is defined by a file only when no other file of the project writes it:
the order in which a project's files run is not in the repository (a scheduler decides), so
a table two files write is known only by its declarations. The glance errs only one way: a
write it takes for one (a `CREATE` in a comment) makes a name shared, which forgets what
was known; a write it misses is no definer, and the workspace takes what a table's
definer says of it only (`sortlint.workspace.check.Workspace.publish`).

Light to import: nothing here parses SQL or Python."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from sortlint.files import read_bytes
from sortlint.sources.frontend import Preparation, Reading, dbt_folders_key, dbt_project_root, holds_dbt_project

_NAME = r"((?:[`\"]?\w+[`\"]?\.){0,2}[`\"]?\w+[`\"]?)"
# A statement that writes a table or defines a view, as any SQL text shows it (a `.sql`
# file, a Python string), read in lower case: what it names is written. Matched only where
# one of `_FIRST_WORDS` stands (found by `str.find`, many times quicker than a search).
_SQL_WRITE = re.compile(
    r"\b(?:"
    r"(?:create\s+(?:or\s+replace\s+)?|replace\s+)(?:global\s+)?(?:temp(?:orary)?\s+)?(?:materialized\s+)?"
    r"(?:view|table)(?:\s+if\s+not\s+exists)?"
    r"|insert\s+(?:into|overwrite)(?:\s+table)?(?!\s+(?:local\s+)?directory\b)"
    r"|merge\s+into|update|delete\s+from|truncate\s+table|alter\s+table|drop\s+(?:view|table)(?:\s+if\s+exists)?"
    r")\s+" + _NAME
)
_FIRST_WORDS = ("create", "replace", "insert", "merge", "update", "delete", "truncate", "alter", "drop")
# A DataFrame call that writes a table or registers a view under a name given as a literal.
_DATAFRAME_WRITE = re.compile(
    r"\.(?:saveAsTable|insertInto|writeTo|createTempView|createOrReplaceTempView|createGlobalTempView"
    r"|createOrReplaceGlobalTempView|forName|tableName)\(\s*(?:\w+\s*,\s*)?(?:\w+\s*=\s*)?[rRuU]?(['\"])([\w.`]+)\1"
)

# What a query or a DataFrame job reads a table by, in lower-cased text.
_READ = re.compile(r"\b(?:from|join)\s+" + _NAME + r"|\.table\(\s*(['\"])([\w.`]+)\2")


def prepare(files: Sequence[Path], reading: Reading) -> Preparation:
    """The definers of the names exactly one file of the project writes, and for each file
    the definers of the names it seems to read (`Preparation.upstream`: the order workers
    take files in). The project is every file a check of the configuration's folder reads
    (and the checked files), but for dbt's files (`_dbts_folder`, `_dbts_file`): a model's
    table is dbt's to define."""
    writers: dict[str, set[Path]] = {}
    texts: dict[Path, str] = {}
    for file in reading.project_files(lambda folder: _dbts_folder(reading, folder)):
        if _dbts_file(reading, file):
            continue
        try:
            data = read_bytes(file)
        except OSError:
            continue  # reported if the file is checked; a file that cannot be read defines nothing
        # Not decoded as `read_source` decodes: a file that is not UTF-8 still names what it
        # writes, and stays the definer of those tables, so a file reading one reports that
        # it cannot be read (`Workspace`) rather than lose what it defines without a word.
        texts[file] = data.decode("utf-8", "replace")
        for name in written_names(texts[file], file.suffix == ".py"):
            writers.setdefault(name, set()).add(file)
    definers = {name: next(iter(writing)) for name, writing in writers.items() if len(writing) == 1}
    upstream = {}
    for file, raw in texts.items() if definers else ():
        read = {definers[name] for name in read_names(raw) if name in definers} - {file}
        if read:
            upstream[file] = tuple(sorted(read))
    return Preparation(reading.config, definers, upstream=upstream)


def _dbts_folder(reading: Reading, folder: Path) -> bool:
    """Whether the folder's files are a dbt project's, left out of the project's walk: it
    holds a dbt project other than one at the configuration's root (an installed package,
    a project in a subfolder), or it is a model, macro or output folder of the project at
    the root. The root's other folders (`sql/` beside `models/`) are a plain repository's."""
    root = reading.config.root.resolve()
    resolved = folder.resolve()
    if resolved == root:
        return False
    return holds_dbt_project(resolved) or resolved in _root_dbt_folders(reading, root)


def _dbts_file(reading: Reading, file: Path) -> bool:
    """Whether a (resolved) file is a dbt project's, as `_dbts_folder` tells its folders."""
    project_root = dbt_project_root(reading, file.parent)
    if project_root is None:
        return False
    if project_root != reading.config.root.resolve():
        return True
    return any(file.is_relative_to(folder) for folder in _root_dbt_folders(reading, project_root))


def _root_dbt_folders(reading: Reading, root: Path) -> frozenset[Path]:
    """The model, macro and output (`target/`: dbt's renderings of the models) folders of the
    dbt project at the configuration's root (resolved), if one is there, as the dbt front end
    recorded them; unrecorded, the whole project is dbt's."""
    if not holds_dbt_project(root):
        return frozenset()
    found: frozenset[Path] = reading.memo.get(dbt_folders_key(root), frozenset((root,)))
    return found


def written_names(raw: str, python: bool = False) -> list[str]:
    """The names (lower case, unquoted, as a query names them) the text's statements may
    write, in the text's order; with `python`, also those its DataFrame calls write or
    register."""
    lowered = raw.lower()
    found = []
    for word in _FIRST_WORDS:
        at = lowered.find(word)
        while at >= 0:
            match = _SQL_WRITE.match(lowered, at)
            if match is not None:
                found.append((at, match.end(), _unquoted(match.group(1))))
            at = lowered.find(word, at + len(word))
    names, end = [], 0
    for start, stop, name in sorted(found):
        if start >= end:  # not the REPLACE of a CREATE OR REPLACE already read
            names.append(name)
            end = stop
    if python:
        names += [_unquoted(match.group(2)).lower() for match in _DATAFRAME_WRITE.finditer(raw)]
    return names


def read_names(raw: str) -> set[str]:
    """The names (lower case, unquoted) the text seems to read a table by: what follows a
    FROM or a JOIN, and a DataFrame's `table("...")`. A guess, for the order of work only."""
    lowered = raw.lower()
    return {_unquoted(match.group(1) or match.group(3)) for match in _READ.finditer(lowered)}


def _unquoted(name: str) -> str:
    return name.replace("`", "").replace('"', "")

