"""Japanese riichi (`--rules riichi`): worked examples with published answers (docs/rules/riichi.md), the points
against the han/fu table, and han, fu and points against the `mahjong` package called on its own."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from mjlens.scoring.engine import score
from mjlens.scoring.hand import Context, Hand, context_from_json
from mjlens.scoring.notation import parse
from mjlens.scoring.random_hands import random_hands
from mjlens.scoring.tiles import PLAYING_CODES, RED_FIVES, index

mahjong = pytest.importorskip("mahjong")


def riichi(text: str, options: dict | None = None, **context) -> dict:
    """Score ``text`` under riichi; the winner is dealer when seated East (the dealer sits East)."""
    context.setdefault("dealer", context.get("seat_wind", "E") == "E")
    return score(parse(text, context_from_json(context)), "riichi", options or {}).to_json()


def fu_lines(result: dict) -> list[tuple[str, int]]:
    return [(i["key"], i["points"]) for i in result["fu_items"]]


def yaku(result: dict) -> dict[str, int]:
    return {i["key"]: i["points"] for i in result["items"]}


PINFU = "123m456p789s23s55p +4s"  # all sequences, a pair of non-value fives, an open wait on 1s-4s


# --- worked examples: docs/rules/riichi.md "Worked examples" ----------------------------------------------------

def test_pinfu_self_drawn_is_20_fu():
    r = riichi(PINFU, self_drawn=True, seat_wind="S")
    assert (r["total"], r["fu"]) == (2, 20) and yaku(r) == {"tsumo": 1, "pinfu": 1}
    assert fu_lines(r) == [("base", 20)]
    assert r["points"]["payments"] == {"dealer": 700, "each_other": 400} and r["points"]["total"] == 1500
    assert r["settlement"] == {"E": -700, "S": 1500, "W": -400, "N": -400}


def test_concealed_win_on_a_discard_adds_10_fu():
    r = riichi(PINFU, riichi=True, seat_wind="S")
    assert (r["total"], r["fu"]) == (2, 30) and fu_lines(r) == [("base", 20), ("menzen_ron", 10)]
    assert r["points"]["payments"] == {"discarder": 2000}


def test_seven_pairs_is_25_fu():
    r = riichi("1122m3344p5566s7z +7z", riichi=True, seat_wind="S")
    assert (r["total"], r["fu"]) == (3, 25) and yaku(r) == {"riichi": 1, "chiitoitsu": 2}
    assert fu_lines(r) == [("seven_pairs", 25)] and r["points"]["payments"] == {"discarder": 3200}


def test_open_pinfu_shape_is_30_fu():
    r = riichi("567p345s67s88p [234m] +5s", seat_wind="S")
    assert (r["total"], r["fu"]) == (1, 30) and yaku(r) == {"tanyao": 1}
    assert r["points"]["payments"] == {"discarder": 1000}


@pytest.mark.parametrize("text,line", [
    ("123m456p789s13s55p +2s", ("kanchan", 2)),
    ("123m456p789s12s55p +3s", ("penchan", 2)),
    ("123m456p789s123s9p +9p", ("pair_wait", 2)),
])
def test_each_single_wait_is_2_fu(text, line):
    r = riichi(text, riichi=True, seat_wind="S")
    assert line in fu_lines(r) and r["fu"] == 40 and r["points"]["payments"] == {"discarder": 1300}


@pytest.mark.parametrize("text,line,fu", [
    ("222m456p789s23s55p +1s", ("closed_pon", 4), 40),
    ("111m456p789s23s55p +1s", ("closed_terminal_pon", 8), 40),
    ("(2222m) 456p789s23s55p +1s", ("closed_kan", 16), 50),
    ("(9999m) 456p789s23s55p +1s", ("closed_terminal_kan", 32), 70),
])
def test_fu_of_each_concealed_meld(text, line, fu):
    r = riichi(text, riichi=True, seat_wind="S")
    assert line in fu_lines(r) and r["fu"] == fu


@pytest.mark.parametrize("text,line,fu", [
    ("123m456p23s55p [777z] +1s", ("open_terminal_pon", 4), 30),
    ("[2222m] 456p678s34s55p +2s", ("open_kan", 8), 30),
    ("[7777z] 123m456p23s55p +1s", ("open_terminal_kan", 16), 40),
])
def test_fu_of_each_open_meld(text, line, fu):
    r = riichi(text, seat_wind="S")
    assert line in fu_lines(r) and r["fu"] == fu


def test_fu_lines_add_up_to_the_fu():
    for text in ("222m456p789s23s55p +1s", "(9999m) 456p789s23s55p +1s", "123m456p789s13s55p +2s"):
        r = riichi(text, riichi=True, seat_wind="S")
        assert sum(i["points"] for i in r["fu_items"]) == r["fu"]


def test_honba_and_riichi_sticks_are_in_the_points():
    r = riichi(PINFU, riichi=True, seat_wind="S", honba=2, riichi_sticks=1)
    assert r["points"]["payments"] == {"discarder": 2600}  # 2000 + 2 x 300
    assert r["points"]["honba_bonus"] == 600 and r["points"]["riichi_sticks_bonus"] == 1000
    assert r["points"]["total"] == 3600 and r["settlement"]["S"] == 3600 and r["settlement"]["E"] == -2600
    r = riichi(PINFU, self_drawn=True, seat_wind="S", honba=1)
    assert r["points"]["payments"] == {"dealer": 800, "each_other": 500} and r["points"]["total"] == 1800


def test_limit_hands_and_their_names():
    # riichi, pinfu and one dora each from 8s (9s) and 1m (2m): 4 han 30 fu
    r = riichi(PINFU, riichi=True, seat_wind="S", dora_indicators=["8s", "1m"])
    assert (r["total"], r["fu"], r["limit"]) == (4, 30, None) and r["points"]["payments"] == {"discarder": 7700}
    r = riichi(PINFU, {"kiriage_mangan": True}, riichi=True, seat_wind="S", dora_indicators=["8s", "1m"])
    assert r["limit"]["key"] == "kiriage mangan" and r["points"]["payments"] == {"discarder": 8000}
    r = riichi(PINFU, riichi=True, seat_wind="S", dora_indicators=["4p"])  # three fives of dots: 5 han
    assert r["limit"]["key"] == "mangan" and r["points"]["payments"] == {"discarder": 8000}
    r = riichi(PINFU, riichi=True, seat_wind="S", dora_indicators=["4p", "4p"])  # 8 han
    assert r["limit"]["key"] == "baiman" and r["points"]["payments"] == {"discarder": 16000}


def test_yakuman_counted_yakuman_and_double_yakuman():
    r = riichi("555z666z777z123m4p +4p", seat_wind="S")
    assert yaku(r) == {"daisangen": 13} and r["yakuman"] == 1 and r["limit"]["key"] == "yakuman"
    assert r["points"]["payments"] == {"discarder": 32000}
    assert riichi("555z666z777z123m4p +4p")["points"]["payments"] == {"discarder": 48000}  # the dealer
    r = riichi("111z222z333z444z5m +5m", seat_wind="S")
    assert yaku(r) == {"daisuushi": 26, "suuankou_tanki": 26} and r["yakuman"] == 4
    r = riichi("111z222z333z444z5m +5m", {"double_yakuman": False}, seat_wind="S")
    assert r["yakuman"] == 2 and r["points"]["payments"] == {"discarder": 64000}
    # riichi, pinfu, tanyao, iipeikou, chinitsu and three dora: 13 han
    r = riichi("234m234m567m67m55m +8m", riichi=True, seat_wind="S", dora_indicators=["4m"])
    assert r["total"] == 13 and r["limit"]["key"] == "kazoe yakuman" and r["yakuman"] == 1
    r = riichi("234m234m567m67m55m +8m", {"counted_yakuman": False}, riichi=True, seat_wind="S",
               dora_indicators=["4m"])
    assert r["limit"]["key"] == "kazoe sanbaiman" and r["points"]["payments"] == {"discarder": 24000}


# --- red fives ---------------------------------------------------------------------------------------------------

def test_a_red_five_is_a_han_of_dora_and_shown_red():
    r = riichi("123m406p789s23s55p +4s", riichi=True, seat_wind="S")
    assert yaku(r)["aka_dora"] == 1 and r["total"] == 3 and r["red_fives"] == 1
    assert ["4p", "0p", "6p"] in r["decomposition"]
    off = riichi("123m406p789s23s55p +4s", {"red_fives": False}, riichi=True, seat_wind="S")
    assert "aka_dora" not in yaku(off) and off["total"] == 2 and any("red fives" in w for w in off["warnings"])


def test_one_red_five_per_suit():
    r = riichi("123m400p789s23s55p +4s", riichi=True)
    assert r["valid"] is False and r["error"]["code"] == "too_many_copies"
    r = riichi("123m456p789s555p5s +5s", riichi=True)  # four plain fives of dots: the set's fourth is red
    assert r["valid"] is False and r["error"]["code"] == "too_many_copies"


@pytest.mark.parametrize("rules", ["mcr", "taiwan", "cantonese"])
def test_other_rule_systems_read_a_red_five_as_a_five(rules):
    text = "123m406p789s23s55p [555z] +4s" if rules != "taiwan" else "123m406p789s23s55p [555z] 111z +4s"
    red, plain = (score(parse(t), rules).to_json() for t in (text, text.replace("0", "5")))
    assert red["valid"] == plain["valid"] and red.get("total") == plain.get("total")
    assert red.get("items") == plain.get("items")


def test_riichi_context_under_another_system_is_said_to_be_ignored():
    r = score(parse(PINFU, Context(riichi=True, dora_indicators=("1m",))), "mcr").to_json()
    assert any("riichi only, ignored under mcr" in w for w in r["warnings"])


# --- errors ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,context,options,code", [
    ("456p789s23s55p [123m] +1s", {"seat_wind": "S"}, {}, "no_yaku"),
    ("123m456p789s23s55p +5s", {}, {}, "not_winning"),
    (PINFU, {"ippatsu": True}, {}, "bad_context"),
    ("456p789s23s55p [123m] +1s", {"riichi": True}, {}, "bad_context"),
    (PINFU, {"dora_indicators": ["1f"]}, {}, "bad_context"),
    (PINFU, {"honba": -1}, {}, "bad_context"),
    (PINFU, {"dora_indicators": ["5p", "5p"]}, {}, "too_many_copies"),
    (PINFU, {}, {"kiriage": True}, "bad_option"),
    (PINFU, {}, {"open_tanyao": "yes"}, "bad_option"),
    (PINFU, {"seat_wind": "S"}, {"discarder": "S"}, "bad_option"),
    ("123m456p789s23s5p +4s", {}, {}, "tile_count"),
])
def test_bad_hands_have_stable_codes(text, context, options, code):
    context.setdefault("dealer", context.get("seat_wind", "E") == "E")
    try:
        hand = parse(text, context_from_json(context))
    except Exception as err:  # noqa: BLE001 - the parse step's code is what is checked
        assert getattr(err, "code", None) == code
        return
    r = score(hand, "riichi", options).to_json()
    assert r["valid"] is False and r["error"]["code"] == code


def test_unknown_winning_tile_keeps_the_best_reading():
    hand = parse("123m456p789s23s55p 4s", Context(riichi=True, seat_wind="S", dealer=False))
    r = score(hand, "riichi").to_json()
    assert r["valid"] and r["winning_tile"] in hand.concealed and r["total"] == 2  # riichi and pinfu
    assert r["warnings"][0].startswith("winning tile unknown")


def test_catalog_names_every_yaku_in_three_languages():
    from mjlens.scoring.riichi import catalog

    rows = catalog()
    assert all(r["name_ja"] and r["name_en"] and r["name_zh"] for r in rows)
    pinfu = next(r for r in rows if r["key"] == "pinfu")
    assert (pinfu["han_closed"], pinfu["han_open"]) == (1, 0)
    assert next(r for r in rows if r["key"] == "honitsu")["han_open"] == 2


# --- the points against the han/fu table, and the `mahjong` package's own answer ---------------------------------

LIMITS = [(5, 2000), (6, 3000), (8, 4000), (11, 6000), (13, 8000)]


def _round_up(x: float) -> int:
    return int(math.ceil(x / 100) * 100)


def table_points(han: int, fu: int, dealer: bool, self_drawn: bool) -> dict[str, int]:
    """The published points table: base = fu x 2^(2 + han), capped at mangan (2000); the limits by han."""
    base = min(fu * 2 ** (2 + han), 2000)
    for least, limit in LIMITS:
        if han >= least:
            base = limit
    if not self_drawn:
        return {"discarder": _round_up(base * (6 if dealer else 4))}
    if dealer:
        return {"each": _round_up(base * 2)}
    return {"dealer": _round_up(base * 2), "each_other": _round_up(base)}


def riichi_hands(seed: int, n: int):
    """Random winning hands with riichi context: riichi where closed, dora indicators, some red fives."""
    rng = random.Random(seed)
    for hand in random_hands(seed, 4 * n):
        if hand.flowers:
            hand = replace(hand, flowers=())
        held = [index(t) for t in hand.all_tiles()]
        free = [t for t in range(34) if held.count(t) < 3]
        ctx = hand.context
        closed = all(m.concealed for m in hand.melds)
        context = Context(
            self_drawn=ctx.self_drawn, seat_wind=ctx.seat_wind, round_wind=ctx.round_wind,
            dealer=ctx.seat_wind == "E", riichi=closed and rng.random() < 0.6,
            kong_replacement=ctx.kong_replacement and ctx.self_drawn, robbing_kong=ctx.robbing_kong,
            last_tile=rng.random() < 0.05 and not ctx.kong_replacement and not ctx.robbing_kong,
            dora_indicators=tuple(PLAYING_CODES[t] for t in rng.sample(free, rng.randint(1, 2))),
            honba=rng.randint(0, 3), riichi_sticks=rng.randint(0, 2))
        if context.riichi:
            context = replace(context, ippatsu=rng.random() < 0.2,
                              ura_indicators=(PLAYING_CODES[rng.choice(free)],))
        yield _with_red_fives(replace(hand, context=context), rng.random() < 0.5)


def _with_red_fives(hand: Hand, every_suit: bool) -> Hand:
    """The first five of a suit made red: in every suit, or only where the hand and the indicators hold four
    fives of it (one of a set's four is red)."""
    ctx = hand.context
    table = [*ctx.dora_indicators, *ctx.ura_indicators]
    concealed, melds = list(hand.concealed), list(hand.melds)
    for red, five in RED_FIVES.items():
        if not every_suit and (hand.all_tiles() + table).count(five) < 4:
            continue
        if five in concealed:
            concealed[concealed.index(five)] = red
            continue
        for i, m in enumerate(melds):
            if five in m.tiles:
                tiles = list(m.tiles)
                tiles[tiles.index(five)] = red
                melds[i] = replace(m, tiles=tuple(tiles), claimed=None)
                break
    return replace(hand, concealed=tuple(concealed), melds=tuple(melds))


def _mahjong_answer(hand: Hand):
    """`mahjong`'s own answer, from the hand written out in its notation here."""
    from mahjong.constants import AKA_DORAS
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld
    from mahjong.tile import TilesConverter

    def ids(codes):
        return TilesConverter.one_line_string_to_136_array("".join(codes), has_aka_dora=True)

    pool = ids([*hand.concealed, hand.winning_tile, *(t for m in hand.melds for t in m.tiles)])

    def take(code):
        red = code in RED_FIVES
        tile = next(i for i in pool if i // 4 == index(code) and (i in AKA_DORAS) == red)
        pool.remove(tile)
        return tile

    win = take(hand.winning_tile)
    tiles = [win] + [take(t) for t in hand.concealed]
    melds = []
    for m in hand.melds:
        meld_ids = [take(t) for t in m.tiles]
        tiles += meld_ids
        kind = {"chow": Meld.CHI, "pung": Meld.PON, "kong": Meld.KAN}[m.kind]
        melds.append(Meld(kind, meld_ids, opened=not m.concealed))
    ctx = hand.context
    winds = {"E": 27, "S": 28, "W": 29, "N": 30}
    config = HandConfig(
        is_tsumo=ctx.self_drawn, is_riichi=ctx.riichi, is_ippatsu=ctx.ippatsu, is_rinshan=ctx.kong_replacement,
        is_chankan=ctx.robbing_kong, is_haitei=ctx.last_tile and ctx.self_drawn,
        is_houtei=ctx.last_tile and not ctx.self_drawn, player_wind=winds[ctx.seat_wind],
        round_wind=winds[ctx.round_wind], tsumi_number=ctx.honba, kyoutaku_number=ctx.riichi_sticks,
        options=OptionalRules(has_open_tanyao=True, has_aka_dora=True, has_double_yakuman=True))
    dora = [TilesConverter.one_line_string_to_136_array(t)[0] for t in ctx.dora_indicators]
    ura = [TilesConverter.one_line_string_to_136_array(t)[0] for t in ctx.ura_indicators]
    return HandCalculator.estimate_hand_value(tiles, win, melds=melds, dora_indicators=dora,
                                              ura_dora_indicators=ura, config=config)


def test_han_fu_and_points_equal_the_mahjong_packages_own_answer():
    agree = scored = 0
    for hand in riichi_hands(58, 300):
        ours = score(hand, "riichi").to_json()
        theirs = _mahjong_answer(hand)
        if theirs.error is not None:
            assert ours["valid"] is False, (hand, theirs.error, ours)
            continue
        scored += 1
        assert ours["valid"], (hand, ours)
        assert (ours["total"], ours["fu"], ours["points"]["total"]) == (theirs.han, theirs.fu,
                                                                      theirs.cost["total"]), hand
        agree += 1
    assert scored >= 100 and agree == scored


def test_points_follow_the_han_fu_table():
    checked = 0
    for hand in riichi_hands(59, 300):
        r = score(hand, "riichi").to_json()
        if not r["valid"] or r["yakuman"]:
            continue
        ctx = hand.context
        want = table_points(r["total"], r["fu"], ctx.dealer, ctx.self_drawn)
        honba = ctx.honba * (300 if not ctx.self_drawn else 100)
        assert r["points"]["payments"] == {k: v + honba for k, v in want.items()}, hand
        assert r["points"]["total"] == sum(
            v * (3 if k == "each" else 2 if k == "each_other" else 1) for k, v in r["points"]["payments"].items()
        ) + 1000 * ctx.riichi_sticks
        assert sum(r["settlement"].values()) == 1000 * ctx.riichi_sticks
        checked += 1
    assert checked >= 100


def test_every_listed_wait_scores():
    from mjlens.scoring.advice import waits

    seen = 0
    for hand in riichi_hands(60, 200):
        if not all(m.concealed for m in hand.melds) or not score(hand, "riichi").valid:
            continue  # open, or not a riichi shape (the random hands hold Chinese Official shapes too)
        one_short = Hand(hand.concealed, hand.melds, None, (), replace(hand.context, riichi=True, ippatsu=False))
        result = waits(one_short, "riichi")
        assert result["valid"] and result["shanten"] == 0
        for w in result["waits"]:
            assert w["discard"]["valid"] or w["discard"]["error"]["code"] == "no_yaku"
            assert w["self_drawn"]["valid"]  # riichi and a concealed self-draw: always a yaku
            seen += 1
    assert seen >= 50


def test_shanten_equals_the_mahjong_packages():
    from mahjong.shanten import Shanten

    from mjlens.scoring.advice import advise

    rng = random.Random(61)
    wall = [t for t in range(34) for _ in range(4)]
    for _ in range(300):
        # a third of the hands drawn from few kinds, so that seven pairs and four of a kind come up
        kinds = rng.sample(range(34), 8) if rng.random() < 0.33 else range(34)
        tiles = rng.sample([t for t in wall if t in kinds], 13)
        counts = [tiles.count(t) for t in range(34)]
        hand = Hand(tuple(PLAYING_CODES[t] for t in tiles))
        assert advise(hand, "riichi")["shanten"] == Shanten.calculate_shanten(counts), hand.concealed


# --- the command line --------------------------------------------------------------------------------------------

def test_cli_riichi_flags(capsys):
    import json

    from mjlens.api.cli.main import main

    argv = ["score", "123m406p789s23s55p +4s", "--rules", "riichi", "--riichi", "--dora", "8s,1m", "--seat", "S",
            "--honba", "1", "--sticks", "2", "--option", "discarder=W", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    context = {"riichi": True, "seat_wind": "S", "dealer": False, "dora_indicators": ["8s", "1m"], "honba": 1,
               "riichi_sticks": 2}
    assert out == score(parse("123m406p789s23s55p +4s", context_from_json(context)), "riichi",
                        {"discarder": "W"}).to_json()
    assert out["points"]["payments"] == {"discarder": 8300} and out["settlement"]["W"] == -8300
    assert main(argv[:-1]) == 0
    shown = capsys.readouterr().out
    assert "30 fu = 20 Base + 10 Concealed hand won on a discard" in shown and "Mangan" in shown
    assert main(["score", PINFU, "--rules", "riichi", "--dora", "8x"]) == 2
    assert "bad_notation" in capsys.readouterr().err


def test_cli_waits_under_riichi_say_furiten(capsys):
    import json

    from mjlens.api.cli.main import main

    assert main(["waits", "123m456p789s23s55p", "--rules", "riichi", "--discards", "E=1s", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [w["tile"] for w in out["waits"]] == ["1s", "4s"] and out["furiten"] is True
    assert any("riichi declared" in w for w in out["warnings"])
    assert out["waits"][0]["discard"]["items"][0]["key"] == "riichi"
    assert main(["waits", "123m456p789s23s55p", "--rules", "riichi", "--seat", "S"]) == 0
    assert "2 han 30 fu, 2000" in capsys.readouterr().out  # each wait with its han, fu and points


def test_api_waits_and_rules_under_riichi():
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from mjlens.api.service.app import create_app
    from mjlens.api.service.settings import Settings

    with TestClient(create_app(Settings(model="no-such-model.onnx"))) as client:
        hand = {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2s", "3s", "5p", "5p"],
                "context": {"seat_wind": "S", "dealer": False}}
        r = client.post("/v1/waits", json={"rules": "riichi", "hand": hand, "discards": {"S": ["4s"], "E": ["1s"]}})
        assert r.status_code == 200, r.text
        body = r.json()
        assert [w["tile"] for w in body["waits"]] == ["1s", "4s"] and body["furiten"] is True
        assert body["waits"][0]["discard"]["fu"] == 30 and body["waits"][0]["self_drawn"]["fu"] == 20
        systems = {s["rules"]: s for s in client.get("/v1/rules").json()}
        assert systems["riichi"]["unit"] == "han" and len(systems["riichi"]["items"]) == 56


def test_photo_command_takes_riichi_flags_as_the_api_its_fields(monkeypatch, tmp_path, capsys):
    import json

    pytest.importorskip("httpx")
    from api_fakes import FakeRecognizer, sample_photo
    from fastapi.testclient import TestClient

    import mjlens.api.cli.commands.photo as photo_command
    from mjlens.api.cli.main import main
    from mjlens.api.service.app import create_app
    from mjlens.api.service.settings import Settings

    fake = FakeRecognizer()
    monkeypatch.setattr(photo_command, "load_recognizer", lambda args: fake)
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    assert main(["photo", str(photo), "--rules", "riichi", "--dora", "4p,7s", "--honba", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with TestClient(create_app(Settings(model="none.onnx"), recognizer=FakeRecognizer())) as client:
        api = client.post("/v1/photo-score", files={"image": ("table.jpg", photo.read_bytes(), "image/jpeg")},
                          data={"rules": "riichi", "dora_indicators": ["4p", "7s"], "honba": "1"}).json()
    assert out == api and {i["key"]: i["count"] for i in out["score"]["items"]}["dora"] == 2
    calls = fake.calls
    assert main(["photo", str(photo), "--rules", "riichi", "--dora", "4x"]) == 2
    assert "bad_notation" in capsys.readouterr().err and fake.calls == calls  # refused before the reader runs


def test_a_photos_hand_with_a_seat_given_is_the_dealers_only_when_east(monkeypatch, tmp_path, capsys):
    """The reading's hand carries the default context (seat E, so dealer): a seat given decides who is dealer."""
    import json

    from api_fakes import FakeRecognizer, sample_photo

    import mjlens.api.cli.commands.photo as photo_command
    from mjlens.api.cli.main import main
    from mjlens.scoring.hand import Hand

    class ReadWithContext(FakeRecognizer):
        def recognize(self, data, name):
            out = super().recognize(data, name)
            return {**out, "hand": Hand.from_json(out["hand"]).to_json()}  # as the reader gives it

    monkeypatch.setattr(photo_command, "load_recognizer", lambda args: ReadWithContext())
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    assert main(["photo", str(photo), "--rules", "riichi", "--seat", "S", "--json"]) == 0
    score_json = json.loads(capsys.readouterr().out)["score"]
    assert score_json["points"]["payments"] == {"discarder": 1000}  # 1 han 30 fu, not dealer
    assert not any("dealer" in w for w in score_json["warnings"])


# --- safety marks under riichi ----------------------------------------------------------------------------------

def test_suji_kabe_and_genbutsu_marks():
    from mjlens.scoring.safety import riichi_marks, two_sided_waits

    assert [w[2] for w in two_sided_waits(index("4m"))] == [index("7m"), index("1m")]
    assert two_sided_waits(index("1z")) == []
    left = [4] * 34
    rules = lambda tile, others: {m.rule: m.seat for m in riichi_marks(tile, others, left)}  # noqa: E731
    assert rules("4m", {"S": ("1m", "7m")}) == {"riichi_suji": "S"}
    assert rules("4m", {"S": ("1m",)}) == {}  # half suji: 5-6 still waits on 4m
    assert rules("1p", {"W": ("4p",)}) == {"riichi_suji": "W"}
    assert rules("0p", {"N": ("5p",)}) == {"riichi_genbutsu": "N"}  # a red five is its five
    left[index("8s")] = 0
    assert rules("9s", {}) == {"riichi_kabe": None}  # its only two-sided wait, 7-8, needs an 8s
    assert rules("7s", {}) == {}  # 5-6 still waits on 7s


def test_advise_under_riichi_marks_suji():
    from mjlens.scoring.advice import advise
    from mjlens.scoring.sighting import Sighting

    hand = parse("123m456p789s23s55p 9m", Context(seat_wind="E"))
    result = advise(hand, "riichi", sighting=Sighting(discards={"S": ("6m",)}))
    nine = next(d for d in result["discards"] if d["tile"] == "9m")
    assert {"rule": "riichi_suji", "seat": "S"}.items() <= next(
        m for m in nine["safety"] if m["rule"] == "riichi_suji").items()
    mcr = advise(hand, "mcr", sighting=Sighting(discards={"S": ("6m",)}))
    assert not any(m["rule"].startswith("riichi_") for d in mcr["discards"] for m in d["safety"])
