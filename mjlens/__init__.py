"""mjlens: score a mahjong hand from a photo.

The distribution installs one import name, ``mjlens``; its parts are ``mjlens.scoring`` (tiles, hands, the rule
systems), ``mjlens.vision`` (reading photos), ``mjlens.api`` (the service and the ``mjlens`` command) and
``mjlens.models`` (the shipped ONNX models). In the repository they are the top-level folders of the same names.
"""


def __getattr__(name: str) -> str:
    # ``__version__`` is looked up on first use: importlib.metadata costs tens of ms at every start of the command
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("mjlens")
        except PackageNotFoundError:  # imported from a tree that was never installed
            return "0+unknown"
    raise AttributeError(f"module 'mjlens' has no attribute {name!r}")
