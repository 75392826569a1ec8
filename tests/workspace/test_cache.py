"""The persistent cache is never stale: each input a file's findings depend on - an upstream
model, a macro, a property file, dbt's catalog.json, a var, the configuration, a view in
another file, sortlint's version - changes them on the next run exactly as a run without the cache would;
a damaged or read-only cache is ignored with one note; two runs at once both report right.

Every scenario runs the real command twice per state, with the cache and without it, and
asserts both give the expected findings."""

from __future__ import annotations

import json
import os
import pickle
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sortlint
from sortlint.cli import main
from sortlint.files import standing_in

CATALOG = """\
target: datafusion
sources:
  raw.events:
    columns: {id: bigint not null, kind: string not null, host: string not null, at: timestamp}
"""
PROJECT = "name: shop\nvars:\n  wanted: email\n"
MACROS = "{% macro wanted_kind() %}'email'{% endmacro %}\n"
SCHEMA = """\
version: 2
sources:
  - name: raw
    tables:
      - name: events
"""
STAGED = "select id, kind, host, at from {{ source('raw', 'events') }} where kind = {{ wanted_kind() }}\n"
DAILY = """\
select kind, host, count(*) as n
from {{ ref('stg_events') }}
group by kind, host
order by kind, host
"""

KIND_EMAIL = [
    "models/marts/daily.sql:3:10: SL103 [*unsafe] group key kind is constant: WHERE events.kind = 'email' "
    "(models/staging/stg_events.sql:1) (code outside this statement, which may change) [upstream]",
    "models/marts/daily.sql:4:10: SL003 [*unsafe] sort key kind is constant: WHERE events.kind = 'email' "
    "(models/staging/stg_events.sql:1) (code outside this statement, which may change) [upstream]",
]
HOST_A = [
    "models/marts/daily.sql:3:16: SL103 [*unsafe] group key host is constant: WHERE events.host = 'a' "
    "(models/staging/stg_events.sql:1) (code outside this statement, which may change) [upstream]",
    "models/marts/daily.sql:4:16: SL003 [*unsafe] sort key host is constant: WHERE events.host = 'a' "
    "(models/staging/stg_events.sql:1) (code outside this statement, which may change) [upstream]",
]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, {
        "sortlint.yml": CATALOG,
        "dbt_project.yml": PROJECT,
        "macros/kinds.sql": MACROS,
        "models/schema.yml": SCHEMA,
        "models/staging/stg_events.sql": STAGED,
        "models/marts/daily.sql": DAILY,
    })
    return tmp_path


def run(root: Path, capsys, *arguments: str, cache: str = "cache", codes=(0, 1)) -> tuple[list[str], str]:
    """The finding lines of `sortlint check` run in `root`, and what it said on stderr."""
    cached = ["--cache-dir", cache] if cache else ["--no-cache"]
    previous = Path.cwd()
    os.chdir(root)
    try:
        code = main(["check", "--dbt-renderer", "builtin", *cached, *arguments])
    finally:
        os.chdir(previous)
    out, err = capsys.readouterr()
    assert code in codes, out + err
    return [line for line in out.splitlines() if ": SL" in line], err


def findings(root: Path, capsys, *arguments: str, codes=(0, 1)) -> list[str]:
    """The findings with the cache, after asserting they are those of a run without it."""
    with_cache, _ = run(root, capsys, *arguments, codes=codes)
    assert with_cache == run(root, capsys, *arguments, cache="", codes=codes)[0]
    return with_cache


def records(root: Path) -> list[Path]:
    return sorted((root / "cache" / "files").glob("*.pickle"))


def test_a_warm_run_takes_the_records_and_gives_the_cold_runs_findings(project, capsys):
    assert findings(project, capsys) == KIND_EMAIL
    kept = records(project)
    assert len(kept) == 3  # both models and the macro file
    assert findings(project, capsys) == KIND_EMAIL
    assert records(project) == kept
    assert (project / "cache" / ".gitignore").read_text() == "*\n"


@pytest.mark.parametrize("value", ["off", "OFF", "0", "none"])
def test_sortlint_cache_dir_off_turns_the_cache_off(project, capsys, monkeypatch, value):
    """As it turns off the cache of dbt's renderings: `off` is no folder to make."""
    monkeypatch.setenv("SORTLINT_CACHE_DIR", value)
    before = sorted(project.rglob("*"))
    assert run(project, capsys, cache="")[0] == KIND_EMAIL
    previous = Path.cwd()
    os.chdir(project)
    try:
        assert main(["check", "--dbt-renderer", "builtin"]) == 1
    finally:
        os.chdir(previous)
    capsys.readouterr()
    assert sorted(project.rglob("*")) == before


def test_the_cache_is_read(project, capsys):
    """A record is what a warm run reports: emptied by hand, the findings go with it."""
    assert findings(project, capsys) == KIND_EMAIL
    for path in records(project):
        record = pickle.loads(path.read_bytes())
        record.analysis.findings.clear()
        path.write_bytes(pickle.dumps(record))
    assert run(project, capsys)[0] == []


def test_an_edited_upstream_model_changes_its_readers_findings(project, capsys):
    assert findings(project, capsys) == KIND_EMAIL
    write(project, {"models/staging/stg_events.sql": STAGED.replace("kind = {{ wanted_kind() }}", "host = 'a'")})
    assert findings(project, capsys) == HOST_A


def test_one_file_is_checked_with_its_upstream_models(project, capsys):
    assert findings(project, capsys, "models/marts/daily.sql") == KIND_EMAIL
    write(project, {"models/staging/stg_events.sql": STAGED.replace("kind = {{ wanted_kind() }}", "host = 'a'")})
    assert findings(project, capsys, "models/marts/daily.sql") == HOST_A
    assert findings(project, capsys) == HOST_A


def test_a_one_file_check_after_a_whole_run_takes_that_runs_records(project, capsys):
    """The file's record and its upstream model's, as the whole run named them: nothing is
    analysed again (no record is added) and what is replayed is the records' (emptied by
    hand, the findings go with them)."""
    assert findings(project, capsys) == KIND_EMAIL
    kept = records(project)
    assert findings(project, capsys, "models/marts/daily.sql") == KIND_EMAIL
    assert records(project) == kept
    for path in kept:
        record = pickle.loads(path.read_bytes())
        record.analysis.findings.clear()
        path.write_bytes(pickle.dumps(record))
    assert run(project, capsys, "models/marts/daily.sql")[0] == []


def edit_upstream_model(project: Path) -> list[str]:
    write(project, {"models/staging/stg_events.sql": STAGED.replace("kind = {{ wanted_kind() }}", "host = 'a'")})
    return HOST_A


def edit_macro(project: Path) -> list[str]:
    write(project, {"macros/kinds.sql": MACROS.replace("'email'", "'sms'")})
    return [line.replace("'email'", "'sms'") for line in KIND_EMAIL]


def edit_var(project: Path) -> list[str]:
    write(project, {"dbt_project.yml": PROJECT.replace("wanted: email", "wanted: push")})
    return [line.replace("'email'", "'push'") for line in KIND_EMAIL]


def edit_declaration(project: Path) -> list[str]:
    write(project, {"models/schema.yml": (project / "models/schema.yml").read_text().replace("{kind: 'sms'}", "{host: 'b'}")})
    return [line.replace("kind is", "host is").replace("kind = 'sms'", "host = 'b'").replace(":10:", ":16:")
            for line in BY_DECLARATION]


BY_DECLARATION = [
    "models/marts/daily.sql:3:10: SL103 [*] group key kind is constant: declared constant kind = 'sms' "
    "of raw.events (models/schema.yml:7) [declared]",
    "models/marts/daily.sql:4:10: SL003 [*] sort key kind is constant: declared constant kind = 'sms' "
    "of raw.events (models/schema.yml:7) [declared]",
]


@pytest.mark.parametrize("edit", [edit_upstream_model, edit_macro, edit_var, edit_declaration],
                         ids=lambda edit: edit.__name__)
def test_a_one_file_check_after_a_whole_run_never_replays_what_an_edit_since_changed(project, capsys, edit):
    if edit is edit_var:
        write(project, {"models/staging/stg_events.sql":
                        STAGED.replace("{{ wanted_kind() }}", "'{{ var(\"wanted\") }}'")})
    if edit is edit_declaration:
        declare_in_the_property_file(project, "{kind: 'sms'}")
    before = BY_DECLARATION if edit is edit_declaration else KIND_EMAIL
    assert findings(project, capsys) == before
    expected = edit(project)
    assert expected != before
    assert findings(project, capsys, "models/marts/daily.sql") == expected


@pytest.mark.parametrize("arguments", [(), ("models/marts/daily.sql",)], ids=["whole", "one file"])
def test_an_edited_upstream_table_model_changes_what_its_readers_know_under_spark(project, capsys, arguments):
    """Under Spark a model is a table its readers know by the facts of its query (not inlined
    as under DataFusion): those facts are part of what a reader's record holds."""
    write(project, {"sortlint.yml": CATALOG.replace("datafusion", "spark")})

    def cited_as_a_table(lines: list[str]) -> list[str]:
        # ... and, the keys being strings, SL103 has no fix: any_value would make Spark sort.
        return [line.replace("(models/staging/stg_events.sql:1)", "(line 1) in models/staging/stg_events.sql")
                .replace("SL103 [*unsafe]", "SL103") for line in lines]

    assert findings(project, capsys, *arguments) == cited_as_a_table(KIND_EMAIL)
    write(project, {"models/staging/stg_events.sql": STAGED.replace("kind = {{ wanted_kind() }}", "host = 'a'")})
    assert findings(project, capsys, *arguments) == cited_as_a_table(HOST_A)
    write(project, {"models/staging/stg_events.sql": STAGED.replace(" where kind = {{ wanted_kind() }}", "")})
    assert findings(project, capsys, *arguments) == []


def test_an_edited_macro_changes_the_findings(project, capsys):
    assert findings(project, capsys) == KIND_EMAIL
    write(project, {"macros/kinds.sql": "{% macro wanted_kind() %}kind{% endmacro %}\n"})
    assert findings(project, capsys) == []


def test_a_var_changes_the_findings(project, capsys):
    write(project, {"models/staging/stg_events.sql": STAGED.replace("{{ wanted_kind() }}", "'{{ var(\"wanted\") }}'")})
    assert findings(project, capsys) == KIND_EMAIL
    assert findings(project, capsys, "--var", "wanted=sms") == [line.replace("'email'", "'sms'") for line in KIND_EMAIL]
    write(project, {"dbt_project.yml": PROJECT.replace("wanted: email", "wanted: push")})
    assert findings(project, capsys) == [line.replace("'email'", "'push'") for line in KIND_EMAIL]


def declare_in_the_property_file(project: Path, constants: str) -> str:
    """The project with raw.events declared in models/schema.yml (with `constants`) instead
    of sortlint.yml, and its staging model filtering nothing; the property file's text."""
    declared = SCHEMA + textwrap.indent(textwrap.dedent(f"""\
        meta:
          sortlint:
            columns: {{id: bigint not null, kind: string not null, host: string not null, at: timestamp}}
            constants: {constants}
        """), " " * 8)
    write(project, {"sortlint.yml": "target: datafusion\n", "models/schema.yml": declared,
                    "models/staging/stg_events.sql": "select id, kind, host, at from {{ source('raw', 'events') }}\n"})
    return declared


def test_an_edited_property_file_declaration_changes_the_findings(project, capsys):
    declared = declare_in_the_property_file(project, "{kind: 'sms'}")
    by_declaration = [
        "models/marts/daily.sql:3:10: SL103 [*] group key kind is constant: declared constant kind = 'sms' "
        "of raw.events (models/schema.yml:7) [declared]",
        "models/marts/daily.sql:4:10: SL003 [*] sort key kind is constant: declared constant kind = 'sms' "
        "of raw.events (models/schema.yml:7) [declared]",
    ]
    assert findings(project, capsys) == by_declaration
    write(project, {"models/schema.yml": declared.replace("{kind: 'sms'}", "{host: 'b'}")})
    assert findings(project, capsys) == [
        line.replace("kind is", "host is").replace("kind = 'sms'", "host = 'b'").replace(":10:", ":16:")
        for line in by_declaration
    ]


def test_an_edited_dbt_catalog_changes_the_findings(project, capsys):
    """dbt's catalog.json (`dbt docs generate`) gives column types: under target: datafusion a
    column of unknown type teaches nothing, a string one is the constant the WHERE says."""
    write(project, {"sortlint.yml": "target: datafusion\n",
                    "models/staging/stg_events.sql": STAGED.replace("kind = {{ wanted_kind() }}", "host = 'a'")})
    assert findings(project, capsys) == []

    def catalog(host_type: str) -> str:
        columns = {"host": {"type": host_type, "index": 1, "name": "host", "comment": None}}
        return json.dumps({"nodes": {}, "sources": {"source.shop.raw.events": {"columns": columns}}})

    write(project, {"target/catalog.json": catalog("string")})
    assert findings(project, capsys) == HOST_A
    write(project, {"target/catalog.json": catalog("binary")})  # not compared by the model: no fact
    assert findings(project, capsys) == []


def test_an_edited_configuration_changes_the_findings(project, capsys):
    assert findings(project, capsys) == KIND_EMAIL
    write(project, {"sortlint.yml": CATALOG + "ignore: [SL003]\n"})
    assert findings(project, capsys) == KIND_EMAIL[:1]
    # Without a column type a comparison pins nothing.
    write(project, {"sortlint.yml": CATALOG.replace("kind: string not null, ", "")})
    assert findings(project, capsys) == []


def test_an_edited_view_in_another_file_changes_its_readers_findings(tmp_path, capsys):
    write(tmp_path, {
        "sortlint.yml": CATALOG,
        "a_view.sql": "CREATE VIEW emails AS SELECT id, kind, host FROM raw.events WHERE kind = 'email';\n",
        "b_read.sql": "SELECT kind, host FROM emails ORDER BY kind, host;\n",
    })
    constant_kind = ["b_read.sql:1:40: SL003 [*unsafe] sort key kind is constant: WHERE events.kind = 'email' "
                     "(a_view.sql:1) (code outside this statement, which may change) [upstream]"]
    assert findings(tmp_path, capsys) == constant_kind
    write(tmp_path, {"a_view.sql": "CREATE VIEW emails AS SELECT id, kind, host FROM raw.events WHERE host = 'x';\n"})
    assert findings(tmp_path, capsys) == [
        "b_read.sql:1:46: SL003 [*unsafe] sort key host is constant: WHERE events.host = 'x' (a_view.sql:1) "
        "(code outside this statement, which may change) [upstream]"
    ]


def test_a_view_in_another_file_is_seen_by_a_reader_checked_alone_and_forgotten_once_a_second_file_writes_it(
    tmp_path, capsys
):
    write(tmp_path, {
        "sortlint.yml": CATALOG,
        "a_read.sql": "SELECT kind, host FROM emails ORDER BY kind, host;\n",  # before the view's file
        "views/emails.sql": "CREATE VIEW emails AS SELECT id, kind, host FROM raw.events WHERE kind = 'email';\n",
    })
    constant_kind = ["a_read.sql:1:40: SL003 [*unsafe] sort key kind is constant: WHERE events.kind = 'email' "
                     "(views/emails.sql:1) (code outside this statement, which may change) [upstream]"]
    assert findings(tmp_path, capsys) == constant_kind
    assert findings(tmp_path, capsys, "a_read.sql") == constant_kind
    # Which of two writers runs last is not in the repository: the view is not known.
    write(tmp_path, {"jobs/rebuild.sql": "CREATE OR REPLACE VIEW emails AS SELECT id, kind, host FROM raw.events;\n"})
    assert findings(tmp_path, capsys, "a_read.sql") == findings(tmp_path, capsys) == []
    (tmp_path / "jobs" / "rebuild.sql").unlink()
    assert findings(tmp_path, capsys, "a_read.sql") == constant_kind


def test_another_version_of_sortlint_does_not_read_the_records(project, capsys, monkeypatch):
    assert findings(project, capsys) == KIND_EMAIL
    for path in records(project):  # were they read, the findings would be gone
        record = pickle.loads(path.read_bytes())
        record.analysis.findings.clear()
        path.write_bytes(pickle.dumps(record))
    monkeypatch.setattr(sortlint, "__version__", sortlint.__version__ + ".post1")
    assert run(project, capsys)[0] == KIND_EMAIL


def test_another_version_of_sortlint_does_not_read_what_the_cache_kept_of_property_files(project, capsys, monkeypatch):
    """What a property file declares is kept by the file's text for the next run; another
    version of sortlint may read the same text otherwise (a kind of declaration it adds, a
    column's type), so it reads it again. The first run here stands for a sortlint that read
    no declaration in the file."""
    from sortlint.sources.dbt import project as dbt_project

    declare_in_the_property_file(project, "{host: 'b'}")
    with monkeypatch.context() as older:
        older.setattr(dbt_project, "_file_declarations", lambda *arguments: ((), frozenset()))
        assert run(project, capsys)[0] == []
    dbt_project.property_scans.clear()  # a new process starts without them
    monkeypatch.setattr(sortlint, "__version__", sortlint.__version__ + ".post1")
    assert run(project, capsys)[0] == [
        "models/marts/daily.sql:3:16: SL103 [*] group key host is constant: declared constant host = 'b' "
        "of raw.events (models/schema.yml:7) [declared]",
        "models/marts/daily.sql:4:16: SL003 [*] sort key host is constant: declared constant host = 'b' "
        "of raw.events (models/schema.yml:7) [declared]",
    ]


def test_what_a_long_lived_process_keeps_of_the_files_it_scanned_does_not_grow_with_their_edits(project, capsys):
    """The language server checks again and again in one process: the memos of what the
    macro, property and model files say, and what the cache keeps of them, hold the files
    as they are, not every version they had."""
    from sortlint.sources.dbt import context as dbt_context
    from sortlint.sources.dbt import project as dbt_project

    def kept(namespace: str) -> list[int]:
        return sorted(len(pickle.loads(path.read_bytes())) for path in (project / "cache" / namespace).glob("*.pickle"))

    def sizes() -> list:
        memos = (dbt_context.macro_scans, dbt_project.property_scans, dbt_project.config_scans)
        return [*map(len, memos), *map(kept, ("dbt-macros", "dbt-properties", "dbt-configs"))]

    seen = []
    for edit in range(4):
        write(project, {
            "macros/kinds.sql": MACROS + f"{{% macro unused_{edit}() %}}1{{% endmacro %}}\n",
            "models/schema.yml": SCHEMA + f"# edit {edit}\n",
            "models/marts/daily.sql": DAILY + f"-- edit {edit}\n",
        })
        assert run(project, capsys)[0] == KIND_EMAIL
        seen.append(sizes())
    assert seen[0][0] > 1 and seen[0][3] == [seen[0][0]]  # dbt's own macro files and the project's
    assert seen[0][2] == 2 and seen[0][5] == [2]  # the two models
    assert seen == [seen[0]] * 4


@pytest.mark.parametrize("damage", [b"", b"garbage", None])
def test_a_damaged_cache_is_ignored_with_one_note(project, capsys, damage):
    assert findings(project, capsys) == KIND_EMAIL
    for path in records(project):
        path.write_bytes(path.read_bytes()[:20] if damage is None else damage)
    found, said = run(project, capsys)
    assert found == KIND_EMAIL
    notes = [line for line in said.splitlines() if "cache" in line]
    assert len(notes) == 3 and all(line.startswith("note: ignored an unreadable cache entry ") for line in notes)
    assert run(project, capsys) == (KIND_EMAIL, "")  # written anew


def test_an_entry_that_is_not_a_regular_file_is_never_replaced(project, capsys):
    """A rename over it would replace a device (as root, any device) with a file."""
    assert findings(project, capsys) == KIND_EMAIL
    for path in records(project):
        path.unlink()
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device
        except PermissionError:
            pytest.skip("mknod needs root")
    found, said = run(project, capsys)
    assert found == KIND_EMAIL
    assert all(stat.S_ISCHR(path.stat().st_mode) for path in records(project))
    assert sorted(said.splitlines()) == sorted(
        line for path in records(project)
        for line in (f"note: ignored an unreadable cache entry {path.relative_to(project)} (EOFError)",
                     f"note: left alone a cache entry that is not a regular file: {path.relative_to(project)}")
    )


def test_a_read_only_cache_is_used_without_writing_with_one_note(project, capsys):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    (project / "cache").mkdir()
    (project / "cache").chmod(0o555)
    found, said = run(project, capsys)
    assert found == KIND_EMAIL
    assert said.count("note: cannot write the cache") == 1


def test_an_unwritable_cache_path_is_noted_once(project, capsys):
    (project / "cache").write_text("a file where the cache should be")
    found, said = run(project, capsys)
    assert found == KIND_EMAIL
    assert said.count("note: cannot write the cache in cache") == 1 and said.count("\n") == 1


def test_two_checks_at_once_both_report_right(project):
    command = [sys.executable, "-m", "sortlint", "check", "--dbt-renderer", "builtin", "--cache-dir", "cache",
               "."]
    runs = [subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [process.communicate(timeout=300) for process in runs]
    for out, err in outputs:
        assert [line for line in out.splitlines() if ": SL" in line] == KIND_EMAIL
        assert err == ""
    assert len(records(project)) == 3


def sortlint_in(folder: Path, *arguments: str) -> str:
    """What `sortlint check` prints, run as a command in `folder`."""
    done = subprocess.run([sys.executable, "-m", "sortlint", "check", "--dbt-renderer", "builtin", *arguments],
                          cwd=folder, capture_output=True, text=True, timeout=300,
                          env={k: v for k, v in os.environ.items() if k != "SORTLINT_CACHE_DIR"})
    assert done.returncode in (0, 1) and done.stderr == "", done.stdout + done.stderr
    return done.stdout


def test_an_upstream_model_cached_from_another_folder_is_cited_from_this_one(tmp_path):
    """A run inside the project, after one in the project's parent folder, names the
    upstream model's file as it would without the cache. (Under Spark a model is a table:
    its facts, cited in its record, are what its readers cite.)"""
    project = tmp_path / "proj"
    write(project, {
        "sortlint.yml": CATALOG.replace("datafusion", "spark"),
        "dbt_project.yml": PROJECT,
        "macros/kinds.sql": MACROS,
        "models/schema.yml": SCHEMA,
        "models/staging/stg_events.sql": STAGED,
        "models/marts/daily.sql": DAILY,
    })
    from_parent = sortlint_in(tmp_path, "proj/models/marts/daily.sql")
    assert "(line 1) in proj/models/staging/stg_events.sql" in from_parent
    made = sorted((project / ".sortlint_cache" / "files").glob("*.pickle"))
    inside = sortlint_in(project / "models", "marts/daily.sql")
    assert inside == sortlint_in(project / "models", "--no-cache", "marts/daily.sql")
    assert inside == "\n".join([
        "marts/daily.sql:3:10: SL103 group key kind is constant: WHERE events.kind = 'email' "
        "(line 1) in staging/stg_events.sql (code outside this statement, which may change) [upstream]",
        "marts/daily.sql:4:10: SL003 [*unsafe] sort key kind is constant: WHERE events.kind = 'email' "
        "(line 1) in staging/stg_events.sql (code outside this statement, which may change) [upstream]",
        "Found 2 findings in 1 file.",
        "",
    ])
    # The checked file and its upstream model are named another way from here (a file read
    # on demand is named as a walk from the working directory names it, so that a one-file
    # check takes a whole-project check's records): both are analysed again.
    assert len(set((project / ".sortlint_cache" / "files").glob("*.pickle")) - set(made)) == 2


def test_a_declaration_cached_from_another_folder_is_cited_from_this_one(tmp_path):
    project = tmp_path / "proj"
    write(project, {
        "sortlint.yml": "target: spark\nsources:\n  raw.events:\n"
                        "    columns: {id: bigint not null, kind: string not null}\n    unique: [[id]]\n",
        "warehouse/counts.sql": "select id, kind, count(*) as n\nfrom raw.events\ngroup by id, kind\n",
    })
    checked = str(project / "warehouse" / "counts.sql")  # named alike from anywhere: one record
    assert "(proj/sortlint.yml:3)" in sortlint_in(tmp_path, checked)
    inside = sortlint_in(project, checked)
    assert inside == sortlint_in(project, "--no-cache", checked)
    assert inside == (
        f"{checked}:3:14: SL103 group key kind is determined by the earlier keys: "
        "declared unique key (id) of raw.events (sortlint.yml:3) [declared]\n"
        "Found 1 finding in 1 file.\n"
    )


def test_clean_removes_the_cache(project, capsys):
    findings(project, capsys)
    previous = Path.cwd()
    os.chdir(project)
    try:
        assert main(["clean", "--cache-dir", "cache"]) == 0
        assert not (project / "cache").exists()
        assert main(["clean", "--cache-dir", "cache"]) == 0
    finally:
        os.chdir(previous)
    assert capsys.readouterr().out == "removed the cache cache\nno cache at cache\n"


def test_clean_leaves_a_folder_sortlint_did_not_make(tmp_path, capsys):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "keep.txt").write_text("mine")
    assert main(["clean", "--cache-dir", str(tmp_path / "notes")]) == 0
    assert (tmp_path / "notes" / "keep.txt").read_text() == "mine"


def test_a_configuration_edit_analyses_again_without_rendering_again(project, capsys, monkeypatch):
    from sortlint.sources.dbt import rendering

    assert findings(project, capsys) == KIND_EMAIL
    write(project, {"sortlint.yml": CATALOG + "ignore: [SL003]\n"})
    rendered: list[str] = []
    render_model = rendering.render_model

    def counted(path, *arguments):
        rendered.append(path.name)
        return render_model(path, *arguments)

    monkeypatch.setattr(rendering, "render_model", counted)
    assert run(project, capsys)[0] == KIND_EMAIL[:1]
    assert rendered == []
    write(project, {"models/marts/daily.sql": DAILY + "-- edited\n"})
    assert run(project, capsys)[0] == KIND_EMAIL[:1]
    assert rendered == ["daily.sql"]


def test_a_check_the_cache_answers_loads_neither_the_analysis_nor_sqlglot(tmp_path):
    """A pre-commit hook on unchanged files pays for reading the records, not for importing
    the engines and the parser, nor multiprocessing for workers it does not start. (A record
    of a view holds its parsed query: reading it back loads sqlglot.) Plain SQL never loads
    what dbt projects and DAGs need, warm or cold."""
    write(tmp_path, {"sortlint.yml": CATALOG, "q.sql": "SELECT host, kind FROM raw.events ORDER BY host, host;\n"})
    probe = (
        "import sys\n"
        "from sortlint.cli import main\n"
        "code = main(['check', '--jobs', '2', '--cache-dir', 'cache', '.'])\n"
        "loaded = [m for m in ('sqlglot', 'sortlint.linter.analysis', 'sortlint.sources.dbt.compiled',\n"
        "          'sortlint.sources.dbt.context', 'sortlint.sources.airflow.dags', 'multiprocessing')\n"
        "          if m in sys.modules]\n"
        "print('loaded:', loaded, file=sys.stderr)\n"
    )
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    assert runs[0].stderr == "loaded: ['sqlglot', 'sortlint.linter.analysis']\n"
    assert runs[1].stdout == runs[0].stdout
    assert "q.sql:1:50: SL003 [*] sort key host repeats an earlier key [query]" in runs[1].stdout
    assert runs[1].stderr == "loaded: []\n"


def test_an_edited_dag_changes_its_template_files_findings(tmp_path, capsys):
    write(tmp_path, {
        "sortlint.yml": CATALOG + 'include: ["dags/*.py", "dags/sql/*.sql"]\n',
        "dags/daily.py": textwrap.dedent("""\
            from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator

            report = SQLExecuteQueryOperator(task_id="report", sql="sql/report.sql", params={"host": "a"})
            """),
        "dags/sql/report.sql": "SELECT host, kind FROM raw.events WHERE host = '{{ params.host }}' ORDER BY host, kind\n",
    })
    constant = ["dags/sql/report.sql:1:77: SL003 [*] sort key host is constant: WHERE events.host = 'a' (line 1) [query]"]
    assert findings(tmp_path, capsys) == constant
    dag = tmp_path / "dags" / "daily.py"
    dag.write_text(dag.read_text().replace('"host": "a"', '"host": "b"'))
    assert findings(tmp_path, capsys) == [constant[0].replace("'a'", "'b'")]
    dag.write_text(dag.read_text().replace('sql="sql/report.sql"', 'sql="SELECT 1"'))
    assert findings(tmp_path, capsys, codes=(2,)) == []  # no longer a template: `params` is undefined


def test_an_added_model_is_checked_with_its_upstream(project, capsys):
    assert findings(project, capsys) == KIND_EMAIL
    write(project, {"models/marts/by_host.sql": "select host, kind from {{ ref('stg_events') }} order by kind, host\n"})
    added = ["models/marts/by_host.sql:1:57: SL003 [*unsafe] sort key kind is constant: WHERE events.kind = 'email' "
             "(models/staging/stg_events.sql:1) (code outside this statement, which may change) [upstream]"]
    assert findings(project, capsys, "models/marts/by_host.sql") == added
    assert findings(project, capsys) == sorted(added + KIND_EMAIL)


def test_a_template_written_earlier_on_the_search_path_is_read_instead(tmp_path, capsys):
    write(tmp_path, {
        "sortlint.yml": CATALOG + 'include: ["dags/*.py"]\n',
        "dags/daily.py": textwrap.dedent("""\
            from airflow import DAG
            from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator

            with DAG("daily", template_searchpath=["/nowhere", "sql_first", "sql_second"]) as dag:
                report = SQLExecuteQueryOperator(task_id="report", sql="report.sql")
            """),
        "dags/sql_second/report.sql": "SELECT host, kind FROM raw.events WHERE host = 'a' ORDER BY host, kind\n",
    })
    before = findings(tmp_path, capsys)
    assert len(before) == 1 and "sort key host is constant: WHERE events.host = 'a'" in before[0]
    write(tmp_path, {"dags/sql_first/report.sql": "SELECT host, kind FROM raw.events WHERE kind = 'b' ORDER BY kind, host\n"})
    after = findings(tmp_path, capsys)
    assert len(after) == 1 and "sort key kind is constant: WHERE events.kind = 'b'" in after[0]


def test_a_module_written_nearer_a_job_is_imported_instead(tmp_path, capsys):
    frames = """\
        from pyspark.sql import functions as F

        def errors_only(df):
            return df.filter(F.col("level") == "ERROR")
        """
    write(tmp_path, {
        "sortlint.yml": "sources:\n  telemetry.events:\n    columns: {host: string not null, level: string}\n",
        "frames.py": textwrap.dedent(frames),
        "jobs/job.py": textwrap.dedent("""\
            from pyspark.sql import SparkSession
            from frames import errors_only

            spark = SparkSession.builder.getOrCreate()
            errors_only(spark.table("telemetry.events")).orderBy("level").write.saveAsTable("a")
            """),
    })
    constant_level = findings(tmp_path, capsys, "jobs/job.py")
    assert [line.split(" [")[0] for line in constant_level] == ["jobs/job.py:5:45: SL001"]
    write(tmp_path, {"jobs/frames.py": textwrap.dedent(frames).replace('.filter(F.col("level") == "ERROR")', "")})
    assert findings(tmp_path, capsys, "jobs/job.py") == []


def test_an_unsaved_buffer_of_what_a_file_reads_counts_over_its_cached_record(tmp_path, capsys):
    """An editor's buffers stand in for their files (`standing_in`): a record made from the
    text on disk of a job's module or of a DAG's template holds only while the text standing
    in for it reads the same."""
    frames = textwrap.dedent("""\
        from pyspark.sql import functions as F

        def errors_only(df):
            return df.filter(F.col("kind") == "error")
        """)
    write(tmp_path, {
        "sortlint.yml": CATALOG + 'include: ["jobs/*.py", "dags/*.py"]\n',
        "jobs/frames.py": frames,
        "jobs/job.py": textwrap.dedent("""\
            from pyspark.sql import SparkSession
            from frames import errors_only

            spark = SparkSession.builder.getOrCreate()
            errors_only(spark.table("raw.events")).orderBy("kind").write.saveAsTable("a")
            """),
        "dags/daily.py": textwrap.dedent("""\
            from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator

            report = SQLExecuteQueryOperator(task_id="report", sql="sql/report.sql")
            """),
        "dags/sql/report.sql": "SELECT host, kind FROM raw.events WHERE host = 'a' ORDER BY host, kind\n",
    })
    saved = findings(tmp_path, capsys)
    assert [" ".join(line.split()[:2]) for line in saved] == [
        "dags/sql/report.sql:1:61: SL003", "jobs/job.py:5:39: SL001",
    ]
    unsaved = {
        tmp_path / "jobs" / "frames.py": frames.replace('.filter(F.col("kind") == "error")', "").encode(),
        tmp_path / "dags" / "sql" / "report.sql": b"SELECT host, kind FROM raw.events ORDER BY host, kind\n",
    }
    with standing_in(unsaved):
        assert findings(tmp_path, capsys) == []
    assert findings(tmp_path, capsys) == saved


def renderings(root: Path) -> set[str]:
    return {p.name for p in (root / "cache" / "dbt-renderings").glob("*.pickle")}


def test_a_new_model_renders_itself_and_reads_the_records_of_the_rest(project, capsys):
    # a model's results are kept by the models its rendering resolves, not by every model
    # of the project: adding one leaves the others' renderings and records standing
    assert findings(project, capsys) == KIND_EMAIL
    before, kept = renderings(project), set(records(project))
    write(project, {"models/marts/by_host.sql": "select host, kind from {{ ref('stg_events') }} order by kind, host\n"})
    run(project, capsys, "models/marts/by_host.sql")
    assert len(renderings(project) - before) == 1 and before <= renderings(project)
    assert len(set(records(project)) - kept) == 1


def test_a_one_file_check_reads_the_projects_scan_from_the_cache_not_its_models_or_yaml(project, capsys, monkeypatch):
    # What a new process has of a project is what the cache kept: a one-file check after a
    # whole run scans no model's `config(...)` and composes no property file; adding a model
    # scans that model's `config(...)` alone. (Both once scanned the whole project.)
    from sortlint.sources.dbt import project as dbt

    assert findings(project, capsys) == KIND_EMAIL
    scanned: list[str] = []
    composed: list[object] = []
    scan_config, property_configs = dbt._scan_config, dbt._property_configs
    monkeypatch.setattr(dbt, "_scan_config", lambda text: scanned.append(text) or scan_config(text))
    monkeypatch.setattr(dbt, "_property_configs", lambda root: composed.append(root) or property_configs(root))

    def fresh_process() -> None:
        for memo in (dbt.config_scans, dbt.config_scans_used, dbt.property_scans, dbt.property_scans_used):
            memo.clear()
        scanned.clear()
        composed.clear()

    fresh_process()
    assert run(project, capsys, "models/marts/daily.sql")[0] == KIND_EMAIL
    assert (scanned, composed) == ([], [])
    added = "select host, kind from {{ ref('stg_events') }} order by kind, host\n"
    write(project, {"models/marts/by_host.sql": added})
    fresh_process()
    assert run(project, capsys, "models/marts/by_host.sql")[0] == [
        "models/marts/by_host.sql:1:57: SL003 [*unsafe] sort key kind is constant: WHERE events.kind = 'email' "
        "(models/staging/stg_events.sql:1) (code outside this statement, which may change) [upstream]"]
    assert (scanned, composed) == ([added], [])


def test_a_model_added_under_a_name_a_model_refs_changes_that_models_findings(project, capsys):
    write(project, {"models/marts/reader.sql": "select kind, host from {{ ref('emails') }} order by kind, host\n"})
    assert findings(project, capsys) == KIND_EMAIL
    # `ref('emails')` resolved to no model; now it is one, and read by its alias
    write(project, {"models/staging/emails.sql": "{{ config(alias='only_emails') }}\n" + STAGED})
    assert findings(project, capsys) == sorted(KIND_EMAIL + [
        "models/marts/reader.sql:1:53: SL003 [*unsafe] sort key kind is constant: WHERE events.kind = 'email' "
        "(models/staging/emails.sql:2) (code outside this statement, which may change) [upstream]",
    ])


def test_a_config_an_upstream_model_sets_changes_how_its_readers_read_it(project, capsys):
    assert findings(project, capsys) == KIND_EMAIL
    write(project, {"models/marts/other.sql": "select 1 as one\n"})  # a model more: its readers stand
    assert findings(project, capsys) == KIND_EMAIL
    # its readers now name it by its alias: a reader rendered before would read a table no
    # model defines any more, and find nothing
    write(project, {"models/staging/stg_events.sql": "{{ config(alias='events_by_kind') }}\n" + STAGED})
    assert findings(project, capsys) == [line.replace("stg_events.sql:1", "stg_events.sql:2") for line in KIND_EMAIL]


def test_a_model_reading_the_graph_is_rendered_again_when_any_model_is_added(project, capsys):
    counted = ("select kind, host, {{ graph.nodes | length }} as models from {{ ref('stg_events') }} "
               "order by kind, host\n")
    write(project, {"models/marts/daily.sql": counted})
    first = findings(project, capsys)
    write(project, {"models/marts/other.sql": "select 1 as one\n"})
    before = renderings(project)
    assert findings(project, capsys) == first
    # the reader of `graph` and the new model: two renderings more
    assert len(renderings(project) - before) == 2
