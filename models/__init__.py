"""The shipped ONNX models and the red-five judge (JSON data), found through ``importlib.resources``
(``mjlens.models``) wherever mjlens is installed.

The ``.pt`` training checkpoints beside them stay in the repository and are not part of a wheel."""

from importlib import resources
from pathlib import Path

DETECTOR_FILE = "mjlens-tiles.onnx"
CLASSIFIER_FILE = "mjlens-tile-crops.onnx"


def shipped(name: str) -> Path:
    """The path of a shipped model file, in the repository or in an installed wheel alike."""
    return Path(str(resources.files(__name__).joinpath(name)))
