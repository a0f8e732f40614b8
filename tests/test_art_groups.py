"""The art sets a general reader trains on and the held-out families its unseen-set figures are measured on."""

from pathlib import Path

import pytest

from mjlens.vision.synth.art import HELD_OUT_FAMILIES, HELD_OUT_SETS, ArtBank, ArtError, sets_of_group

SHARED_ART = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "tile-art"


def test_a_family_is_held_out_whole():
    assert HELD_OUT_SETS == {name for family in HELD_OUT_FAMILIES.values() for name in family}
    assert {"bradfield_numbered", "bradfield_v1"} <= HELD_OUT_SETS
    assert {"xmj_thick", "xmj_thin"} <= HELD_OUT_SETS


def test_an_unknown_group_is_refused(tmp_path):
    with pytest.raises(ArtError):
        sets_of_group(tmp_path, "everything")


@pytest.mark.skipif(not SHARED_ART.is_dir(), reason="the shared tile art is not here")
def test_general_and_held_out_split_the_art():
    general = sets_of_group(SHARED_ART, "general")
    held_out = sets_of_group(SHARED_ART, "held-out")
    assert not set(general) & set(held_out)
    assert set(held_out) == HELD_OUT_SETS & set(general + held_out)
    assert len(held_out) >= 5
    bank = ArtBank(SHARED_ART, general, even=True)
    assert len(set(bank.weights.round(9))) == 1


@pytest.mark.skipif(not (SHARED_ART / "xshisen_s2").is_dir(), reason="the shared tile art is not here")
def test_a_set_without_flowers_shows_none(tmp_path):
    from mjlens.vision.synth.generate import generate_one

    bank = ArtBank(SHARED_ART, ["xshisen_s2"])
    assert not bank.has_bonus()
    codes = [code for index in range(8) for code, *_ in generate_one(11, index, bank, 320).labels]
    assert codes and not any(code.endswith("f") for code in codes)
