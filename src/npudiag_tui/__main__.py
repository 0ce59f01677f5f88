from npudiag_tui.cli import main

raise SystemExit(main())
