"""The labelled folder's data.yaml keeps validation photos apart from training ones: one photo in five by a hash
of its name (so a photo keeps its split as more are labelled), each split never empty, and a profile made from
the folder still takes every photo."""

from __future__ import annotations

import pytest
import yaml
from api_fakes import FakeRecognizer, sample_photo

import mjlens.api.cli.commands.label as label_command
from mjlens.api.cli.main import main
from mjlens.api.labelling.labels import VAL_EVERY, split
from mjlens.vision import evaluate
from mjlens.vision.profile.sources import _every_split


class FakeRecipe:
    def __init__(self, recognizer: FakeRecognizer) -> None:
        self.recognizer = recognizer

    def load(self, threads: int) -> FakeRecognizer:
        return self.recognizer


def test_the_splits_part_every_photo_once_and_keep_their_photos() -> None:
    names = [f"photo{i:03d}.jpg" for i in range(200)]
    parts = split(names)
    assert sorted(parts["train"] + parts["val"]) == sorted(names)
    assert not set(parts["train"]) & set(parts["val"])
    assert 0.5 / VAL_EVERY < len(parts["val"]) / len(names) < 1.5 / VAL_EVERY
    more = split(names + [f"later{i}.jpg" for i in range(50)])
    assert set(parts["val"]) <= set(more["val"]) and set(parts["train"]) <= set(more["train"])


@pytest.mark.parametrize("count", [2, 3, 4])
def test_a_few_photos_still_give_each_split_one(count: int) -> None:
    parts = split([f"p{i}.jpg" for i in range(count)])
    assert parts["train"] and parts["val"] and not set(parts["train"]) & set(parts["val"])


def test_a_lone_photo_serves_both() -> None:
    assert split(["only.jpg"]) == {"train": ["only.jpg"], "val": ["only.jpg"]}


def test_a_labelled_folder_trains_and_validates_on_other_photos(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setattr(label_command, "recognizer_recipe", lambda args: FakeRecipe(FakeRecognizer()))
    photos = tmp_path / "photos"
    photos.mkdir()
    for i in range(6):
        (photos / f"table{i}.jpg").write_bytes(sample_photo())
    out = tmp_path / "out"
    assert main(["label", str(photos), "--out", str(out)]) == 0
    capsys.readouterr()
    data = yaml.safe_load((out / "data.yaml").read_text(encoding="utf-8"))
    assert data["train"] != data["val"]
    _, train = evaluate.read_dataset(out / "data.yaml", "train")
    _, val = evaluate.read_dataset(out / "data.yaml", "val")
    assert train and val and not {i for i, _ in train} & {i for i, _ in val}
    assert {i.name for i, _ in train + val} == {p.name for p in (out / "images").iterdir()}
    assert all(label.is_file() for _, label in train + val)
    # a profile from the folder takes every labelled photo, whichever split holds it
    _, every = _every_split(out / "data.yaml")
    assert len(every) == 6
