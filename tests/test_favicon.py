"""Every browser asks for /favicon.ico, whatever the page links: the service answers it with an icon, open like
the page itself (no API key), rather than a 404 in every visit's log."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402
from PIL import Image  # noqa: E402

from mjlens.api.service.app import create_app  # noqa: E402
from mjlens.api.service.settings import Settings  # noqa: E402


@pytest.mark.parametrize("api_key", [None, "secret"])
def test_the_favicon_is_an_icon(api_key) -> None:
    with TestClient(create_app(Settings(model="none.onnx", api_key=api_key))) as client:
        response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"] == "image/x-icon"
    icon = Image.open(io.BytesIO(response.content))
    assert icon.format == "ICO" and icon.size[0] >= 16
