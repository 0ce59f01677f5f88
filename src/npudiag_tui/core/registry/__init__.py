"""CANN error-code knowledge: string-code registry, numeric codes, code shape (stdlib only)."""

from __future__ import annotations

from .codes import component_of, describe_code, is_inner_code
from .numeric import NumericCode, format_torch_code, lookup_numeric
from .registry import Registry, RegistryEntry

__all__ = [
    "NumericCode",
    "Registry",
    "RegistryEntry",
    "component_of",
    "describe_code",
    "format_torch_code",
    "is_inner_code",
    "lookup_numeric",
]
