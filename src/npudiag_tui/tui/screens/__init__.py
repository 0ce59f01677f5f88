"""Modal screens of the npudiag TUI."""
