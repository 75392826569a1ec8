from sortlint.cli import main

raise SystemExit(main())
