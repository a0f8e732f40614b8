"""The review page of ``mjlens label`` in headless Chromium: served by ``mjlens label --review``, a tile's code is
changed, a false box deleted, a missed tile drawn and the photo marked done, then saved into the output folder,
whose corrections make a profile; opened as a file, a save downloads the same files that the labelling run writes
from the same corrections. Skips where Chromium, its driver or Selenium is absent (Chromium is started as in
test_web_e2e)."""

from __future__ import annotations

import json
import shutil
import time
import zipfile

import pytest
from test_label import review_data
from test_label_review import labelled, served  # noqa: F401 - the fixtures: an output folder, served

from mjlens.api.cli.main import main
from mjlens.api.labelling.corrections import CORRECTIONS_FILE
from mjlens.scoring.tiles import DETECTOR_CLASSES

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from test_web_e2e import CHROMIUM, DRIVER, browser, page_wait  # noqa: E402, F401 - the fixture: headless Chromium, phone size

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="chromium and chromedriver are not installed")


def click(driver, css: str) -> None:
    """Click the element, first brought to the middle of the window (the page's bar stays on top)."""
    element = driver.find_element(By.CSS_SELECTOR, css)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def pick(driver, wait, code: str) -> None:
    wait.until(ec.visibility_of_element_located((By.ID, "picker")))
    click(driver, f'#picker .row button.code[data-code="{code}"]')
    wait.until(ec.invisibility_of_element_located((By.ID, "picker")))


def box(photo: str, index: int) -> str:
    return f'figure.card[data-image="{photo}"] .b[data-t="{index}"]'


def test_correct_a_photo_and_save_it_into_the_folder(served, browser, tmp_path, capsys):  # noqa: F811
    server, out = served
    as_read = next(p["tiles"] for p in review_data(out)["photos"] if p["image"] == "a.jpg")
    wait = page_wait(browser)
    browser.get(server.url)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "figure.card")) == 2)

    # the first tile read as 9m; the second deleted as a false box
    click(browser, box("a.jpg", 0))
    pick(browser, wait, "9m")
    assert browser.find_element(By.CSS_SELECTOR, box("a.jpg", 0)).get_attribute("data-code") == "9m"
    click(browser, box("a.jpg", 1))
    wait.until(ec.visibility_of_element_located((By.ID, "picker")))
    click(browser, "#picker-delete")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, 'figure.card[data-image="a.jpg"] .b')) == 13)

    # a missed tile drawn above the row (the photo's top third is cloth), then named 7z
    click(browser, 'figure.card[data-image="a.jpg"] button.draw')
    area = browser.find_element(By.CSS_SELECTOR, 'figure.card[data-image="a.jpg"] .photo')
    width, height = area.size["width"], area.size["height"]
    ActionChains(browser).move_to_element_with_offset(area, -width // 4, -height // 3).click_and_hold() \
        .move_by_offset(width // 10, height // 6).release().perform()
    pick(browser, wait, "7z")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, 'figure.card[data-image="a.jpg"] .b')) == 14)
    click(browser, 'figure.card[data-image="a.jpg"] button.done')
    browser.save_screenshot(str(tmp_path / "review-corrected.png"))

    click(browser, "#save")
    wait.until(lambda d: d.find_element(By.ID, "save-status").text.startswith(("Saved", "Not saved")))
    assert browser.find_element(By.ID, "save-status").text.startswith("Saved"), \
        browser.find_element(By.ID, "save-status").text

    # saved: the corrections file holds the photo as corrected, the labels follow it
    [line] = [json.loads(text) for text in (out / CORRECTIONS_FILE).read_text().splitlines()]
    assert line["image"] == "images/a.jpg" and line["done"] is True and (line["width"], line["height"]) == (960, 540)
    codes = [t["code"] for t in line["tiles"]]
    assert codes == ["9m"] + [t["code"] for t in as_read[2:]] + ["7z"]
    assert line["tiles"][0] == {"code": "9m", "box": as_read[0]["box"]}  # set by hand: no reader's confidence
    x1, y1, x2, y2 = line["tiles"][-1]["box"]
    assert 0 <= x1 < x2 < 960 / 2 and 0 <= y1 < y2 < 540 * 0.35  # where it was drawn, in the photo's pixels
    labels = (out / "labels" / "a.txt").read_text().splitlines()
    assert [DETECTOR_CLASSES[int(label.split()[0])] for label in labels] == codes
    # and a profile of the set learns from the photo marked done, the drawn tile with it
    capsys.readouterr()
    assert main(["profile", "create", "--from-corrections", str(out / CORRECTIONS_FILE), "--out",
                 str(tmp_path / "set.npz"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["examples"] == len(codes) and {"9m", "7z"} <= set(summary["codes"])

    # the page made afresh from the folder shows the photo done and changed
    browser.refresh()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "figure.card")) == 2)
    done = browser.find_element(By.CSS_SELECTOR, 'figure.card[data-image="a.jpg"] button.done')
    assert done.get_attribute("aria-pressed") == "true"
    assert len(browser.find_elements(By.CSS_SELECTOR, 'figure.card[data-image="a.jpg"] .b')) == 14


@pytest.mark.parametrize("label_format", ["yolo", "coco"])
def test_a_save_from_the_page_opened_as_a_file_downloads_what_the_run_writes(labelled, browser, tmp_path,  # noqa: F811
                                                                             label_format):
    folder, out = labelled
    if label_format == "coco":
        out = tmp_path / "coco"
        assert main(["label", str(folder), "--out", str(out), "--format", "coco"]) == 0
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    wait = page_wait(browser)
    browser.get((out / "review.html").as_uri())
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "figure.card")) == 2)
    browser.execute_script("window.showDirectoryPicker = undefined")  # no folder to pick headless: the download

    click(browser, box("b.png", 0))
    pick(browser, wait, "2p")
    click(browser, 'figure.card[data-image="b.png"] button.done')
    click(browser, "#save")
    wait.until(lambda d: d.find_element(By.ID, "save-status").text.startswith(("Saved", "Not saved")))
    assert "review-save.zip downloaded" in browser.find_element(By.ID, "save-status").text
    saved = downloads / "review-save.zip"
    deadline = time.monotonic() + 20  # the download is written after the page has said so
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    with zipfile.ZipFile(saved) as archive:
        assert archive.testzip() is None
        files = {name: archive.read(name).decode() for name in archive.namelist()}

    # the labelling run given the same corrections writes the same labels
    again = tmp_path / "again"
    shutil.copytree(out, again)
    (again / CORRECTIONS_FILE).write_text(files["corrections.jsonl"])
    assert main(["label", str(folder), "--out", str(again), "--format", label_format]) == 0
    if label_format == "yolo":
        assert sorted(files) == ["corrections.jsonl", "labels/b.txt", "review.html"]  # the photos reviewed alone
        assert files["labels/b.txt"] == (again / "labels" / "b.txt").read_text()
        assert files["labels/b.txt"].split()[0] == str(DETECTOR_CLASSES.index("2p"))
    else:
        assert sorted(files) == ["annotations.json", "corrections.jsonl", "review.html"]
        doc = json.loads(files["annotations.json"])
        assert doc == json.loads((again / "annotations.json").read_text())
        b_id = next(image["id"] for image in doc["images"] if image["file_name"] == "b.png")
        first = next(a for a in doc["annotations"] if a["image_id"] == b_id)
        assert doc["categories"][first["category_id"] - 1]["name"] == "2p" and first["score"] is None
    # and the page saved holds the correction, opened again
    (out / "review.html").write_text(files["review.html"])
    browser.get((out / "review.html").as_uri())
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "figure.card")) == 2)
    assert browser.find_element(By.CSS_SELECTOR, box("b.png", 0)).get_attribute("data-code") == "2p"


def test_the_page_written_in_chinese_says_no_english_sentence(labelled, browser):  # noqa: F811
    import threading

    from lang_check import english_sentences

    from mjlens.api.labelling.outputs import OutputFolder
    from mjlens.api.labelling.review_server import Review, ReviewServer

    _, out = labelled
    server = ReviewServer(Review(OutputFolder(out), 0.6, "secret-token", "zh"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        wait = page_wait(browser)
        browser.get(server.url)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "figure.card")) == 2)
        click(browser, box("a.jpg", 0))
        wait.until(ec.visibility_of_element_located((By.ID, "picker")))
        text = browser.find_element(By.TAG_NAME, "body").text
        titles = " ".join(e.get_attribute("title") or "" for e in browser.find_elements(By.CSS_SELECTOR, "[title]")
                          if not e.get_attribute("data-code"))
        assert "標註檢查" in text and english_sentences(text + "\n" + titles) == [], text
        click(browser, "#picker-close")
        click(browser, "#save")
        wait.until(lambda d: d.find_element(By.ID, "save-status").text.startswith(("已儲存", "未儲存")))
        assert browser.find_element(By.ID, "save-status").text.startswith("已儲存")
        assert english_sentences(browser.find_element(By.ID, "save-status").text) == []
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
