"""sortlint finds the same with sqlglot's compiled build (sqlglotc, the `fast` extra) as with
its pure Python one, and no error with either.

sqlglotc installs compiled modules next to sqlglot's Python sources, and Python imports the
compiled ones first. Python classes cannot inherit from their classes, which the dialect
behind sortlint's output names once did: a statement with an unaliased expression was an
internal error. When the venv has sqlglotc (`make test` installs the `fast` extra), each run
below is made twice in a subprocess: as installed, and with sqlglot imported from its Python
sources in place of the compiled modules; without sqlglotc there is one build and the tests
skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlglot.tokens import SQLGLOTC_INSTALLED

ROOT = Path(__file__).resolve().parents[2]  # the checkout whose `sortlint` is tested
CORPORA = ROOT.parent / "shared" / "corpora"

pytestmark = pytest.mark.skipif(not SQLGLOTC_INSTALLED, reason="sqlglotc is not installed: one sqlglot build")

# Run first in the pure-Python subprocess: a finder that hands out each sqlglot module's
# Python source where the import system would find sqlglotc's compiled module.
PYTHON_SOURCES = '''
import importlib.machinery, importlib.util, sys

class PythonSources:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] != "sqlglot":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        origin = (spec and spec.origin) or ""
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            if origin.endswith(suffix):
                return importlib.util.spec_from_file_location(name, origin.removesuffix(suffix) + ".py")
        return spec

sys.meta_path.insert(0, PythonSources)
'''
SORTLINT = "from sortlint.cli import entry; sys.argv[0] = 'sortlint'; sys.exit(entry())"


def run(code: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SORTLINT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_pure_python_run_imports_no_compiled_module():
    probe = run(PYTHON_SOURCES + "import sqlglot.tokens, sqlglot.parser; "
                "print(sqlglot.tokens.SQLGLOTC_INSTALLED, sqlglot.parser.__file__)")
    assert probe.returncode == 0, probe.stderr
    compiled, parser = probe.stdout.split()
    assert (compiled, Path(parser).suffix) == ("False", ".py")


@pytest.mark.parametrize("target", ["examples", "tpcds", "tpch"])
def test_findings_are_the_same_with_both_builds(target):
    folder = ROOT / "examples" if target == "examples" else CORPORA / target
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here")
    args = ("check", "--jobs", "1", "--output-format", "json", ".")
    compiled = run("import sys; " + SORTLINT, *args, cwd=folder)
    pure = run(PYTHON_SOURCES + SORTLINT, *args, cwd=folder)
    assert (compiled.returncode, compiled.stderr) == (pure.returncode, pure.stderr)
    assert compiled.returncode in (0, 1), compiled.stderr
    assert compiled.stdout == pure.stdout
    assert '"E999"' not in compiled.stdout  # no internal error
