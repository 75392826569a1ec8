"""SQL (and later DataFrame) units as a relational IR: see `nodes`, built by `statement`."""
