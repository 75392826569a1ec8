"""A dbt model reading a secret with `env_var()` renders a placeholder in its place: the
secret's value is in no message, comment, report or cache file, whichever renderer renders
the model (dbt's own too) and whatever the output format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from integrations.git_repos import commit, new_repo

from sortlint.config import DbtOptions
from sortlint.sources.dbt import compiled as dbt_compiled
from sortlint.sources.dbt import project as dbt_project

ROOT = Path(__file__).resolve().parents[3]
# Each kind of variable that holds a secret, with a value no output may show.
SECRETS = {
    "GITHUB_TOKEN": "ghp_value-of-the-github-token",
    "GITLAB_TOKEN": "glpat-value-of-the-gitlab-token",
    "CI_JOB_TOKEN": "value-of-the-ci-job-token",
    "warehouse_password": "value-of-a-password",
    "Api_Key": "value-of-a-key",
    "SLACK_SECRET_URL": "value-of-a-secret",
    "DBT_ENV_SECRET_SPARK": "value-of-a-dbt-secret",
}
CONFIG = """\
include: ["shop/models/**/*.sql"]
target: datafusion
dialect: spark
sources:
  t:
    columns: {a: int, b: string}
"""
PROJECT = 'name: shop\nversion: "1.0.0"\nconfig-version: 2\nmodel-paths: ["models"]\n'


def model(variable: str) -> str:
    return f"select a, b from t where b = '{{{{ env_var(\"{variable}\") }}}}'\norder by b, a\n"


def finding(name: str, value: str) -> str:
    return (f"shop/models/{name}.sql:2:10: SL003 [*] sort key b is constant: WHERE t.b = "
            f"'{value}' (line 1) [query]")


@pytest.fixture
def shop(tmp_path: Path):
    """A repository whose change adds a model per secret, and one reading a variable that
    holds none (`REGION`, rendered as it is)."""
    repo = new_repo(tmp_path / "repo", {"sortlint.yml": CONFIG, "shop/dbt_project.yml": PROJECT})
    repo.git.checkout("-b", "change")
    root = Path(repo.working_tree_dir)
    for variable in [*SECRETS, "REGION"]:
        (root / "shop/models" / f"{variable.lower()}.sql").parent.mkdir(parents=True, exist_ok=True)
        (root / "shop/models" / f"{variable.lower()}.sql").write_text(model(variable))
    commit(repo, "models reading the environment")
    yield root
    repo.close()


def sortlint(root: Path, renderer: str, *arguments: str) -> subprocess.CompletedProcess:
    # Every cache where a user's run keeps it: `.sortlint_cache` beside the configuration,
    # dbt's renderings under $XDG_CACHE_HOME.
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("SORTLINT_DBT_RENDERER", "SORTLINT_CACHE_DIR")}
    environment.update(SECRETS, REGION="eu-west-1", XDG_CACHE_HOME=str(root.parent / "cache"),
                       PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "sortlint", *arguments, "--jobs", "1", "--dbt-renderer", renderer],
        capture_output=True, text=True, timeout=900, cwd=root, env=environment,
    )


@pytest.mark.parametrize("renderer", [
    "builtin",
    pytest.param("dbt", marks=[
        pytest.mark.dbt_core,
        pytest.mark.skipif(dbt_compiled.dbt_version() is None, reason="dbt-core is not installed"),
    ]),
])
def test_no_output_and_no_cache_file_holds_a_secret(shop, renderer, monkeypatch):
    if renderer == "dbt":  # dbt itself renders every model (none is left to the built-in renderer)
        for name, value in {**SECRETS, "REGION": "eu-west-1"}.items():
            monkeypatch.setenv(name, value)
        rendered = dbt_compiled.compiled_project(dbt_project.read_project(shop / "shop"), DbtOptions(renderer="dbt"))
        assert rendered is not None and rendered.failure is None
        assert {rendering.name: rendering.text for rendering in rendered.models.values()} == {
            variable.lower(): model(variable).replace(f'{{{{ env_var("{variable}") }}}}', f"hidden_env_var_{variable}")
            for variable in SECRETS
        } | {"region": model("REGION").replace('{{ env_var("REGION") }}', "eu-west-1")}
    text = sortlint(shop, renderer, "check", "shop")
    assert text.stderr == ""
    assert text.stdout.splitlines() == [
        finding("api_key", "hidden_env_var_Api_Key"),
        finding("ci_job_token", "hidden_env_var_CI_JOB_TOKEN"),
        finding("dbt_env_secret_spark", "hidden_env_var_DBT_ENV_SECRET_SPARK"),
        finding("github_token", "hidden_env_var_GITHUB_TOKEN"),
        finding("gitlab_token", "hidden_env_var_GITLAB_TOKEN"),
        finding("region", "eu-west-1"),
        finding("slack_secret_url", "hidden_env_var_SLACK_SECRET_URL"),
        finding("warehouse_password", "hidden_env_var_warehouse_password"),
        "Found 8 findings in 8 files.",
    ]
    messages = [line.split(" [*] ")[1].removesuffix(" [query]") for line in text.stdout.splitlines()[:-1]]
    as_json = sortlint(shop, renderer, "check", "--output-format", "json", "shop")
    assert as_json.returncode == 1 and as_json.stderr == ""
    assert [entry["message"] for entry in json.loads(as_json.stdout)] == messages
    sarif = sortlint(shop, renderer, "check", "--output-format", "sarif", "shop")
    assert sarif.returncode == 1 and sarif.stderr == ""
    assert [result["message"]["text"] for result in json.loads(sarif.stdout)["runs"][0]["results"]] == messages
    outputs = [text.stdout, as_json.stdout, sarif.stdout]
    review = sortlint(shop, renderer, "review", "--dry-run", "--base", "main", "shop")
    assert review.returncode == 1 and review.stderr == ""
    assert len(json.loads(review.stdout)["comments"]) == 8
    outputs.append(review.stdout)
    for output in outputs:
        assert "eu-west-1" in output  # the variable that holds no secret
        assert [value for value in SECRETS.values() if value in output] == []
    written = [path for path in shop.parent.rglob("*") if path.is_file()]
    assert any(".sortlint_cache" in path.parts for path in written)
    if renderer == "dbt":
        assert any("dbt" in path.relative_to(shop.parent / "cache").parts
                   for path in written if path.is_relative_to(shop.parent / "cache"))
    assert [(path, value) for path in written for value in SECRETS.values()
            if value.encode() in path.read_bytes()] == []


@pytest.mark.dbt_core
@pytest.mark.skipif(dbt_compiled.dbt_version() is None, reason="dbt-core is not installed")
def test_a_manifest_holding_a_secret_is_not_read(tmp_path):
    """The user's own `dbt compile` wrote the token's value into target/manifest.json: sortlint,
    asked for dbt's rendering, has dbt render the project itself, with placeholders."""
    root = tmp_path / "repo"
    (root / "shop/models").mkdir(parents=True)
    (root / "sortlint.yml").write_text(CONFIG)
    (root / "shop/dbt_project.yml").write_text(PROJECT)
    (root / "shop/models/github_token.sql").write_text(model("GITHUB_TOKEN"))
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles/profiles.yml").write_text(dbt_compiled.session_profile("shop", "shop"))
    subprocess.run(
        [str(Path(sys.executable).with_name("dbt")), "compile", "--project-dir", str(root / "shop"), "--profile", "shop",
         "--profiles-dir", str(tmp_path / "profiles"), "--no-populate-cache", "--quiet"],
        cwd=tmp_path, check=True, capture_output=True, timeout=900,
        env={**os.environ, **SECRETS, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"},
    )
    assert SECRETS["GITHUB_TOKEN"] in (root / "shop/target/manifest.json").read_text()
    result = sortlint(root, "dbt", "check", "shop")
    assert (result.stdout, result.stderr) == (
        finding("github_token", "hidden_env_var_GITHUB_TOKEN") + "\nFound 1 finding in 1 file.\n", ""
    )


def test_dags_and_jobs_never_read_the_environment(tmp_path):
    """SQL that Airflow DAGs and PySpark jobs build from `os.environ` is analysed with a
    placeholder made of the expression: sortlint evaluates no environment there."""
    (tmp_path / "sortlint.yml").write_text(CONFIG.replace('include: ["shop/models/**/*.sql"]', 'include: ["*.py"]'))
    (tmp_path / "dag.py").write_text(
        "import os\n"
        "from airflow import DAG\n"
        "from airflow.providers.common.sql.operators.sql import SQLExecuteQueryOperator\n"
        "TOKEN = os.environ['GITHUB_TOKEN']\n"
        "with DAG('d') as dag:\n"
        "    SQLExecuteQueryOperator(task_id='x', sql=f\"select a, b from t where b = '{TOKEN}' order by b, a\")\n"
    )
    (tmp_path / "job.py").write_text(
        "import os\n"
        "from pyspark.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "spark.sql(f\"select a, b from t where b = '{os.environ['GITLAB_TOKEN']}' order by b, a\").show()\n"
    )
    result = sortlint(tmp_path, "builtin", "check")
    assert (result.stdout, result.stderr) == (
        "dag.py:6:96: SL003 [*] sort key b is constant: WHERE t.b = '{TOKEN}' (line 6) [query]\n"
        "job.py:4:82: SL003 [*] sort key b is constant: WHERE t.b = 'os_environ_GITLAB_TOKEN' (line 4) [query]\n"
        "Found 2 findings in 2 files.\n",
        "",
    )
