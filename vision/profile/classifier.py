"""The crop classifier read alongside a profile: each crop's features are compared with the set's own examples, and
a crop close to an example of a code takes that code; one close to none keeps the shipped classifier's reading.

``ProfiledClassifier`` has ``CropClassifier``'s interface (``probabilities``, ``turned_probabilities``, ``size``),
so the tile reader uses it in the classifier's place. The rule and its constants were chosen on synthetic photos of
art sets the classifier never learnt (docs/experiments/profiles.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mjlens.i18n import msg
from mjlens.scoring.tiles import BACK_CODE, DETECTOR_CLASSES
from mjlens.vision.profile.errors import ProfileError
from mjlens.vision.profile.features import FeatureReader, classifier_digest, has_own_features
from mjlens.vision.profile.store import Profile
from mjlens.vision.runtime.classifier import CropClassifier

BACK = DETECTOR_CLASSES.index(BACK_CODE)


@dataclass(frozen=True)
class Matching:
    """``temperature``: how sharply a crop's similarities to the codes' nearest examples (cosines of unit features)
    become probabilities; ``unmatched``: the similarity of "none of these codes", below which the shipped reading
    stands (a tile seen from an angle no example shows, a code the profile has no example of)."""

    temperature: float = 0.03
    unmatched: float = 0.6


MATCHING = Matching()


@dataclass(frozen=True)
class Examples:
    """A profile's examples ready to compare with: sorted by code, each code's first row at ``starts``, and where
    each code's probability goes (``columns``); ``kept``: which codes the shipped reading may give (the set's)."""

    features: np.ndarray
    starts: np.ndarray
    columns: np.ndarray
    kept: np.ndarray
    reliance: np.ndarray

    @classmethod
    def of(cls, profile: Profile) -> Examples:
        rank = [DETECTOR_CLASSES.index(code) for code in profile.example_codes]
        order = sorted(range(len(rank)), key=rank.__getitem__)
        names = [profile.example_codes[i] for i in order]
        codes = sorted(set(names), key=DETECTOR_CLASSES.index)
        kept = np.ones(len(DETECTOR_CLASSES), bool)
        if profile.complete:  # a code the set lacks: nothing of the shipped reading goes to it
            kept[:] = False
            kept[[DETECTOR_CLASSES.index(c) for c in profile.codes] + [BACK]] = True
        return cls(np.asarray(profile.features, np.float32)[order], np.array([names.index(c) for c in codes]),
                   np.array([DETECTOR_CLASSES.index(c) for c in codes]), kept, np.asarray(profile.reliance, np.float32))


def matched_probabilities(probs: np.ndarray, similarity: np.ndarray, profile: Profile | Examples,
                          matching: Matching = MATCHING) -> np.ndarray:
    """The shipped ``probs`` (n x len(DETECTOR_CLASSES)) joined with the profile's nearest examples of the crops, by
    their ``similarity`` to each example of ``Examples.of(profile)`` in its order (cosines, n x examples): the chance
    of "none of the codes" keeps the shipped reading's share, every code the share its nearest example earns; a
    face-down tile's chance stays the shipped one (no profile shows backs). That reading is then weighed against the
    shipped one by the profile's reliance on the shipped reading's code: a set the classifier already reads is left
    as it reads it. In a complete profile (a whole set), codes the set lacks are read as nothing."""
    if not len(probs):
        return probs
    examples = profile if isinstance(profile, Examples) else Examples.of(profile)
    nearest = np.maximum.reduceat(similarity, examples.starts, axis=1)
    logits = np.concatenate([nearest, np.full((len(probs), 1), matching.unmatched)], axis=1) / matching.temperature
    shares = np.exp(logits - logits.max(axis=1, keepdims=True))
    shares /= shares.sum(axis=1, keepdims=True)
    none = shares[:, -1:]
    shipped = probs
    if not examples.kept.all():
        shipped = np.where(examples.kept, probs, 0.0)
        shipped = shipped / np.maximum(shipped.sum(axis=1, keepdims=True), 1e-9)
    back = shipped[:, BACK:BACK + 1]
    matched = none * shipped
    matched[:, examples.columns] += (1 - none) * (1 - back) * shares[:, :-1]
    matched[:, BACK:BACK + 1] += (1 - none) * back
    trusted = examples.reliance[shipped.argmax(axis=1)][:, None]  # a reading the set showed it gives surely stays
    return (trusted * shipped + (1 - trusted) * matched).astype(np.float32)


class ProfiledClassifier:
    """A ``CropClassifier`` reading with a profile of the player's set."""

    def __init__(self, classifier: CropClassifier, profile: Profile, *, threads: int | None = None,
                 matching: Matching = MATCHING):
        self.classifier = classifier
        if profile.classifier != classifier_digest(classifier.path):
            raise ProfileError("profile_classifier", msg("the profile was made with another crop classifier "
                                                         "than {name}: make it again with this one",
                                                         name=classifier.path.name))
        self.profile = profile
        self.examples = Examples.of(profile)
        # With a features classifier of its own, the shipped reading comes first and the features are read only for
        # the crops whose reading the profile does not fully trust: a set the classifier reads costs no more.
        self.apart = has_own_features()
        self.features = FeatureReader(classifier, threads, examples=self.examples.features, features_only=self.apart)
        self.matching = matching
        self.path, self.size, self.columns = classifier.path, classifier.size, classifier.columns

    def probabilities(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
        return self.turned_probabilities(bgr, boxes, (0,))[0]

    def turned_probabilities(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]], turns: Sequence[int]
                             ) -> np.ndarray:
        """As ``CropClassifier.turned_probabilities``, each reading joined with the profile's."""
        result = np.zeros((len(turns), len(boxes), len(DETECTOR_CLASSES)), dtype=np.float32)
        if not len(boxes):
            return result
        crops = self.classifier.turned_crops(bgr, boxes, turns)  # one cut for both readings
        if not self.apart:
            probs, similarity = self.features.similar(crops)
            return matched_probabilities(probs, similarity, self.examples, self.matching).reshape(result.shape)
        probs = self.classifier.crop_probabilities(crops)
        doubted = np.flatnonzero(self.examples.reliance[probs.argmax(axis=1)] < 1.0)
        similarity = np.zeros((len(crops), len(self.examples.features)), np.float32)
        if len(doubted):
            similarity[doubted] = self.features.similar([crops[i] for i in doubted])[1]
        return matched_probabilities(probs, similarity, self.examples, self.matching).reshape(result.shape)
