"""No input makes the service fail: a bounded schemathesis run against the OpenAPI schema, random and
mutated image bytes, and random JSON hands. Every answer must be below 500, and every 4xx must carry the
standard error body. Bounded so the file runs in seconds (the examples are seeded: the run is repeatable)."""

from __future__ import annotations

import random

import pytest
from api_fakes import FakeRecognizer, sample_photo
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from mjlens.api.service.app import create_app
from mjlens.api.service.settings import Settings
from mjlens.scoring.tiles import DETECTOR_CLASSES

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi import checks as openapi_checks  # noqa: E402

KEY = "fuzz-key"
APP = create_app(Settings(model="none.onnx", api_key=KEY, profile_db="sqlite://"), recognizer=FakeRecognizer())
SCHEMA = schemathesis.openapi.from_asgi("/openapi.json", APP, headers={"X-API-Key": KEY})  # the schema needs it too
#: Positive/negative data checks are left out on purpose: a random dict is schema-valid yet not a hand, and
#: random bytes are a schema-valid upload yet not a photo; both are rightly refused with a 4xx.
CHECKS = [not_a_server_error, openapi_checks.status_code_conformance, openapi_checks.content_type_conformance,
          openapi_checks.response_schema_conformance, openapi_checks.response_headers_conformance]


@SCHEMA.parametrize()
@settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@seed(20261129)
def test_openapi_schema_fuzz(case):
    case.call_and_validate(headers={"X-API-Key": KEY}, checks=CHECKS)


@pytest.fixture(scope="module")
def client():
    with TestClient(APP, raise_server_exceptions=False, headers={"X-API-Key": KEY}) as c:
        yield c


def _assert_clean(response) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert set(response.json()) == {"error"} and response.json()["error"]["code"]


def _mutations() -> list[bytes]:
    """Truncations, bit flips and spliced headers of real photos in every accepted format, plus noise."""
    rng = random.Random(7)
    originals = [sample_photo(fmt, size=(160, 120)) for fmt in ("JPEG", "PNG", "WEBP", "HEIF")]
    out: list[bytes] = []
    for data in originals:
        out += [data[:n] for n in (1, 2, 4, 8, 12, 16, 32, 64, 100, len(data) // 2, len(data) - 1)]
        for _ in range(10):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 12)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            out.append(bytes(mutated))
        out.append(data[:32] + rng.randbytes(2000))  # a valid header over noise
    out += [rng.randbytes(n) for n in (1, 10, 100, 1000, 10_000)]
    out += [b"\xff\xd8\xff" + b"\x00" * 100, b"\x89PNG\r\n\x1a\n" + b"\xff" * 64, b"RIFF\x00\x00\x00\x00WEBP",
            b"\x00\x00\x00\x18ftypheic" + b"\x00" * 40]
    return out


@pytest.mark.parametrize("data", _mutations(), ids=lambda d: f"{len(d)}b")
def test_mutated_image_bytes_never_fail_the_service(client, data):
    _assert_clean(client.post("/v1/recognize", files={"image": ("x.jpg", data, "image/jpeg")}))


tiles = st.sampled_from([*DETECTOR_CLASSES, "0m", "10p", "", "Z", "east"])
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(
    max_size=5)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
hands = st.fixed_dictionaries({}, optional={
    "concealed": st.lists(tiles, max_size=18) | json_values,
    "melds": st.lists(st.fixed_dictionaries({"kind": st.sampled_from(["chow", "pung", "kong", "x"]),
                                             "tiles": st.lists(tiles, max_size=5)},
                                            optional={"concealed": json_values, "claimed": tiles,
                                                      "from": st.sampled_from(["left", "across", "right", 3])}),
                      max_size=5) | json_values,
    "winning_tile": tiles | json_values,
    "flowers": st.lists(tiles, max_size=9),
    "context": st.dictionaries(st.sampled_from(["self_drawn", "seat_wind", "dealer", "dealer_streak", "bogus"]),
                               json_values | st.sampled_from(["E", "S", "W", "N"]), max_size=4),
    "extra": json_values,
})


@given(hand=hands, rules=st.sampled_from(["mcr", "taiwan", "cantonese", "poker"]),
       options=st.dictionaries(st.sampled_from(["discarder", "stakes", "minimum", "bogus"]), json_values, max_size=2))
@settings(max_examples=120, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@seed(1129)
def test_random_hands_never_fail_the_service(client, hand, rules, options):
    response = client.post("/v1/score", json={"rules": rules, "hand": hand, "options": options})
    _assert_clean(response)
    if response.status_code == 200:
        assert response.json()["rules"] == rules and isinstance(response.json()["valid"], bool)
