"""Front-end input: files cut into query units, each mapped back to its raw file text."""

from sortlint.sources.units import LinearMap, OffsetMap, Unit

__all__ = ["LinearMap", "OffsetMap", "Unit"]
