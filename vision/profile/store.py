"""A profile: what the crop classifier's features of each code look like in one tile set, and which codes the set
has. Saved as a small ``.npz`` (numpy's zip of arrays, read without pickle), versioned; docs/profiles.md.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mjlens.scoring.tiles import DETECTOR_CLASSES

from .errors import ProfileError

FORMAT = "mjlens-profile"
VERSION = 1
SOURCES = ("sheet", "labels", "corrections")
#: Examples kept per code (the first ones): a labelled folder may hold hundreds of one code, and a few views of it
#: are what the nearest-neighbour reading needs.
MAX_EXAMPLES_PER_CODE = 12
FIELDS = ("format", "version", "codes", "complete", "example_codes", "features", "classifier", "sources")


@dataclass(frozen=True)
class Profile:
    """``codes``: the set's codes when ``complete`` (a calibration sheet: a code not in it is not in the set), else
    the codes it has examples of. ``example_codes[i]`` names row i of ``features`` (unit vectors of the classifier
    whose SHA-256 is ``classifier``). ``sources``: what it was made from (``SOURCES``)."""

    codes: tuple[str, ...]
    complete: bool
    example_codes: tuple[str, ...]
    features: np.ndarray
    classifier: str
    sources: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.example_codes) != len(self.features):
            raise ProfileError("bad_profile", "a profile names as many examples as it holds features")
        if not set(self.example_codes) <= set(self.codes) <= set(DETECTOR_CLASSES):
            raise ProfileError("bad_profile", "a profile's codes are tile codes and name every example")

    @classmethod
    def of_examples(cls, example_codes: Sequence[str], features: np.ndarray, classifier: str, source: str,
                    codes: Sequence[str] | None = None) -> Profile:
        """A profile of these examples, at most ``MAX_EXAMPLES_PER_CODE`` of a code; ``codes``: the set's codes
        when known (a sheet), which makes the profile complete."""
        kept = _capped([str(c) for c in example_codes])
        names = tuple(str(example_codes[i]) for i in kept)
        order = sorted(set(codes if codes is not None else names), key=DETECTOR_CLASSES.index)
        return cls(tuple(order), codes is not None, names, np.asarray(features, np.float32)[kept].astype(np.float16),
                   classifier, (source,))

    def merged(self, other: Profile) -> Profile:
        """This profile with ``other``'s examples added (of the same classifier); complete if either is."""
        if other.classifier != self.classifier:
            raise ProfileError("profile_classifier", "the profiles were made with different crop classifiers")
        codes = set(self.codes) | set(other.codes)
        if self.complete != other.complete:  # a complete set's codes stand; the other's examples must be of them
            codes = set((self if self.complete else other).codes) | set(other.example_codes) | set(self.example_codes)
        names = self.example_codes + other.example_codes
        kept = _capped(list(names))
        features = np.concatenate([self.features, other.features])[kept]
        return Profile(tuple(sorted(codes, key=DETECTOR_CLASSES.index)), self.complete or other.complete,
                       tuple(names[i] for i in kept), features, self.classifier,
                       tuple(dict.fromkeys(self.sources + other.sources)))

    def save(self, path: str | os.PathLike) -> Path:
        """Write the profile to ``path`` whole or not at all (a temporary file renamed into place)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".profile-", suffix=".npz", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                np.savez_compressed(out, format=np.str_(FORMAT), version=np.int32(VERSION), codes=np.array(self.codes),
                                    complete=np.bool_(self.complete), example_codes=np.array(self.example_codes),
                                    features=self.features.astype(np.float16), classifier=np.str_(self.classifier),
                                    sources=np.array(self.sources))
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> Profile:
        """A profile file; ``bad_profile`` for a file that is not one, ``profile_version`` for a newer format."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                fields = {name: data[name] for name in data.files}
        except FileNotFoundError:
            raise ProfileError("bad_profile", f"{path}: no such profile file") from None
        except IsADirectoryError:
            raise ProfileError("bad_profile", f"{path} is a directory, not a profile file") from None
        except (OSError, ValueError, zipfile.BadZipFile, EOFError):
            raise ProfileError("bad_profile", f"{path} is not a profile file (made by mjlens profile create)") from None
        if str(fields.get("format", "")) != FORMAT:
            raise ProfileError("bad_profile", f"{path} is not a profile file (made by mjlens profile create)")
        version = int(fields.get("version", -1))
        if version != VERSION:
            raise ProfileError("profile_version", f"{path} is a profile of format version {version}; this mjlens "
                                                  f"reads version {VERSION}: make the profile again")
        missing = [name for name in FIELDS if name not in fields]
        if missing:
            raise ProfileError("bad_profile", f"{path} lacks {', '.join(missing)}")
        features = fields["features"]
        if features.ndim != 2 or not np.isfinite(features).all():
            raise ProfileError("bad_profile", f"{path} holds damaged features")
        return cls(tuple(str(c) for c in fields["codes"]), bool(fields["complete"]),
                   tuple(str(c) for c in fields["example_codes"]), features.astype(np.float16),
                   str(fields["classifier"]), tuple(str(s) for s in fields["sources"]))

    def summary(self) -> dict:
        """What a person wants to know of a profile: its codes, examples and sources."""
        return {"codes": list(self.codes), "complete": self.complete, "examples": len(self.example_codes),
                "sources": list(self.sources), "version": VERSION}


def _capped(names: Sequence[str]) -> list[int]:
    """The indices of ``names`` kept: the first ``MAX_EXAMPLES_PER_CODE`` of each code."""
    seen: dict[str, int] = {}
    kept = []
    for i, name in enumerate(names):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] <= MAX_EXAMPLES_PER_CODE:
            kept.append(i)
    return kept
