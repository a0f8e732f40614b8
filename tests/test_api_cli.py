"""``mjlens photo`` and ``mjlens serve``: the photo command prints what ``POST /v1/photo-score`` answers, bad
input exits 2 with a one-line reason, and ``serve`` answers on its port."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import httpx
import pytest
from api_fakes import FakeRecognizer, sample_photo
from fastapi.testclient import TestClient

import mjlens.api.cli.commands.photo as photo_command
from mjlens.api.cli.main import main
from mjlens.api.service.app import create_app
from mjlens.api.service.settings import Settings


@pytest.fixture
def fake(monkeypatch) -> FakeRecognizer:
    recognizer = FakeRecognizer()
    monkeypatch.setattr(photo_command, "load_recognizer", lambda args: recognizer)
    return recognizer


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "table.jpg"
    path.write_bytes(sample_photo())
    return path


def test_photo_json_is_the_same_object_as_the_api(fake, photo, capsys):
    code = main(["photo", str(photo), "--rules", "cantonese", "--self-drawn", "--seat", "S", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    with TestClient(create_app(Settings(model="none.onnx"), recognizer=FakeRecognizer())) as client:
        api = client.post("/v1/photo-score", files={"image": ("table.jpg", photo.read_bytes(), "image/jpeg")},
                          data={"rules": "cantonese", "self_drawn": "true", "seat_wind": "S"}).json()
    assert out == api
    assert out["score"]["valid"] is True and out["recognition"]["hand"]["context"]["self_drawn"] is True


def test_photo_readable_output(fake, photo, capsys):
    assert main(["photo", str(photo), "--rules", "cantonese", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "table.jpg" in out and "14 張牌" in out and "總計" in out


@pytest.mark.parametrize("argv, message", [
    (["--rules", "poker"], "unknown_rules"),
    (["--rules", "cantonese", "--streak", "500"], "bad_context"),
])
def test_photo_bad_arguments_exit_2(fake, photo, capsys, argv, message):
    assert main(["photo", str(photo), *argv]) == 2
    assert message in capsys.readouterr().err
    assert fake.calls == 0


def test_photo_bad_files_exit_2(fake, tmp_path, capsys):
    corrupt = tmp_path / "broken.jpg"
    corrupt.write_bytes(sample_photo()[:500])
    assert main(["photo", str(corrupt), "--rules", "mcr"]) == 2
    assert "corrupt_image" in capsys.readouterr().err
    assert main(["photo", str(tmp_path / "missing.jpg"), "--rules", "mcr"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_photo_without_the_model_exits_2(photo, tmp_path, capsys):
    assert main(["photo", str(photo), "--rules", "mcr", "--model", str(tmp_path / "none.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjlens photo:") and "Traceback" not in err


def test_photo_hand_that_does_not_win_exits_2_with_the_result(monkeypatch, photo, capsys):
    class Broken(FakeRecognizer):
        def recognize(self, data, name):
            rec = super().recognize(data, name)
            rec["hand"]["concealed"][0] = "9m"
            return rec

    monkeypatch.setattr(photo_command, "load_recognizer", lambda args: Broken())
    assert main(["photo", str(photo), "--rules", "cantonese", "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["score"]["valid"] is False and "not_winning" in captured.err
    # what to do next: a tile may be misread, put right on the page or typed for mjlens score
    assert "misread" in captured.err and "mjlens serve" in captured.err and "mjlens score" in captured.err


def test_serve_rejects_a_bad_port(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def test_serve_rejects_a_bad_setting(monkeypatch, capsys):
    monkeypatch.setenv("MJLENS_WORKERS", "0")
    assert main(["serve"]) == 2
    assert "MJLENS_" in capsys.readouterr().err


def test_module_level_app_for_uvicorn():
    import mjlens.api.service.app

    assert mjlens.api.service.app.app is mjlens.api.service.app.app and mjlens.api.service.app.app.title == "mjlens"


def test_serve_answers_on_its_port(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "mjlens", "serve", "--port", str(port),
                             "--model", str(tmp_path / "none.onnx")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()
                time.sleep(0.2)
        assert response.json() == {"status": "ok"} and response.headers["X-Request-ID"]
        assert httpx.get(f"http://127.0.0.1:{port}/readyz").status_code == 503
        assert "<html" in httpx.get(f"http://127.0.0.1:{port}/").text
    finally:
        proc.terminate()
        proc.wait(timeout=10)
