"""How sortlint reaches Spark: the one place that builds (or reuses) a session and reads a table.

Every Spark command (`catalog import`, `contracts`, `verify`) gets its session here, so they
run alike on a laptop and on a cluster:

* inside a running application — `spark-submit` of a script that calls sortlint, a notebook,
  the test suite — the active session is used, with `--spark-conf` settings applied to it;
* otherwise a session is built from `--master URL` (`local[*]`, `yarn`, `k8s://...`,
  `spark://...`), repeated `--spark-conf key=value` and `--app-name`. Without `--master`,
  PySpark's launcher decides: `local[*]` from a shell, the submitted master under
  `spark-submit`. Like the `pyspark` shell, it uses the Hive metastore when PySpark ships
  Hive (a local `metastore_db/` otherwise), unless `spark.sql.catalogImplementation` is set.

PySpark is imported here and nowhere at `import sortlint` time; a missing PySpark or Java is
one error line (exit code 2), as is a session that fails to start.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import sys
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sortlint.config.model import Source
from sortlint.errors import UserError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True)
class SparkOptions:
    """The command line's say in the session."""

    master: str | None = None
    conf: tuple[tuple[str, str], ...] = ()
    app_name: str = "sortlint"
    # Java's own output (log4j's console, the JVM's warnings) on the terminal; else it goes
    # to a log file, which an error names (`--debug`).
    java_output: bool = False


def parse_conf(text: str) -> tuple[str, str]:
    """`key=value` of `--spark-conf`."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"expected key=value, got {text!r}")
    return key.strip(), value


def spark_session(options: SparkOptions) -> SparkSession:
    """The session the command runs on."""
    require_pyspark()
    # PySpark checks for pandas when Arrow is first used and warns about versions it has not
    # been tested with; that is not the user's concern here.
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"pyspark\..*")
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession
    from py4j.protocol import Py4JError

    if options.master is not None and options.master.startswith(STANDALONE):
        _require_reachable(options.master)
    active = SparkSession.getActiveSession()
    if active is not None:
        return _reuse(active, options)
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ  # launched by spark-submit
    if not submitted:
        _require_java()
    local = options.master.startswith("local") if options.master else not submitted
    if local:
        # Local Python workers must run this interpreter, which has pyarrow; on a cluster the
        # executors' Python is the cluster's business (spark.pyspark.python).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Our own progress line replaces Spark's progress bars (--spark-conf can bring them back).
    builder = SparkSession.builder.appName(options.app_name).config("spark.ui.showConsoleProgress", "false")
    if options.master is not None:
        builder = builder.master(options.master)
    if not submitted and "spark.sql.catalogImplementation" not in dict(options.conf) and _hive_on_classpath():
        # As the `pyspark` shell does: the local warehouse's metastore (metastore_db/ and
        # spark-warehouse/ in the working directory), so tables outlive the session.
        builder = builder.enableHiveSupport()
    for key, value in options.conf:
        builder = builder.config(key, value)
    with _java_output_kept(options.java_output) as log:
        try:
            spark = builder.getOrCreate()
        except (PySparkException, Py4JError, OSError) as error:
            said = "" if log is None else _java_said(log)
            raise UserError(f"cannot start Spark: {first_line(error)}{said}") from None
        if log is not None:
            log.unlink()  # the JVM writes on into the file it holds, which goes with it
    spark.sparkContext.setLogLevel("ERROR")
    return spark


STANDALONE = "spark://"
REACH_SECONDS = 10


def _require_reachable(master: str) -> None:
    """A standalone master (`spark://host:port`, several for high availability) none of whose
    addresses answers is an error now, naming why: Spark itself retries for a minute, then
    buries "All masters are unresponsive" under pages of log lines and stack traces."""
    reasons = []
    for address in master[len(STANDALONE):].split(","):
        host, _, port = address.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=REACH_SECONDS):
                return
        except ValueError:
            reasons.append(f"{address}: not host:port")
        except OSError as error:
            reasons.append(f"{address}: {error.strerror or error}")
    raise UserError(f"cannot reach the Spark master {master} ({'; '.join(reasons)})")


@contextlib.contextmanager
def _java_output_kept(shown: bool) -> Iterator[Path | None]:
    """While the JVM starts, its standard output and error are a log file's, which it keeps
    for its life: a Spark command prints its results, not pages of log4j lines and JVM
    warnings. None (the terminal's) when `shown`."""
    if shown:
        yield None
        return
    handle, name = tempfile.mkstemp(prefix="sortlint-spark-", suffix=".log")
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        os.dup2(handle, 1)
        os.dup2(handle, 2)
        yield Path(name)
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for descriptor in (*saved, handle):
            os.close(descriptor)


def _java_said(log: Path) -> str:
    """What the JVM said last before it failed (not a stack frame, not a warning), and where
    the rest is."""
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines()]
    said = [line for line in lines if line and not line.startswith("at ") and " WARN " not in line
            and " INFO " not in line]
    cause = f"Java said: {said[-1]}; " if said else ""
    return f" ({cause}the whole log: {log})"


def _hive_on_classpath() -> bool:
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    return any(jars.glob("spark-hive_*.jar"))


def _reuse(spark: SparkSession, options: SparkOptions) -> SparkSession:
    from pyspark.errors import PySparkException

    master = spark.sparkContext.master
    if options.master is not None and options.master != master:
        raise UserError(
            f"--master {options.master} cannot apply: this process already runs a Spark "
            f"session on {master} (under spark-submit, give the master to spark-submit)"
        )
    for key, value in options.conf:
        try:
            spark.conf.set(key, value)
        except PySparkException as error:
            raise UserError(
                f"--spark-conf {key}={value} cannot be set on the running session: "
                f"{first_line(error)}"
            ) from None
    return spark


def require_pyspark() -> None:
    if importlib.util.find_spec("pyspark") is None:
        raise UserError(
            "the Spark commands need PySpark: sortlint's spark extra installs it (README: Install) "
            "(or run them with spark-submit, which provides it)"
        )


def _require_java() -> None:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and Path(java_home, "bin", "java").exists():
        return
    if shutil.which("java") is None:
        raise UserError(
            "Spark needs a Java runtime (17 or later): java is not on PATH and JAVA_HOME is "
            "not set (e.g. apt-get install openjdk-17-jre-headless)"
        )


def first_line(error: BaseException) -> str:
    """An exception's message, first line only (Spark's carry a JVM stack trace)."""
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def read_source(spark: SparkSession, source: Source) -> DataFrame:
    """The table a declaration describes: by name from Spark's catalog, or from its files."""
    storage = source.storage
    if storage is None:
        return spark.table(source.name)
    reader = spark.read.format(storage.format)
    for key, value in storage.options:
        reader = reader.option(key, value)
    return reader.load(storage.path)


def describe_source(source: Source) -> str:
    """How the source is read, for messages."""
    storage = source.storage
    if storage is None:
        return f"table {source.name}"
    return f"{storage.format} files at {storage.path}"
