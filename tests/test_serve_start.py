"""``mjlens serve`` before it loads anything: a port another program holds is refused in words that name the port
and ``--port``, and the place profiles will be kept is said."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from mjlens.api.cli.commands.serve import profile_place
from mjlens.api.cli.main import main


def test_a_taken_port_is_refused_before_the_models_load(monkeypatch, capsys):
    import mjlens.api.service.app

    def no_loading(*args, **kwargs):
        raise AssertionError("the app was built for a port that is taken")

    monkeypatch.setattr(mjlens.api.service.app, "create_app", no_loading)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"port_in_use: port {port}" in err and "--port" in err and "Errno" not in err


def test_a_host_that_is_no_address_is_refused(capsys):
    assert main(["serve", "--host", "no-such-host.invalid"]) == 2
    assert "bad_flag_value: --host" in capsys.readouterr().err


def test_the_profile_store_is_named(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert profile_place("mjlens-profiles.db") == str(tmp_path.resolve() / "mjlens-profiles.db")
    assert profile_place("postgresql://user:secret@db/mjlens") == "postgresql://user:***@db/mjlens"


@pytest.mark.parametrize("port", ["0", "70000"])
def test_a_port_out_of_range(capsys, port):
    assert main(["serve", "--port", port]) == 2
    assert "bad_flag_value: --port" in capsys.readouterr().err
