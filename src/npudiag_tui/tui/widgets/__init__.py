"""Widgets of the npudiag TUI."""
