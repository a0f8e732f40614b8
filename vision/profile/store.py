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

from mjlens.i18n import msg
from mjlens.scoring.tiles import BACK_CODE, DETECTOR_CLASSES
from mjlens.vision.profile.errors import ProfileError

FORMAT = "mjlens-profile"
VERSION = 1
SOURCES = ("sheet", "labels", "corrections")
#: Examples kept per code (the first ones): a labelled folder may hold hundreds of one code, and a few views of it
#: are what the nearest-neighbour reading needs.
MAX_EXAMPLES_PER_CODE = 16
#: A reliance this high counts as full: on hk-photos, whose set the classifier learnt, its flowers' reliances measure
#: 0.8-1.0, and anything short of full let the profile cost a flower (docs/experiments/profiles.md).
FULL_RELIANCE = 0.8
#: Said where ``Profile.changes_no_reading``: the profile trusts every reading of the shipped classifier
#: (docs/experiments/profile-real-sets.md).
NO_CHANGE = msg("this profile changes no reading: the reader already read each of its tiles surely as its code; "
                "make it from photos with the tiles the reader misreads or misses, corrected")
FIELDS = ("format", "version", "codes", "complete", "example_codes", "features", "classifier", "sources", "reliance")


@dataclass(frozen=True)
class Profile:
    """``codes``: the set's codes when ``complete`` (a calibration sheet: a code not in it is not in the set), else
    the codes it has examples of. ``example_codes[i]`` names row i of ``features`` (unit vectors of the classifier
    whose SHA-256 is ``classifier``). ``sources``: what it was made from (``SOURCES``). ``reliance[k]``: how far the
    shipped classifier's reading k can be trusted in this set (``reliance_of``), one per ``DETECTOR_CLASSES``."""

    codes: tuple[str, ...]
    complete: bool
    example_codes: tuple[str, ...]
    features: np.ndarray
    classifier: str
    sources: tuple[str, ...]
    reliance: np.ndarray

    def __post_init__(self) -> None:
        if len(self.example_codes) != len(self.features):
            raise ProfileError("bad_profile", msg("a profile names as many examples as it holds features"))
        if not set(self.example_codes) <= set(self.codes) <= set(DETECTOR_CLASSES):
            raise ProfileError("bad_profile", msg("a profile's codes are tile codes and name every example"))
        if self.reliance.shape != (len(DETECTOR_CLASSES),):
            raise ProfileError("bad_profile", msg("a profile holds one reliance per class"))

    @classmethod
    def of_examples(cls, example_codes: Sequence[str], features: np.ndarray, classifier: str, source: str,
                    codes: Sequence[str] | None = None, reliance: np.ndarray | None = None) -> Profile:
        """A profile of these examples, at most ``MAX_EXAMPLES_PER_CODE`` of a code; ``codes``: the set's codes
        when known (a sheet), which makes the profile complete; ``reliance``: ``reliance_of`` the shipped readings
        (default: every reading trusted)."""
        kept = _capped([str(c) for c in example_codes])
        names = tuple(str(example_codes[i]) for i in kept)
        order = sorted(set(codes if codes is not None else names), key=DETECTOR_CLASSES.index)
        trust = np.ones(len(DETECTOR_CLASSES), np.float32) if reliance is None else np.asarray(reliance, np.float32)
        return cls(tuple(order), codes is not None, names, np.asarray(features, np.float32)[kept].astype(np.float16),
                   classifier, (source,), trust)

    def merged(self, other: Profile) -> Profile:
        """This profile with ``other``'s examples added (of the same classifier); complete if either is."""
        if other.classifier != self.classifier:
            raise ProfileError("profile_classifier", msg("the profiles were made with different crop classifiers"))
        codes = set(self.codes) | set(other.codes)
        if self.complete != other.complete:  # a complete set's codes stand; the other's examples must be of them
            codes = set((self if self.complete else other).codes) | set(other.example_codes) | set(self.example_codes)
        names = self.example_codes + other.example_codes
        kept = _capped(list(names))
        features = np.concatenate([self.features, other.features])[kept]
        return Profile(tuple(sorted(codes, key=DETECTOR_CLASSES.index)), self.complete or other.complete,
                       tuple(names[i] for i in kept), features, self.classifier,
                       tuple(dict.fromkeys(self.sources + other.sources)), np.minimum(self.reliance, other.reliance))

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
                                    sources=np.array(self.sources), reliance=self.reliance.astype(np.float32))
            os.chmod(temporary, 0o644)  # mkstemp makes it private; a profile is read by the service's user too
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
            raise ProfileError("bad_profile", msg("{path}: no such profile file", path=path)) from None
        except IsADirectoryError:
            raise ProfileError("bad_profile", msg("{path} is a directory, not a profile file", path=path)) from None
        except (OSError, ValueError, zipfile.BadZipFile, EOFError):
            raise ProfileError("bad_profile", msg("{path} is not a profile file (made by mjlens profile "
                                                  "create)", path=path)) from None
        if str(fields.get("format", "")) != FORMAT:
            raise ProfileError("bad_profile", msg("{path} is not a profile file (made by mjlens profile "
                                                  "create)", path=path))
        version = int(fields.get("version", -1))
        if version != VERSION:
            raise ProfileError("profile_version", msg("{path} is a profile of format version {version}; this "
                                                      "mjlens reads version {VERSION}: make the profile again",
                                                      path=path, version=version, VERSION=VERSION))
        missing = [name for name in FIELDS if name not in fields]
        if missing:
            raise ProfileError("bad_profile", msg("{path} lacks {missing}", path=path, missing=', '.join(missing)))
        features, reliance = fields["features"], fields["reliance"]
        if features.ndim != 2 or not np.isfinite(features).all() or not np.isfinite(reliance).all():
            raise ProfileError("bad_profile", msg("{path} holds damaged features", path=path))
        return cls(tuple(str(c) for c in fields["codes"]), bool(fields["complete"]),
                   tuple(str(c) for c in fields["example_codes"]), features.astype(np.float16),
                   str(fields["classifier"]), tuple(str(s) for s in fields["sources"]),
                   reliance.astype(np.float32))

    def changes_no_reading(self) -> bool:
        """Whether reading with this profile reads every photo as the shipped classifier alone does: it trusts every
        shipped reading (each of its examples was read surely as its code, and as no other example's code) and, if
        complete, rules out no code. Profiles of photos the reader already reads right are often such."""
        rules_out = self.complete and set(self.codes) | {BACK_CODE} != set(DETECTOR_CLASSES)
        return bool((np.asarray(self.reliance) >= 1.0).all()) and not rules_out

    def summary(self) -> dict:
        """What a person wants to know of a profile: its codes, examples and sources."""
        return {"codes": list(self.codes), "complete": self.complete, "examples": len(self.example_codes),
                "sources": list(self.sources), "version": VERSION}


def reliance_of(probs: np.ndarray, codes: Sequence[str]) -> np.ndarray:
    """How far each reading of the shipped classifier can be trusted in a set, from its ``probs`` of the set's
    examples (one row per example, ``codes`` their codes): for each class, its least probability on its own
    examples (1 where there are none) less its greatest on another code's, at least 0. A reading the classifier gives
    its own code surely and no other code's tile stays the classifier's; one it gives to other tiles too (a set whose
    2m and 3m it both reads 3m) is left to the profile's examples. ``FULL_RELIANCE`` or more counts as 1."""
    probs = np.asarray(probs, np.float32)
    names = np.array(codes)
    reliance = np.ones(len(DETECTOR_CLASSES), np.float32)
    for k, code in enumerate(DETECTOR_CLASSES):
        own, other = probs[names == code, k], probs[names != code, k]
        reliance[k] = max(0.0, (own.min() if len(own) else 1.0) - (other.max() if len(other) else 0.0))
    return np.minimum(reliance / FULL_RELIANCE, 1.0)


def reliance_over_views(views: Sequence[np.ndarray], codes: Sequence[str]) -> np.ndarray:
    """The reliance of a layout whose tiles (``codes``, one per row) the classifier read in several views: ``views[0]``
    its probabilities of the tiles as photographed, the others of the same tiles smaller, turned, in other light...
    A code the classifier reads surely and alone on the layout as photographed keeps full reliance (a set it knows
    loses nothing); one it doubted there is trusted no more than its weakest view allows, ``reliance_of`` every view
    together: a layout photo is sharper and nearer than a hand, and a doubt one view shows is one the hands show too
    (docs/experiments/profiles.md)."""
    first = reliance_of(views[0], codes)
    every = reliance_of(np.concatenate(views), list(codes) * len(views))
    return np.where(first >= 1.0, first, np.minimum(first, every))


def _capped(names: Sequence[str]) -> list[int]:
    """The indices of ``names`` kept: the first ``MAX_EXAMPLES_PER_CODE`` of each code."""
    seen: dict[str, int] = {}
    kept = []
    for i, name in enumerate(names):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] <= MAX_EXAMPLES_PER_CODE:
            kept.append(i)
    return kept
