"""``mjlens waits`` where it cannot answer: a hand not ready, or one with a tile too many, is pointed to
``mjlens advise``, which answers both."""

from mjlens.api.cli.main import main

READY = "123m456p78s11z [555z]"


def test_waits_points_a_hand_not_ready_to_advise(capsys):
    assert main(["waits", "123m456p789s1123z", "--rules", "mcr"]) == 0
    assert "mjlens advise" in capsys.readouterr().out
    assert main(["waits", READY, "--rules", "mcr"]) == 0
    assert "mjlens advise" not in capsys.readouterr().out


def test_waits_points_a_hand_of_a_tile_too_many_to_advise(capsys):
    assert main(["waits", "123m456p789s11223z", "--rules", "mcr"]) == 2
    assert "tile_count" in (err := capsys.readouterr().err) and "mjlens advise" in err
    assert main(["waits", "123m456p789s122z", "--rules", "mcr"]) == 2  # a tile short of waiting: no advice
    assert "mjlens advise" not in capsys.readouterr().err
