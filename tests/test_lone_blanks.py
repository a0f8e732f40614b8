"""Blank faces away from every other tile are not kept; a 白 among the hand's tiles is (vision.reading.lone_blanks)."""

from __future__ import annotations

from mjlens.vision.detection import Detection
from mjlens.vision.reading.lone_blanks import lone_blanks, without_lone_blanks


def _tile(code: str, x: float, y: float = 100.0, width: float = 40.0, height: float = 55.0) -> Detection:
    return Detection(code, (x, y, x + width, y + height), 0.95)


def _row(codes: str, x: float = 0.0, y: float = 100.0) -> list[Detection]:
    return [_tile(code, x + 40.0 * i, y) for i, code in enumerate(codes.split())]


def test_a_blank_in_the_hand_row_stays():
    hand = _row("1m 2m 3m 5z 5z 5z 7p 8p 9p")
    assert lone_blanks(hand) == []


def test_a_blank_far_above_the_hand_is_clutter():
    hand = _row("1m 2m 3m 4p 5p 6p")
    book = _tile("5z", 100.0, y=-400.0)
    assert lone_blanks([*hand, book]) == [6]
    assert without_lone_blanks([*hand, book]) == hand


def test_a_chain_of_blanks_with_no_face_is_clutter_every_link():
    hand = _row("1m 2m 3m 4p 5p 6p")
    spines = _row("5z 5z 5z 5z", x=600.0, y=-300.0)
    assert lone_blanks([*hand, *spines]) == [6, 7, 8, 9]


def test_a_pung_of_blanks_set_apart_beside_the_hand_stays():
    hand = _row("1m 2m 3m 4p 5p 6p 7s 8s 9s 2z 2z")
    pung = _row("5z 5z 5z", x=hand[-1].box[2] + 60.0)  # a tile and a half apart
    assert lone_blanks([*hand, *pung]) == []


def test_tiles_laid_out_a_tile_apart_keep_their_blank():
    laid_out = [_tile(code, 80.0 * i) for i, code in enumerate("1z 2z 3z 4z".split())]
    laid_out += [_tile(code, 80.0 * i, y=180.0) for i, code in enumerate("6z 5z 7z".split())]
    assert lone_blanks(laid_out) == []


def test_a_photo_of_blanks_alone_is_left_as_read():
    assert lone_blanks(_row("5z")) == []
    assert lone_blanks(_row("5z 5z 5z")) == []
    assert lone_blanks([]) == []


def test_the_reader_leaves_out_a_lone_blank(monkeypatch):
    from mjlens.vision.reading import reader as reader_module
    from mjlens.vision.reading.path import KeepAt, Reading

    hand = _row("1m 2m 3m 4p 5p 6p")
    book = _tile("5z", 100.0, y=-400.0)
    pair = object.__new__(reader_module.TwoStageDetector)  # no models: the photo's reading is given
    pair.keep_at = KeepAt(0.2, 0.15, 0.1)
    monkeypatch.setattr(pair, "first_reading", lambda *args, **kwargs: Reading([*hand, book]), raising=False)
    monkeypatch.setattr(pair, "few_tiles_zoom", lambda *args, **kwargs: None, raising=False)
    monkeypatch.setattr(reader_module, "read_photo", lambda *args, first, **kwargs: first)
    assert pair.reading_of(None).tiles == hand
