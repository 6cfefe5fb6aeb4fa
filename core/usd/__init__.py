"""USD read and write of the physics description (the one place that knows USD attribute names).

The names below load their module on first use, so that ``core.usd.errors`` (and the rest of the
core) stays importable where no USD library (``pxr``) is.
"""

from importlib import import_module

#: Public name -> the module of this package that defines it.
_HOMES = {
    "PARSERS": "reader",
    "ReadResult": "reader",
    "read_usd": "reader",
    "UsdReadError": "errors",
    "UsdWriteError": "errors",
    "build_stage": "writer",
    "write_usd": "writer",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_HOMES[name]}", __name__), name)
