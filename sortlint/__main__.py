from sortlint.cli import entry

raise SystemExit(entry())
