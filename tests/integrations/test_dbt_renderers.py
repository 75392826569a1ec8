"""`sortlint coverage --compare-renderers`: the built-in renderer held to dbt's output on
every dbt project we have (the shared corpora, the examples, the generated benchmark
project), and the built-in renderer's failures on a real project, each rendered as dbt
renders it."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.config import Config, DbtOptions
from sortlint.sources.dbt import compiled as dbt_compiled
from sortlint.sources.dbt import project as dbt
from sortlint.sources.dbt.rendering import render_model

from file_trees import write

REPOSITORY = Path(__file__).resolve().parents[2]
CORPORA = REPOSITORY.parent / "shared" / "corpora" / "dbt"

requires_dbt = pytest.mark.skipif(
    dbt_compiled.dbt_version() is None, reason="dbt-core is not installed (the dbt extra)"
)


def generated_project(root: Path) -> Path:
    spec = importlib.util.spec_from_file_location("dbt_project_benchmark", REPOSITORY / "benchmarks" / "dbt_project.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module.generate(root, models=12, seed=0, profile="real")


@requires_dbt
@pytest.mark.dbt_core
@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared/corpora/dbt is missing")
def test_every_project_we_have_renders_the_same_with_both_renderers(tmp_path, capsys, monkeypatch):
    """jaffle_shop; dbt's project evaluator with dbt_utils installed; dbt_utils itself,
    which has no models (its integration project is not in the corpus): its macros are
    compared through the evaluator's models; the examples; the generated benchmark project
    (12 models, its `real` profile: cross-package macros, dispatch, long CTE chains)."""
    shutil.copytree(CORPORA / "jaffle_shop", tmp_path / "jaffle_shop")
    shutil.copytree(CORPORA / "dbt_project_evaluator", tmp_path / "dbt_project_evaluator")
    shutil.copytree(CORPORA / "packages" / "dbt_utils", tmp_path / "dbt_project_evaluator" / "dbt_packages" / "dbt_utils")
    shutil.copytree(CORPORA / "packages" / "dbt_utils", tmp_path / "dbt_utils")
    shutil.copytree(REPOSITORY / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns(".sortlint_cache"))
    generated_project(tmp_path / "generated")
    monkeypatch.chdir(tmp_path)
    paths = ["jaffle_shop", "dbt_project_evaluator", "dbt_utils", "examples", "generated"]
    assert main(["coverage", "--compare-renderers", "--jobs", "1", *paths]) == 0
    assert capsys.readouterr() == (
        "Compared 73 models of 4 dbt projects (2 disabled, left out by both): dbt and the "
        "built-in renderer agree on every one.\n", "")


# ---------------------------------------------------------------------------------------------
# Failures of the built-in renderer on a real project, rendered as dbt renders them

FIXED = {
    "dbt_project.yml": 'name: p\nversion: "1.2.3"\nmodels:\n  p:\n    optional:\n      +enabled: false\n',
    # dbt's `ref` carries the run's configuration (the Tuva project's get_runtime_config)
    "macros/versions.sql": (
        "{% macro runtime_config() %}{{ return(builtins.ref.config) }}{% endmacro %}\n"
        "{% macro package_version() %}{% set conf = p.runtime_config() %}"
        "{% do return(conf.dependencies['p'].version) %}{% endmacro %}\n"),
    "models/versioned.sql":
        "select '{{ p.package_version() }}' as version, '{{ builtins.ref.config.project_name }}' as name,\n"
        "  a from t\n",
    # dbt parses a model with each var not set as None: the config disables it, and dbt
    # never compiles the SQL that needs the var
    "models/switched_off.sql":
        "{{ config(enabled=var('feature_on', false)) }}\nselect {{ var('feature_table') }}.a from t\n",
    "models/optional/needs_a_var.sql": "select {{ var('feature_table') }}.a from t\n",
    # a set's order: Python's hash order, different in every process
    "models/ordered.sql":
        "{% set names = set_strict(['zeta', 'alpha', 'mid', 'alpha', 'omega', 'beta']) %}\n"
        "select {% for n in names %}'{{ n }}' as {{ n }}{{ ', ' if not loop.last }}{% endfor %} from t\n",
}
BUILTIN = Config(dbt=DbtOptions(renderer="builtin"))


def rendered(root: Path, model: str):
    project = dbt.read_project(root.resolve())
    path = project.models()[model]
    return render_model(path, path.read_text(), project, BUILTIN)


def test_a_macro_reads_the_run_configuration_through_ref(tmp_path):
    root = write(tmp_path / "p", FIXED)
    assert rendered(root, "versioned").text == (
        "select '1.2.3' as version, 'p' as name,\n  a from t\n")


def test_a_model_its_config_disables_needs_no_var_its_sql_reads(tmp_path, capsys, monkeypatch):
    write(tmp_path / "p", FIXED)
    monkeypatch.chdir(tmp_path)
    assert rendered(tmp_path / "p", "switched_off").enabled is False
    assert main(["check", "--no-cache", "p"]) == 0
    assert capsys.readouterr() == ("All checks passed (5 files).\n", "")
    # turned on, the var it needs is missing: an error, as under dbt
    assert main(["check", "--no-cache", "--var", "feature_on=true", "p/models/switched_off.sql"]) == 2
    assert capsys.readouterr()[1] == (
        "error: p/models/switched_off.sql:2: cannot render template: required var 'feature_table' not "
        "found: set it under vars: in dbt_project.yml, give var() a default, or pass --var\n")


def test_a_set_iterates_in_the_order_its_items_came(tmp_path):
    root = write(tmp_path / "p", FIXED)
    assert rendered(root, "ordered").text == (
        "\nselect 'zeta' as zeta, 'alpha' as alpha, 'mid' as mid, 'omega' as omega, 'beta' as beta from t\n")


def test_a_macro_that_recurses_without_end_is_its_models_one_line_error(tmp_path, capsys, monkeypatch):
    write(tmp_path / "p", {
        "dbt_project.yml": "name: p\n",
        "macros/loops.sql": "{% macro spin(x) %}{{ spin(x) }}{% endmacro %}\n"
                            "{% macro start(x) %}{{ spin(x) }}{% endmacro %}\n",
        "models/spins.sql": "select 1 as one\nfrom t\nwhere {{ start('a') }}\n",
        "models/fine.sql": "select a from t\n",
    })
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "p"]) == 2
    assert capsys.readouterr() == (
        "Found 0 findings. 1 error.\n",
        "error: p/models/spins.sql:3: cannot render template: macro p.start recurses without end "
        "(Python's stack ran out)\n")


@requires_dbt
@pytest.mark.dbt_core
def test_dbt_renders_those_models_as_the_builtin_renderer_does(tmp_path, capsys, monkeypatch):
    write(tmp_path / "p", FIXED)
    monkeypatch.chdir(tmp_path)
    assert main(["coverage", "--compare-renderers", "--jobs", "1", "p"]) == 0
    assert capsys.readouterr() == (
        "Compared 2 models of 1 dbt project (2 disabled, left out by both): dbt and the built-in "
        "renderer agree on every one.\n", "")


# ---------------------------------------------------------------------------------------------
# The command's report


@requires_dbt
@pytest.mark.dbt_core
def test_a_model_that_differs_is_listed_with_its_first_differing_line(tmp_path, capsys, monkeypatch):
    """The built-in renderer's clock is fixed (2000-01-01); dbt's is the run's."""
    write(tmp_path / "p", {
        "dbt_project.yml": "name: p\n",
        "models/clock.sql": "select a,\n  {{ run_started_at.year > 2000 }} as recent\nfrom t\n",
        "models/same.sql": "select a from t\n",
    })
    monkeypatch.chdir(tmp_path)
    assert main(["coverage", "--compare-renderers", "--jobs", "1", "p"]) == 1
    assert capsys.readouterr() == (
        "p/models/clock.sql: rendering differs at line 2\n"
        "  dbt:     True as recent\n"
        "  builtin: False as recent\n"
        "Compared 2 models of 1 dbt project: 1 differs.\n", "")
    assert main(["coverage", "--compare-renderers", "--jobs", "1", "--output-format", "json", "p"]) == 1
    assert json.loads(capsys.readouterr().out) == {
        "projects": ["p"], "models": 2, "disabled": 0, "unrendered": 0,
        "differences": [{"path": "p/models/clock.sql", "differs_in": "rendering", "line": 2,
                         "dbt": "True as recent", "builtin": "False as recent"}],
        "errors": [], "summary": "Compared 2 models of 1 dbt project: 1 differs.",
    }


@requires_dbt
@pytest.mark.dbt_core
def test_a_project_dbt_cannot_render_is_one_error(tmp_path, capsys, monkeypatch):
    write(tmp_path / "p", {
        "dbt_project.yml": "name: p\n",
        "macros/loops.sql": "{% macro spin(x) %}{{ spin(x) }}{% endmacro %}\n",
        "models/spins.sql": "select {{ spin('a') }} as a from t\n",
    })
    monkeypatch.chdir(tmp_path)
    assert main(["coverage", "--compare-renderers", "--jobs", "1", "p"]) == 2
    out, err = capsys.readouterr()
    assert out == ("Compared 0 models of 0 dbt projects: dbt and the built-in renderer agree on every "
                   "one; 1 more dbt project dbt cannot render, not compared.\n")
    assert err.startswith(f"error: {tmp_path / 'p' / 'dbt_project.yml'}: dbt cannot render the project, so "
                          "there is nothing to compare: Compilation Error in model spins (models/spins.sql) "
                          "maximum recursion depth exceeded")
    assert err.count("\n") == 1


def test_without_dbt_core_comparing_is_a_usage_error(tmp_path, capsys, monkeypatch):
    write(tmp_path / "p", {"dbt_project.yml": "name: p\n", "models/a.sql": "select 1 as a\n"})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dbt_compiled, "dbt_version", lambda: None)
    assert main(["coverage", "--compare-renderers", "p"]) == 2
    assert capsys.readouterr() == ("", (
        "error: --compare-renderers renders every model with dbt too: it needs dbt-core "
        "(sortlint's dbt extra installs it: README, Install)\n"))
