try:
    from sortlint.cli import entry
except KeyboardInterrupt:  # Ctrl-C while the command line loads: nothing was done yet
    raise SystemExit(130) from None

raise SystemExit(entry())
