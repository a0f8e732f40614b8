"""The phone page end to end in headless Chromium: upload a photo, see the tiles drawn on it, correct a
tile from the palette, and see the score change. Runs the real app under uvicorn on a free loopback port
with the fake detector (tests/api_fakes.py); skips when Chromium, its driver or Selenium is absent."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
from api_fakes import FakeRecognizer, sample_photo

from mjlens.api.app import create_app
from mjlens.api.settings import Settings

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), shutil.which("google-chrome"))
                 if p), None)
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="chromium and chromedriver are not installed")
PHONE = (390, 844)
SERVED: dict = {}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    import uvicorn

    port = _free_port()
    fake = FakeRecognizer()
    app = create_app(Settings(model="none.onnx", workers=2), recognizer=fake)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    SERVED["fake"] = fake
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


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


def test_photo_correct_a_tile_and_rescore(server, browser, tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = WebDriverWait(browser, 20)
    browser.get(server + "/")
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
    assert "番" in before and browser.find_elements(By.CSS_SELECTOR, "#score-items tbody tr")
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


def _place(browser, wait, index: int, role_text: str) -> None:
    """Tap tile ``index`` on the photo and move it with the role button whose label holds ``role_text``."""
    browser.find_element(By.CSS_SELECTOR, f'#boxes .box[data-i="{index}"]').click()
    wait.until(ec.visibility_of_element_located((By.ID, "roles")))
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "#roles button") if role_text in b.text).click()
    browser.find_element(By.ID, "editor-done").click()


def test_mark_the_winning_tile_and_melds(server, browser, tmp_path):
    photo = tmp_path / "table.png"
    photo.write_bytes(sample_photo("PNG"))
    wait = WebDriverWait(browser, 20)
    browser.get(server + "/")
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
    WebDriverWait(browser, 30).until(lambda d: "Found 14 tiles" in d.find_element(By.ID, "status").text)
    assert SERVED["fake"].last == ("big.jpg", 2560, 853)  # upright JPEG, long side 2560


def test_bad_photo_shows_the_error(server, browser, tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_bytes(b"this is not a photo")
    browser.get(server + "/")
    browser.find_element(By.ID, "photo-input").send_keys(str(bad))
    WebDriverWait(browser, 20).until(lambda d: "not_an_image" in d.find_element(By.ID, "status").text,
                                     message=f"status: {browser.find_element(By.ID, 'status').text!r}")
    assert not browser.find_elements(By.CSS_SELECTOR, "#boxes .box")


def test_a_hand_that_does_not_win_shows_its_waits_or_what_to_discard(server, browser, tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = WebDriverWait(browser, 20)
    browser.get(server + "/")
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
    assert "discard" in waits["9s"] and "self-drawn" in waits["9s"] and "番" in waits["9s"]
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "progress"))
    browser.save_screenshot(str(tmp_path / "phone-waits.png"))

    # back in, and 1m read as 9m: fourteen tiles that do not win, and which to discard
    browser.execute_script("window.scrollTo(0, 0)")
    _place(browser, wait, 13, "Winning tile")
    browser.find_element(By.CSS_SELECTOR, '#boxes .box[data-i="0"]').click()
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
