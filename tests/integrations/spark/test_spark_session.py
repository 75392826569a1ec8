"""Specification: how the Spark commands reach Spark. A missing PySpark or Java is one error
line and exit code 2, before anything is started; `--spark-conf` must be key=value."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sortlint.cli import main
from sortlint.integrations.spark import session
from sortlint.integrations.spark.session import parse_conf
from spark_commands import run_cli


def config(tmp_path: Path) -> Path:
    path = tmp_path / "sortlint.yml"
    path.write_text("sources:\n  t:\n    unique: [[a]]\n")
    return path


def test_without_pyspark(tmp_path, capsys, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(session.importlib.util, "find_spec", lambda name: None if name == "pyspark" else real(name))
    code, out, err = run_cli(capsys, "contracts", "--config", str(config(tmp_path)))
    assert (code, out) == (2, "")
    assert err == (
        "error: the Spark commands need PySpark: sortlint's spark extra installs it (README: Install) "
        "(or run them with spark-submit, which provides it)\n"
    )


def test_without_java(tmp_path):
    root = Path(__file__).resolve().parents[3]
    environment = {"PATH": str(tmp_path), "PYTHONPATH": str(root), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "sortlint", "contracts", "--config", str(config(tmp_path))],
        capture_output=True, text=True, env=environment, timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "error: Spark needs a Java runtime (17 or later): java is not on PATH and JAVA_HOME is not "
        "set (e.g. apt-get install openjdk-17-jre-headless)\n"
    )


def test_spark_conf_is_key_equals_value(capsys):
    assert parse_conf("spark.sql.shuffle.partitions=8") == ("spark.sql.shuffle.partitions", "8")
    assert parse_conf("spark.x= a=b ") == ("spark.x", " a=b ")
    with pytest.raises(SystemExit) as exited:
        main(["contracts", "--spark-conf", "spark.sql.shuffle.partitions"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.endswith(
        "argument --spark-conf: expected key=value, got 'spark.sql.shuffle.partitions'\n"
    )


@pytest.mark.parametrize("command", [["contracts"], ["verify", "."]])
def test_without_pyarrow(tmp_path, command):
    """PySpark installed without its Arrow support (`pip install pyspark`, not
    `pyspark[sql]`): one line naming the extra, before Spark starts."""
    root = Path(__file__).resolve().parents[3]
    blocked = "import sys; sys.modules['pyarrow'] = None; from sortlint.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", blocked, *command, "--config", str(config(tmp_path))],
        capture_output=True, text=True, cwd=tmp_path, env={"PYTHONPATH": str(root), "HOME": str(tmp_path)},
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"error: sortlint {command[0]} needs pyarrow, which is not installed: "
        "sortlint's spark extra installs it (README: Install)\n"
    )


def test_a_standalone_master_that_does_not_answer_is_one_line_with_the_cause(tmp_path, capsys):
    """Spark would retry for a minute and bury the cause under Java's log; the address is
    tried first (a port nothing listens on: refused at once)."""
    import socket

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    master = f"spark://127.0.0.1:{port},localhost:x"
    code, out, err = run_cli(capsys, "contracts", "--config", str(config(tmp_path)), "--master", master)
    assert (code, out) == (2, "")
    assert err == (f"error: cannot reach the Spark master {master} (127.0.0.1:{port}: Connection refused; "
                   "localhost:x: not host:port)\n")


def spark_command(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess:
    """`sortlint contracts` in a process of its own: it starts its own JVM."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "t").mkdir(exist_ok=True)
    pq.write_table(pa.table({"a": [1, 2, 3]}), tmp_path / "t" / "part-0.parquet")
    (tmp_path / "sortlint.yml").write_text(f"sources:\n  t:\n    location: {tmp_path / 't'}\n    unique: [[a]]\n")
    root = Path(__file__).resolve().parents[3]
    return subprocess.run(
        [sys.executable, "-m", "sortlint", "contracts", *arguments], cwd=tmp_path, capture_output=True,
        text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(root), "TMPDIR": str(tmp_path)},
    )


@pytest.mark.spark
def test_a_spark_command_prints_its_results_not_javas_log(tmp_path):
    done = spark_command(tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "sortlint.yml:2: t: unique (a): holds: no two of 3 rows share a key\n"
        "Checked 1 declaration of 1 table: 1 hold, 0 violated, 0 not checked.\n"
    )
    assert list(tmp_path.glob("sortlint-spark-*.log")) == []  # gone with the session


def test_a_jvm_that_cannot_start_is_one_line_with_javas_reason_and_its_log(tmp_path):
    done = spark_command(tmp_path, "--spark-conf", "spark.driver.memory=1k")
    [log] = tmp_path.glob("sortlint-spark-*.log")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "error: cannot start Spark: [JAVA_GATEWAY_EXITED] Java gateway process exited before sending "
        f"its port number. (Java said: Too small maximum heap; the whole log: {log})\n"
    )
