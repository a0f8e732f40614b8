"""mjlens: score a mahjong hand from a photo.

The distribution installs one import name, ``mjlens``; its parts are ``mjlens.scoring`` (tiles, hands, the rule
systems), ``mjlens.vision`` (reading photos), ``mjlens.api`` (the service and the ``mjlens`` command) and
``mjlens.models`` (the shipped ONNX models). In the repository they are the top-level folders of the same names.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mjlens")
except PackageNotFoundError:  # imported from a tree that was never installed
    __version__ = "0+unknown"
