"""The phone page end to end in headless Chromium: upload a photo, see the tiles drawn on it, correct a
tile from the palette, and see the score change; teach the reader a tile set, read a hand with it, forget it.
Runs the real app under uvicorn on a free loopback port, with the fake detector (tests/api_fakes.py), or for
the tile set with the shipped models (skipped without them); skips when Chromium, its driver or Selenium is
absent."""

from __future__ import annotations

import email.parser
import email.policy
import json
import shutil
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from api_fakes import (
    FaceDownKongRecognizer,
    FakeRecognizer,
    LaidOutRecognizer,
    dora_row_recognition,
    sample_photo,
    unsure_meld_recognition,
)

from mjlens.api.service.app import create_app
from mjlens.api.service.settings import Settings

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), shutil.which("google-chrome"))
                 if p), None)
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="chromium and chromedriver are not installed")
PHONE = (390, 844)
SERVED: dict = {}


REPO = Path(__file__).resolve().parent.parent
HAND = REPO / "examples" / "hand.jpg"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(app):
    """Serve ``app`` under uvicorn on a free loopback port until the generator is closed; yields its URL."""
    import uvicorn

    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def server():
    fake = FakeRecognizer()
    SERVED["fake"] = fake
    yield from _serve(create_app(Settings(model="none.onnx", workers=2), recognizer=fake))


class PostRecorder:
    """ASGI middleware that keeps every POST's path, headers and multipart fields (text fields only) before
    passing the request on unchanged: what the page sent, as the service received it."""

    def __init__(self, app) -> None:
        self.app = app
        self.posts: list[dict] = []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        self.posts.append({"path": scope["path"], "headers": headers, "fields": _text_fields(headers, body)})
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)

    def last(self, path: str) -> dict:
        return next(post for post in reversed(self.posts) if post["path"] == path)


def _text_fields(headers: dict[str, str], body: bytes) -> dict[str, str]:
    """The text fields of a multipart/form-data body (files: their file name)."""
    kind = headers.get("content-type", "")
    if not kind.startswith("multipart/form-data"):
        return {}
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
        f"Content-Type: {kind}\r\n\r\n".encode() + body)
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        fields[name] = part.get_filename() or part.get_content()
    return fields


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    """The app with the shipped models and a profile store in a tmp folder, its POSTs recorded."""
    import urllib.request

    app = PostRecorder(create_app(Settings(profile_db=str(tmp_path_factory.mktemp("db") / "profiles.db"))))
    SERVED["recorder"] = app
    served = _serve(app)
    url = next(served)
    try:
        with urllib.request.urlopen(url + "/readyz", timeout=30) as ready:
            ok = ready.status == 200
    except OSError:
        ok = False
    if not ok:
        served.close()
        pytest.skip("the shipped models are not present")
    yield url
    served.close()


@pytest.fixture(scope="module")
def layout_photo(vendored_layout_photo) -> Path:
    return vendored_layout_photo


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--window-size={PHONE[0]},{PHONE[1]}",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def page_wait(browser, seconds: float = 20) -> WebDriverWait:
    """A wait on the page that reads again what the page re-rendered meanwhile (an element read between its
    removal and its replacement is stale, not an error of the page)."""
    return WebDriverWait(browser, seconds, ignored_exceptions=(StaleElementReferenceException,))


def _open(browser, url: str) -> None:
    """The page at ``url``, once it holds the service's rule list (which replaces the options of #rules)."""
    browser.get(url + "/")
    # The page's scripts may still be loading when get() returns: no `state` yet is "not ready", not an error.
    page_wait(browser).until(lambda d: d.execute_script(
        "return typeof state !== 'undefined' && Object.keys(state.catalog).length > 0"))


def test_photo_correct_a_tile_and_rescore(server, browser, tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    _open(browser, server)
    Select(browser.find_element(By.ID, "rules")).select_by_value("cantonese")
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))

    # the tiles appear on the photo, each with its code, the low-confidence one flagged
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#boxes .box")) == 14)
    boxes = browser.find_elements(By.CSS_SELECTOR, "#boxes .box")
    assert [b.get_attribute("data-code") for b in boxes][:3] == ["1m", "2m", "3m"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#boxes .box.low")) == 1
    assert "Found 14 tiles" in browser.find_element(By.ID, "status").text

    # a score appears for the recognized hand
    wait.until(lambda d: d.find_elements(By.ID, "score-total") and "No score" not in d.find_element(
        By.ID, "score-total").text)
    before = browser.find_element(By.ID, "score-body").text
    assert "fan" in before and browser.find_elements(By.CSS_SELECTOR, "#score-items tbody tr")
    browser.save_screenshot(str(tmp_path / "phone-scored.png"))

    # correct the first tile (1m -> 9m): the hand no longer wins and the score says so
    boxes[0].click()
    wait.until(ec.visibility_of_element_located((By.ID, "palette")))
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="9m"]').click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '#boxes .box[data-i="0"]').get_attribute("data-code") == "9m")
    browser.save_screenshot(str(tmp_path / "phone-editor.png"))
    browser.find_element(By.ID, "editor-done").click()
    wait.until(lambda d: d.find_element(By.ID, "score-body").text != before)
    after = browser.find_element(By.ID, "score-body").text
    assert "No score" in after and "not_winning" in after

    # and back (9m -> 1m): the original score returns
    browser.find_element(By.CSS_SELECTOR, '#hand .tile[data-i="0"]').click()
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="1m"]').click()
    browser.find_element(By.ID, "editor-done").click()
    wait.until(lambda d: d.find_element(By.ID, "score-body").text == before)

    # the context changes the score too: self-drawn
    browser.find_element(By.CSS_SELECTOR, '[data-ctx="self_drawn"]').click()
    wait.until(lambda d: d.find_element(By.ID, "score-body").text != before)
    Path(tmp_path / "phone-final.png").write_bytes(browser.get_screenshot_as_png())


def _tap_box(browser, index: int) -> None:
    """Tap tile ``index`` on the photo. The boxes are drawn again each time the hand is scored again, so a box found
    just before that is looked up and tapped again."""
    def tapped(driver) -> bool:
        driver.find_element(By.CSS_SELECTOR, f'#boxes .box[data-i="{index}"]').click()
        return True

    page_wait(browser).until(tapped)


#: What the page shows after a tap whose editor did not open: enough to tell a tap that landed elsewhere (the element
#: at the box's centre, the scroll) from an editor that opened and closed again (the selection, a rescore pending).
PAGE_AFTER_TAP = """
const box = document.querySelector(`#boxes .box[data-i="${arguments[0]}"]`);
const rect = box ? box.getBoundingClientRect() : null;
const hit = rect ? document.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2) : null;
return {selected: state.selected, editorOpen: $("#editor").open, boxes: document.querySelectorAll("#boxes .box").length,
        box: rect && [rect.x, rect.y, rect.width, rect.height], atCentre: hit && hit.outerHTML.slice(0, 120),
        scrollY: window.scrollY, scorePending: $("#score").classList.contains("pending"),
        status: $("#status").textContent};
"""


def _place(browser, wait, index: int, role_text: str) -> None:
    """Tap tile ``index`` on the photo and move it with the role button whose label holds ``role_text``."""
    _tap_box(browser, index)
    try:
        wait.until(ec.visibility_of_element_located((By.ID, "roles")))
    except TimeoutException:
        pytest.fail(f"the editor did not open after a tap on tile {index}: "
                    f"{browser.execute_script(PAGE_AFTER_TAP, index)}")
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "#roles button") if role_text in b.text).click()
    browser.find_element(By.ID, "editor-done").click()


def test_mark_the_winning_tile_and_melds(server, browser, tmp_path):
    photo = tmp_path / "table.png"
    photo.write_bytes(sample_photo("PNG"))
    wait = page_wait(browser)
    _open(browser, server)
    Select(browser.find_element(By.ID, "rules")).select_by_value("cantonese")
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#boxes .box")) == 14)
    assert browser.find_element(By.CSS_SELECTOR, '#boxes .box[data-i="13"]').get_attribute("class").count(
        "role-winning") == 1
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#score-items tbody tr"))
    before = browser.find_element(By.ID, "score-body").text

    # the winning tile put back among the others: the scorer tries every reading and says so
    _place(browser, wait, 13, "In hand")
    wait.until(lambda d: "winning tile unknown" in d.find_element(By.ID, "score-body").text)
    _place(browser, wait, 13, "Winning tile")
    wait.until(lambda d: d.find_element(By.ID, "score-body").text == before)

    # a lone tile made a meld of its own is not a meld: the server says why, and undoing it restores the score
    _place(browser, wait, 0, "New meld")
    wait.until(lambda d: "Meld 2" in d.find_element(By.ID, "hand").text)
    wait.until(lambda d: "bad_meld" in d.find_element(By.ID, "score-body").text)
    _place(browser, wait, 0, "In hand")
    wait.until(lambda d: d.find_element(By.ID, "score-body").text == before)
    assert "Meld 2" not in browser.find_element(By.ID, "hand").text


def test_a_big_photo_is_shrunk_before_upload(server, browser, tmp_path):
    import numpy as np
    from PIL import Image

    noise = np.random.default_rng(3).integers(0, 256, size=(1000, 3000, 3), dtype=np.uint8)
    big = tmp_path / "big.png"
    Image.fromarray(noise).save(big)
    assert big.stat().st_size > 2_500_000
    browser.get(server + "/")
    browser.find_element(By.ID, "photo-input").send_keys(str(big))
    page_wait(browser, 30).until(lambda d: "Found 14 tiles" in d.find_element(By.ID, "status").text)
    assert SERVED["fake"].last == ("big.jpg", 2560, 853)  # upright JPEG, long side 2560


def test_bad_photo_shows_the_error(server, browser, tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_bytes(b"this is not a photo")
    browser.get(server + "/")
    browser.find_element(By.ID, "photo-input").send_keys(str(bad))
    page_wait(browser).until(lambda d: "not_an_image" in d.find_element(By.ID, "status").text,
                                     message=f"status: {browser.find_element(By.ID, 'status').text!r}")
    assert not browser.find_elements(By.CSS_SELECTOR, "#boxes .box")


def test_a_hand_that_does_not_win_shows_its_waits_or_what_to_discard(server, browser, tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    _open(browser, server)
    Select(browser.find_element(By.ID, "rules")).select_by_value("mcr")
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#score-items tbody tr"))
    assert not browser.find_element(By.ID, "progress").is_displayed()  # a winning hand: no waits to show

    # the winning tile left out: thirteen tiles, ready on 6s and 9s, each with the copies left and what it pays
    _place(browser, wait, 13, "Not in hand")
    wait.until(lambda d: d.find_element(By.ID, "progress").is_displayed())
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#progress .waits li")) == 2)
    assert "Ready" in browser.find_element(By.ID, "progress-shanten").text
    waits = {li.get_attribute("data-tile"): li.text for li in browser.find_elements(By.CSS_SELECTOR,
                                                                                     "#progress .waits li")}
    assert set(waits) == {"6s", "9s"} and "4 left" in waits["6s"] and "4 left" in waits["9s"]
    assert "discard" in waits["9s"] and "self-drawn" in waits["9s"] and "fan" in waits["9s"]
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "progress"))
    browser.save_screenshot(str(tmp_path / "phone-waits.png"))

    # back in, and 1m read as 9m: fourteen tiles that do not win, and which to discard
    browser.execute_script("window.scrollTo(0, 0)")
    _place(browser, wait, 13, "Winning tile")
    # the hand wins again once that re-score lands: tap only then, or the boxes drawn again close the editor
    wait.until(lambda d: not d.find_element(By.ID, "progress").is_displayed())
    _tap_box(browser, 0)
    wait.until(ec.visibility_of_element_located((By.ID, "palette")))
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="9m"]').click()
    browser.find_element(By.ID, "editor-done").click()
    first = '#discards > li[data-tile="9m"]:first-child'
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"{first} .waits li"), message="no advice for 9m first")
    time.sleep(0.5)  # let any re-score still in flight land before reading the list
    assert "Ready" in browser.find_element(By.CSS_SELECTOR, first).text
    assert browser.find_element(By.CSS_SELECTOR, f"{first} .reason").text.startswith("leaves the hand ready")
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "progress"))
    browser.save_screenshot(str(tmp_path / "phone-advice.png"))


def test_the_dealer_box_follows_the_seat(server, browser, tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    _open(browser, server)
    Select(browser.find_element(By.ID, "rules")).select_by_value("mcr")
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#score-items tbody tr"))
    dealer = browser.find_element(By.CSS_SELECTOR, '[data-ctx="dealer"]')
    seat = Select(browser.find_element(By.CSS_SELECTOR, '[data-ctx="seat_wind"]'))
    assert seat.first_selected_option.get_attribute("value") == "E" and dealer.is_selected()

    # seated South: not the dealer, and nothing to warn of
    seat.select_by_value("S")
    assert not dealer.is_selected()
    assert browser.execute_script("return buildHand().context.dealer") is False
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#score-items tbody tr"))
    assert "dealer sits East" not in browser.find_element(By.ID, "score-body").text

    # ticked by hand against the seat: scored as given, with the warning
    dealer.click()
    wait.until(lambda d: "dealer sits East" in d.find_element(By.ID, "score-body").text)
    seat.select_by_value("E")
    assert dealer.is_selected()
    wait.until(lambda d: "dealer sits East" not in d.find_element(By.ID, "score-body").text)


class TaiwanRowRecognizer(FakeRecognizer):
    """A Taiwan hand of 17 small tiles in one row, the winning tile last, then a face-down tile apart from it."""

    HAND = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "5p", "5p", "6s", "7s", "8s"]

    def recognize(self, data: bytes, name: str) -> dict:
        recognition = super().recognize(data, name)
        width, height = recognition["width"], recognition["height"]
        codes = self.HAND + ["back"]
        step = width / 2 / len(codes)  # the row across the middle half of the photo: tiles 10 px wide on a phone
        left = width / 4
        tiles = [{"code": code, "box": [left + step * i, height * 0.45, left + step * (i + 0.92), height * 0.55],
                  "confidence": 0.97, "alternatives": []} for i, code in enumerate(codes)]
        return {**recognition, "tiles": tiles, "warnings": [],
                "groups": [{"role": "concealed", "tiles": list(range(16))}, {"role": "winning", "tiles": [16]},
                           {"role": "other", "tiles": [17]}],
                "hand": {"concealed": self.HAND[:16], "melds": [], "winning_tile": "8s", "flowers": []}}


@pytest.fixture(scope="module")
def taiwan_server():
    yield from _serve(create_app(Settings(model="none.onnx", workers=2), recognizer=TaiwanRowRecognizer()))


def _read(browser, url: str, rules: str, tmp_path: Path) -> WebDriverWait:
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    _open(browser, url)
    Select(browser.find_element(By.ID, "rules")).select_by_value(rules)
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#score-items tbody tr"))
    return wait


def test_the_result_is_in_view_as_soon_as_the_photo_is_read(server, browser, tmp_path):
    wait = _read(browser, server, "mcr", tmp_path)
    browser.execute_script("window.scrollTo(0, 0)")
    line = browser.find_element(By.ID, "result")
    wait.until(lambda d: line.is_displayed())
    total = browser.find_element(By.ID, "score-total").text.split()[0]
    assert browser.find_element(By.ID, "result-total").text.split()[0] == total and "fan" in line.text
    bottom = browser.execute_script("return arguments[0].getBoundingClientRect().bottom", line)
    assert 0 < bottom <= browser.execute_script("return window.innerHeight")
    browser.save_screenshot(str(tmp_path / "phone-first-screen.png"))

    # a hand that does not win: the line says so, with the reason
    _tap_box(browser, 0)
    wait.until(ec.visibility_of_element_located((By.ID, "palette")))
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="9m"]').click()
    browser.find_element(By.ID, "editor-done").click()
    wait.until(lambda d: "not_winning" in d.find_element(By.ID, "result").text)
    assert "No score" in line.text


def test_only_a_kong_offers_the_concealed_kong_box(server, kong_server, browser, tmp_path):
    _read(browser, server, "cantonese", tmp_path)
    assert "Meld 1" in browser.find_element(By.ID, "hand").text  # a pung of white dragons
    assert not browser.find_elements(By.CSS_SELECTOR, "#hand .kong-toggle")
    photo = tmp_path / "kong.jpg"
    photo.write_bytes(sample_photo())
    _open(browser, kong_server)
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    page_wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .kong-toggle"))


def test_small_tiles_count_apart_from_a_face_down_one_and_their_labels_never_overlap(taiwan_server, browser,
                                                                                     tmp_path):
    _read(browser, taiwan_server, "taiwan", tmp_path)
    status = browser.find_element(By.ID, "status").text
    assert "Found 17 tiles" in status and "1 more not in the hand" in status
    rects = browser.execute_script(
        "return [...document.querySelectorAll('#boxes .box .label')].map((l) => l.getBoundingClientRect())"
        ".map((r) => [r.left, r.right, r.top, r.bottom])")
    assert len(rects) == 18
    for (_, right, top, bottom), (next_left, _, next_top, next_bottom) in zip(rects, rects[1:], strict=False):
        assert right <= next_left + 0.5 or bottom <= next_top or next_bottom <= top, "two tile labels overlap"
    browser.save_screenshot(str(tmp_path / "phone-small-tiles.png"))


@pytest.fixture(scope="module")
def kong_server():
    yield from _serve(create_app(Settings(model="none.onnx", workers=2), recognizer=FaceDownKongRecognizer()))


def test_a_kong_of_four_backs_is_asked_and_picked(kong_server, browser, tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    _open(browser, kong_server)
    Select(browser.find_element(By.ID, "rules")).select_by_value("cantonese")
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#boxes .box")) == 15)
    assert "four backs" in browser.find_element(By.ID, "status").text

    # nothing is guessed: the score asks for the kong's tile, and the kong's row offers the picker
    wait.until(lambda d: "face_down_kong" in d.find_element(By.ID, "score-body").text)
    browser.find_element(By.CSS_SELECTOR, "#hand .kong-pick.asked").click()
    wait.until(ec.visibility_of_element_located((By.ID, "palette")))
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="back"]').click()  # not a tile of a hand
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="7z"]').click()
    browser.find_element(By.ID, "editor-done").click()

    # told: the hand scores with a concealed kong of red dragons, and the picker shows the tile chosen
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#score-items tbody tr"))
    assert "7z" in browser.find_element(By.CSS_SELECTOR, "#hand .kong-pick").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#hand .kong-pick.asked")
    assert browser.execute_script("return buildHand().melds") == [
        {"kind": "kong", "tiles": ["7z"] * 4, "concealed": True}]
    browser.save_screenshot(str(tmp_path / "phone-kong.png"))


@pytest.fixture(scope="module")
def unsure_server():
    recognizer = LaidOutRecognizer(unsure_meld_recognition)
    yield from _serve(create_app(Settings(model="none.onnx", workers=2), recognizer=recognizer))


def test_a_meld_the_layout_is_unsure_of_is_marked_until_the_player_places_its_tiles(unsure_server, browser,
                                                                                     tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    _open(browser, unsure_server)
    Select(browser.find_element(By.ID, "rules")).select_by_value("cantonese")
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .row.unsure"))
    (unsure,) = browser.find_elements(By.CSS_SELECTOR, "#hand .row.unsure")  # the pung set apart by half a tile
    assert "Meld 1" in unsure.text and "unsure" in unsure.text
    browser.save_screenshot(str(tmp_path / "phone-unsure-meld.png"))

    # the player looks and places a tile (here: where it was read) -> the hand is theirs, nothing left marked
    _place(browser, wait, 11, "Meld 1")
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "#hand .row.unsure"))
    assert browser.execute_script("return buildHand().melds") == [
        {"kind": "pung", "tiles": ["5z"] * 3, "concealed": False}]


@pytest.fixture(scope="module")
def dora_server():
    recognizer = LaidOutRecognizer(dora_row_recognition)
    yield from _serve(create_app(Settings(model="none.onnx", workers=2), recognizer=recognizer))


def test_the_photo_s_dora_indicators_are_a_row_of_their_own_and_fill_the_dora_picker(dora_server, browser, tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    _open(browser, dora_server)
    Select(browser.find_element(By.ID, "rules")).select_by_value("riichi")
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#boxes .box")) == 15)
    (dora,) = [row for row in browser.find_elements(By.CSS_SELECTOR, "#hand .row") if "Dora indicators" in row.text]
    assert "1p" in dora.get_attribute("innerHTML")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#boxes .box.role-dora")) == 1

    # the indicator is riichi's dora, never a tile of the hand: its two 2p count as dora
    field = browser.find_element(By.CSS_SELECTOR, '[data-ctx="dora_indicators"]')
    assert field.get_attribute("value") == "1p"
    hand = browser.execute_script("return buildHand()")
    assert "1p" not in json.dumps([hand["concealed"], hand["melds"], hand["flowers"], hand["winning_tile"]])
    wait.until(lambda d: "Dora" in d.find_element(By.ID, "score-body").text)
    assert browser.execute_script("return readContext().dora_indicators") == ["1p"]
    browser.save_screenshot(str(tmp_path / "phone-dora.png"))

    # read as 2p on a second look: the picker follows the row
    index = browser.execute_script("return state.tiles.findIndex((t) => t.role === 'dora')")
    _tap_box(browser, index)
    wait.until(ec.visibility_of_element_located((By.ID, "palette")))
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="2p"]').click()
    browser.find_element(By.ID, "editor-done").click()
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '[data-ctx="dora_indicators"]').get_attribute("value") == "2p")


def test_the_page_loads_nothing_from_elsewhere(server, browser):
    browser.get(server + "/")
    page_wait(browser).until(lambda d: d.execute_script("return document.readyState") == "complete")
    loaded = browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert loaded and {urlsplit(name).netloc for name in loaded} == {urlsplit(server).netloc}


def _fresh_page(browser, url: str, stored: dict | None = None) -> None:
    """The page at ``url`` with an empty localStorage, or holding ``stored``."""
    browser.get(url + "/")
    browser.execute_script("localStorage.clear();" + "".join(
        f"localStorage.setItem({json.dumps(k)}, {json.dumps(v)});" for k, v in (stored or {}).items()))
    browser.get(url + "/")


def _kept_profile(browser) -> dict | None:
    return browser.execute_script("return JSON.parse(localStorage.getItem('mjlens-profile') || 'null')")


def _pick(browser, wait, tile_selector: str, code: str) -> None:
    """Tap a tile, then ``code`` in the palette, then Done."""
    browser.find_element(By.CSS_SELECTOR, tile_selector).click()
    wait.until(ec.visibility_of_element_located((By.ID, "palette")))
    browser.find_element(By.CSS_SELECTOR, f'#palette .tile[data-code="{code}"]').click()
    browser.find_element(By.ID, "editor-done").click()
    wait.until(ec.invisibility_of_element_located((By.ID, "editor")))


def test_teach_my_tiles_read_a_hand_with_them_and_forget_them(real_server, browser, layout_photo, tmp_path):
    from mjlens.vision.profile.layout import SHEET_ROWS

    recorder: PostRecorder = SERVED["recorder"]
    wait = page_wait(browser, 90)  # the shipped models on a shared CPU
    _fresh_page(browser, real_server)
    assert "Not in use" in browser.find_element(By.ID, "profile-state").text
    assert not browser.find_element(By.ID, "profile-forget").is_displayed()

    # open the flow: it says how to lay the set out, row by row
    browser.find_element(By.ID, "teach-open").click()
    wait.until(ec.visibility_of_element_located((By.ID, "teach")))
    rows = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#teach-rows li")]
    assert len(rows) == 5 and "1m" in rows[0] and "8f" in rows[4]
    assert "left out" in browser.find_element(By.ID, "teach").text

    # the layout photo: every tile boxed on it and in its row of the grid, in the layout's order
    browser.find_element(By.ID, "teach-file").send_keys(str(layout_photo))
    layout = [code for row in SHEET_ROWS for code in row]
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#teach-grid .layout-tile")) == len(layout),
               message=f"teach status: {browser.find_element(By.ID, 'teach-status').text!r}")
    grid = [t.get_attribute("data-code") for t in browser.find_elements(By.CSS_SELECTOR, "#teach-grid .layout-tile")]
    assert grid == layout
    assert len(browser.find_elements(By.CSS_SELECTOR, "#teach-boxes .box")) == len(layout)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#teach-grid .layout-row")) == len(SHEET_ROWS)
    assert "Read 42 tiles in 5 rows" in browser.find_element(By.ID, "teach-status").text
    assert recorder.last("/v1/profiles/preview")["fields"]["image"] == layout_photo.name
    save = browser.find_element(By.ID, "teach-save")
    assert save.is_enabled()

    # fix a tile: 1m read as 2m leaves 2m laid twice, and Save waits until the other is fixed too
    _pick(browser, wait, '#teach-grid .layout-tile[data-i="0"]', "2m")
    assert "2m twice" in browser.find_element(By.ID, "teach-check").text and not save.is_enabled()
    _pick(browser, wait, '#teach-grid .layout-tile[data-i="1"]', "1m")
    assert "2 fixed" in browser.find_element(By.ID, "teach-check").text and save.is_enabled()
    browser.save_screenshot(str(tmp_path / "phone-teach.png"))

    # save: the photo and the grid as fixed go to POST /v1/profiles, and the page keeps the profile
    save.click()
    wait.until(ec.invisibility_of_element_located((By.ID, "teach")))
    sent = recorder.last("/v1/profiles")["fields"]
    assert [t["code"] for t in json.loads(sent["tiles"])][:3] == ["2m", "1m", "3m"]
    kept = _kept_profile(browser)
    assert kept and kept["id"] and kept["token"]
    assert "In use" in browser.find_element(By.ID, "profile-state").text
    assert "Saved" in browser.find_element(By.ID, "profile-note").text
    assert browser.find_element(By.ID, "profile-badge").is_displayed()

    # a hand photo is read with it: the request names the profile and carries its token
    browser.find_element(By.ID, "photo-input").send_keys(str(HAND))
    wait.until(lambda d: "Found" in d.find_element(By.ID, "status").text,
               message=f"status: {browser.find_element(By.ID, 'status').text!r}")
    assert "read with my tile set" in browser.find_element(By.ID, "status").text
    read = recorder.last("/v1/recognize")
    assert read["fields"]["profile"] == kept["id"] and read["headers"]["x-profile-token"] == kept["token"]
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "profile-card"))
    browser.save_screenshot(str(tmp_path / "phone-profile-in-use.png"))
    browser.execute_script("window.scrollTo(0, 0)")  # the header is sticky: the photo's boxes below it

    # corrections go to the tile set only with the switch on (off by default)
    switch = browser.find_element(By.ID, "learn-corrections")
    assert switch.is_displayed() and not switch.is_selected()
    posts = len(recorder.posts)
    first = browser.find_element(By.CSS_SELECTOR, '#boxes .box[data-i="0"]').get_attribute("data-code")
    other = "9p" if first != "9p" else "8p"
    _pick(browser, wait, '#boxes .box[data-i="0"]', other)
    time.sleep(0.5)  # nothing is sent, so there is nothing to wait for
    assert not any(p["path"].endswith("/examples") for p in recorder.posts[posts:])
    browser.find_element(By.CSS_SELECTOR, "#learn .switch").click()  # on: the correction already made is sent
    wait.until(lambda d: "Added to my tile set" in d.find_element(By.ID, "profile-note").text,
               message=f"note: {browser.find_element(By.ID, 'profile-note').text!r}")
    added = recorder.last(f"/v1/profiles/{kept['id']}/examples")
    assert added["headers"]["x-profile-token"] == kept["token"] and added["fields"]["image"] == HAND.name
    assert [t["code"] for t in json.loads(added["fields"]["tiles"])] == [other]
    assert other in browser.find_element(By.ID, "profile-note").text

    # teach again: the new profile replaces the kept one, which the service deletes
    browser.execute_script("window.scrollTo(0, 0)")
    browser.find_element(By.ID, "teach-open").click()
    browser.find_element(By.ID, "teach-file").send_keys(str(layout_photo))
    wait.until(lambda d: d.find_element(By.ID, "teach-save").is_enabled())
    browser.find_element(By.ID, "teach-save").click()
    wait.until(lambda d: (_kept_profile(d) or {}).get("id") not in (None, kept["id"]))
    wait.until(lambda d: _profile_status(real_server, kept) == 404)
    again = _kept_profile(browser)
    assert _profile_status(real_server, again) == 200

    # forget: the service deletes it and the page drops it
    browser.find_element(By.ID, "profile-forget").click()
    browser.switch_to.alert.accept()
    wait.until(lambda d: "Not in use" in d.find_element(By.ID, "profile-state").text)
    assert _kept_profile(browser) is None and "Forgotten" in browser.find_element(By.ID, "profile-note").text
    assert not browser.find_element(By.ID, "profile-badge").is_displayed()
    assert _profile_status(real_server, again) == 404


def _profile_status(url: str, profile: dict) -> int:
    """The status GET /v1/profiles/{id} answers with the profile's token."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{url}/v1/profiles/{profile['id']}",
                                     headers={"X-Profile-Token": profile["token"]})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as err:
        return err.code


def test_a_sideways_layout_photo_is_boxed_upright(real_server, browser, layout_photo, tmp_path):
    """A phone's photo held sideways: its pixels turned, its EXIF orientation saying so. The service reads it
    upright, and the page draws the boxes on the upright photo (the frame the boxes are in)."""
    from PIL import Image

    upright = Image.open(layout_photo)
    sideways = tmp_path / "sideways.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # shown turned 90 degrees clockwise
    upright.transpose(Image.Transpose.ROTATE_90).save(sideways, exif=exif.tobytes())
    _fresh_page(browser, real_server)
    browser.find_element(By.ID, "teach-open").click()
    browser.find_element(By.ID, "teach-file").send_keys(str(sideways))
    page_wait(browser, 90).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#teach-grid .layout-tile"),
                                     message=f"teach status: {browser.find_element(By.ID, 'teach-status').text!r}")
    assert browser.execute_script("return [teach.width, teach.height]") == list(upright.size)
    boxes = browser.execute_script("return teach.tiles.map((t) => t.box)")
    assert max(b[2] for b in boxes) <= upright.width + 1 and max(b[3] for b in boxes) <= upright.height + 1
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "teach-stage"))
    browser.save_screenshot(str(tmp_path / "phone-teach-sideways.png"))


def test_a_layout_photo_that_cannot_be_read_says_what_to_do(real_server, browser, tmp_path):
    from PIL import Image

    table = tmp_path / "empty-table.jpg"
    Image.new("RGB", (1024, 768), (30, 110, 60)).save(table)
    _fresh_page(browser, real_server)
    browser.find_element(By.ID, "teach-open").click()
    browser.find_element(By.ID, "teach-file").send_keys(str(table))
    page_wait(browser, 90).until(lambda d: "no_tiles" in d.find_element(By.ID, "teach-status").text)
    status = browser.find_element(By.ID, "teach-status")
    assert "lay the set out face up" in status.text and "bad" in status.get_attribute("class")
    assert not browser.find_elements(By.CSS_SELECTOR, "#teach-grid .layout-tile")
    assert not browser.find_element(By.ID, "teach-save").is_enabled()


def test_a_profile_the_service_no_longer_has_is_dropped_with_a_message(real_server, browser):
    gone = json.dumps({"id": "gone", "token": "t" * 43, "codes": []})
    _fresh_page(browser, real_server, {"mjlens-profile": gone})  # found out when the page opens
    page_wait(browser, 30).until(lambda d: _kept_profile(d) is None)
    assert "no longer has your tile set" in browser.find_element(By.ID, "profile-note").text
    assert "Not in use" in browser.find_element(By.ID, "profile-state").text

    # ... or when a photo is read with it: the photo is read again without it
    recorder: PostRecorder = SERVED["recorder"]
    browser.execute_script("localStorage.setItem('mjlens-profile', arguments[0]); profileNote('')", gone)
    posts = len(recorder.posts)
    browser.find_element(By.ID, "photo-input").send_keys(str(HAND))
    page_wait(browser, 90).until(lambda d: "Found" in d.find_element(By.ID, "status").text,
                                     message=f"status: {browser.find_element(By.ID, 'status').text!r}")
    reads = [post["fields"].get("profile") for post in recorder.posts[posts:] if post["path"] == "/v1/recognize"]
    assert reads == ["gone", None]
    assert _kept_profile(browser) is None and "no longer has" in browser.find_element(By.ID, "profile-note").text
    assert "read with my tile set" not in browser.find_element(By.ID, "status").text
