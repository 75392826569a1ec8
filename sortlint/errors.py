"""Errors a user can act on: they name the file, the line and what is wrong - and the errors
that are sortlint's own, reported the same way."""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass
class UserError(Exception):
    """A problem in the user's input. The CLI prints it and exits with code 2."""

    # How reports that list errors beside findings (JSON) tell the kinds apart.
    code = "E001"
    kind = "input-error"
    # False for an error of the run's circumstances rather than of the input (a rendering
    # out of time, which a faster machine may finish): the cache does not keep it.
    lasting = True

    message: str
    path: Path | str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        return f"{where}{self.message}"

    def __reduce__(self):
        # An exception pickles its `args`, which the dataclass leaves empty; workers send
        # their errors to the parent.
        return type(self), (self.message, self.path, self.line)


class ConfigError(UserError):
    """The catalog or configuration is malformed."""

    code = "E002"
    kind = "configuration-error"


class InternalError(UserError):
    """sortlint failed on input it should have handled: an exception inside a front end, a
    plan builder or a rule. It is reported like a user's error (file, line, exit code 2) and
    the rest of the repository is still checked, but the fault is sortlint's, and the
    message asks for a report. `details` is the traceback, printed with SORTLINT_DEBUG=1."""

    ISSUES = "the sortlint issue tracker"
    code = "E999"
    kind = "internal-error"

    def __init__(self, message: str, path: Path | str | None = None, line: int | None = None,
                 details: str = "") -> None:
        super().__init__(message, path, line)
        self.details = details

    @classmethod
    def during(
        cls, error: BaseException, doing: str, path: Path | str | None = None, line: int | None = None
    ) -> InternalError:
        """The error of an exception raised while `doing` ("building statement", ...)."""
        message = (
            f"internal error: {type(error).__name__}: {error} while {doing}; "
            f"please report this at {cls.ISSUES}"
        )
        details = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        return cls(message, path, line, details)

    def __reduce__(self):
        return type(self), (self.message, self.path, self.line, self.details)


def from_recursion(error: BaseException) -> bool:
    """Whether the error is Python's recursion limit, itself or as the cause of another
    (sqlglot's tokenizer reports any failure as "Error tokenizing ...")."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, RecursionError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


# The packages sortlint imports only for some commands, by their import name, with the extra
# of `pyproject.toml` that installs each.
OPTIONAL_PACKAGES = {
    "pyspark": "spark", "py4j": "spark", "pyarrow": "spark", "ruamel": "spark",
    "dbt": "dbt",
    "pygls": "lsp", "lsprotocol": "lsp",
}


def missing_package(error: ModuleNotFoundError, doing: str) -> UserError | None:
    """The error to show when `doing` needs an optional package that is not installed, or
    None when the missing module is not one (then it is sortlint's own bug)."""
    package = (error.name or "").partition(".")[0]
    extra = OPTIONAL_PACKAGES.get(package)
    if extra is None:
        return None
    return UserError(f"{doing} needs {package}, which is not installed: sortlint's {extra} extra installs it (README: Install)")


class ConfigErrors(ConfigError):
    """Every error of one configuration, each with its file and line: a configuration is
    validated whole, so that one run lists everything to correct."""

    def __init__(self, errors: list[ConfigError]) -> None:
        first = errors[0]
        super().__init__(first.message, first.path, first.line)
        self.errors = errors

    def __reduce__(self):
        return type(self), (self.errors,)


def each_error(error: UserError) -> list[UserError]:
    """The errors one raised error stands for (several, for a configuration's)."""
    return list(error.errors) if isinstance(error, ConfigErrors) else [error]


class Problems:
    """The errors met while reading the independent parts of a configuration: a part that
    fails is left out (its default stands in) and the others are still read."""

    def __init__(self) -> None:
        self.errors: list[ConfigError] = []

    @contextlib.contextmanager
    def part(self) -> Iterator[None]:
        try:
            yield
        except ConfigError as error:
            self.errors += each_error(error)  # type: ignore[arg-type]

    def raise_any(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise ConfigErrors(sorted(self.errors, key=lambda e: (str(e.path), e.line or 0)))
