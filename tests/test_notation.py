import pytest

from mjlens.scoring import HandError, parse
from mjlens.scoring.notation import format_hand


def test_parses_the_conventions_example():
    hand = parse("123m456p78s11z [555z] 1f6f +9s")
    assert hand.concealed == ("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "1z", "1z")
    assert [(m.kind, m.tiles, m.concealed) for m in hand.melds] == [("pung", ("5z",) * 3, False)]
    assert hand.flowers == ("1f", "6f")
    assert hand.winning_tile == "9s"


def test_honour_letters_glyphs_and_concealed_kong():
    hand = parse("\U0001F007\U0001F008\U0001F009 EEE PP (9999s) +C")
    assert hand.concealed == ("1m", "2m", "3m", "1z", "1z", "1z", "5z", "5z")
    assert hand.melds[0].kind == "kong" and hand.melds[0].concealed
    assert hand.winning_tile == "7z"


@pytest.mark.parametrize("glyph, reason", [("\U0001F02A", "joker"), ("\U0001F02B", "concealed kong")])
def test_the_joker_and_a_tiles_back_are_refused_with_their_reason(glyph, reason):
    with pytest.raises(HandError) as refused:
        parse(f"123m456p789s11z{glyph}2z +2z")
    assert refused.value.code == "bad_notation" and reason in str(refused.value)


def test_chow_and_exposed_kong_are_told_by_their_tiles():
    hand = parse("11z [345p] [1111m] [789s] 22s +1z")
    assert [m.kind for m in hand.melds] == ["chow", "kong", "chow"]


def test_round_trip_through_format():
    text = "123m456p78s11z [555z] (9999s) 16f +6s"
    assert format_hand(parse(text)) == text


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "bad_notation"),
        ("123", "bad_notation"),
        ("123x", "bad_notation"),
        ("0z", "unknown_tile"),
        ("0f", "unknown_tile"),
        ("8z", "unknown_tile"),
        ("[123", "bad_notation"),
        ("123]", "bad_notation"),
        ("[124m]", "bad_meld"),
        ("(111m)", "bad_meld"),
        ("[1f2f3f]", "bad_meld"),
        ("11111m", "too_many_copies"),
        ("1f1f", "too_many_copies"),
        ("123m +1f", "bad_notation"),
        ("123m +1m2m", "bad_notation"),
        ("123m +1m +2m", "bad_notation"),
    ],
)
def test_bad_notation_has_a_stable_code(text, code):
    with pytest.raises(HandError) as err:
        parse(text)
    assert err.value.code == code
