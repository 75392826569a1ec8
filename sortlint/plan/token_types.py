"""sqlglot's token types, read at the speed of plain names.

`TokenType` is an Enum, and Python 3.11 reads an Enum member off its class about five times
slower than an attribute of a plain class (~120 ns against ~23 ns here). The modules that
compare token types for every token of a file (`names_for_keywords`, the statement
splitter, the span lookups) read them from `T`, a plain class holding the same members:
`T.DOT is TokenType.DOT`.
"""

from __future__ import annotations

from typing import cast

from sqlglot.tokens import TokenType


# A plain class whose attributes are TokenType's members; typed as the Enum itself: `T.DOT`
# is a TokenType to a type checker, as it is at run time.
T = cast("type[TokenType]", type("T", (), dict(TokenType.__members__)))
