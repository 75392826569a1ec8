"""Front ends: files cut into query units, each mapped back to its raw file text."""
