"""The phone page's language (docs/i18n.md): its sentences come from the catalogue (``GET /v1/messages``), every
sentence of index.html is marked for it, and a browser set to Chinese gets the page, and the service's warnings
and errors, in Chinese (headless Chromium; skipped without it)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from api_fakes import FakeRecognizer, sample_photo
from fastapi.testclient import TestClient
from test_lang_zh import english_sentences

from mjlens.api.service.app import create_app
from mjlens.api.service.settings import Settings

STATIC = Path(__file__).resolve().parents[1] / "api" / "service" / "static"


@pytest.fixture
def client():
    with TestClient(create_app(Settings(model="no-such-model.onnx", api_key="k"), recognizer=FakeRecognizer()),
                    raise_server_exceptions=False) as c:
        yield c


def test_the_page_words_are_served_open_in_the_language_asked_for(client):
    zh = client.get("/v1/messages", params={"lang": "zh"})
    assert zh.status_code == 200 and zh.headers["content-language"] == "zh"  # no API key needed, as for the page
    words = zh.json()["messages"]
    assert words["Take photo"] == "拍照" and words["Found {n} tiles"] == "找到 {n} 張牌"
    assert "Hand: {hand}   ({rules})" not in words  # the command line's words are not the page's
    assert client.get("/v1/messages", headers={"Accept-Language": "zh-HK"}).json()["messages"] == words
    assert client.get("/v1/messages").json() == {"lang": "en", "messages": {}}


class _Text(HTMLParser):
    """The text of index.html outside the elements marked data-i18n (and outside scripts)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []
        self.outside: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in ("input", "img", "meta", "link", "br"):
            marked = any(name == "data-i18n" for name, _ in attrs) or tag in ("script", "style")
            self.stack.append(marked or (bool(self.stack) and self.stack[-1]))

    def handle_endtag(self, tag):
        if tag not in ("input", "img", "meta", "link", "br") and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not (self.stack and self.stack[-1]):
            self.outside.append(data)


def test_every_sentence_of_the_page_html_is_marked_for_the_catalogue():
    page = _Text()
    page.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    unmarked = english_sentences(" | ".join(page.outside))
    assert unmarked == []
    assert not re.search(r"[\u4e00-\u9fff]{2,}", " ".join(page.outside)), "Chinese written into the page's HTML"


# -- in a browser -------------------------------------------------------------------------------------------------

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from test_web_e2e import CHROMIUM, DRIVER, PHONE, _serve, page_wait  # noqa: E402


@pytest.fixture(scope="module")
def server():
    yield from _serve(create_app(Settings(model="none.onnx", workers=2), recognizer=FakeRecognizer()))


@pytest.fixture(scope="module")
def chinese_browser(tmp_path_factory):
    if not (CHROMIUM and DRIVER):
        pytest.skip("chromium and chromedriver are not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                 "--lang=zh-TW", f"--window-size={PHONE[0]},{PHONE[1]}",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium-zh')}"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"intl.accept_languages": "zh-TW,zh"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def test_a_chinese_browser_reads_the_page_and_the_score_in_chinese(server, chinese_browser, tmp_path):
    browser = chinese_browser
    if not browser.execute_script("return navigator.language").lower().startswith("zh"):
        pytest.skip("this Chromium does not take its language from --lang")
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    browser.get(server + "/")
    wait.until(lambda d: d.execute_script("return Object.keys(state.catalog).length > 0"))
    assert browser.execute_script("return LANG") == "zh"
    assert browser.find_element(By.ID, "status").text == "拍下和牌的牌面。"
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: "找到 14 張牌" in d.find_element(By.ID, "status").text)
    wait.until(lambda d: d.find_elements(By.ID, "score-total") and d.find_element(By.ID, "score-total").text)
    # the winning tile is read but no discarder given: the service's warning comes back in Chinese too
    wait.until(lambda d: "未給放銃者" in d.find_element(By.ID, "score-body").text)
    for part in ("capture", "hand-card", "context", "score"):
        text = browser.find_element(By.ID, part).text
        assert english_sentences(text) == [], f"#{part}: {text}"
