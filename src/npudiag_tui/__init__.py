"""npudiag-tui: find the first causal error in Ascend NPU job logs."""

__version__ = "0.1.0"
