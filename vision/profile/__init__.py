"""Profiles: a player's own tile set, taught to the reader from one photo of it (docs/profiles.md).

``store.Profile`` is the file, ``calibration`` makes one from photos of the set laid out in rows, ``sources`` from
labelled photos or corrected readings, and ``classifier.ProfiledClassifier`` reads tiles with one.
"""

from mjlens.vision.profile.classifier import ProfiledClassifier
from mjlens.vision.profile.errors import PROFILE_ERROR_CODES, ProfileError
from mjlens.vision.profile.store import Profile

__all__ = ["PROFILE_ERROR_CODES", "Profile", "ProfileError", "ProfiledClassifier"]
