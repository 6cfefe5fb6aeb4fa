"""Register a package's modules in order and unregister them in reverse: one loop for every layer."""

import importlib


def module_registrar(package: str, names: tuple[str, ...]):
    """``(register, unregister)`` calling each module's own in order, then in reverse."""
    def modules():
        return [importlib.import_module(f".{name}", package) for name in names]

    def register():
        for module in modules():
            module.register()

    def unregister():
        for module in reversed(modules()):
            module.unregister()

    return register, unregister
