"""The phone page under riichi in headless Chromium: the riichi context shown only for riichi, dora indicators
typed, han, fu with its lines and the payments shown, and a five corrected to a red five drawn red and counted.
Uses the page tests' server and browser (tests/test_web_e2e.py); skips as they do."""

from __future__ import annotations

import pytest
from api_fakes import sample_photo

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from test_web_e2e import _open, browser, page_wait, pytestmark, server  # noqa: E402, F401 - the fixtures and the skip


def test_riichi_context_fu_payments_and_a_red_five(server, browser, tmp_path):  # noqa: F811
    photo = tmp_path / "table.jpg"
    photo.write_bytes(sample_photo())
    wait = page_wait(browser)
    _open(browser, server)
    rules = Select(browser.find_element(By.ID, "rules"))
    rules.select_by_value("mcr")
    assert not browser.find_element(By.ID, "riichi-context").is_displayed()
    rules.select_by_value("riichi")
    assert browser.find_element(By.ID, "riichi-context").is_displayed()
    browser.find_element(By.ID, "photo-input").send_keys(str(photo))
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#boxes .box")) == 14)

    # the fake hand: 123m 456p 78s 11z [555z] +9s, open: the white dragons are its yaku
    wait.until(lambda d: d.find_elements(By.ID, "score-fu"))
    body = browser.find_element(By.ID, "score-body").text
    assert "1 han" in body and "White Dragon" in body and "30 fu = 20" in body
    assert "discarder 1500" in browser.find_element(By.ID, "score-payments").text  # East: the dealer

    # a dora indicator typed: 4p makes the 5p a dora
    indicators = browser.find_element(By.CSS_SELECTOR, '[data-ctx="dora_indicators"]')
    indicators.send_keys("4p")
    indicators.send_keys("\t")  # the change event
    wait.until(lambda d: "2 han" in d.find_element(By.ID, "score-total").text)
    assert "Dora" in browser.find_element(By.ID, "score-items").text

    # one more picked from the palette: 6s makes the 7s a dora
    browser.find_element(By.CSS_SELECTOR, '[data-pick="dora_indicators"]').click()
    wait.until(ec.visibility_of_element_located((By.ID, "palette")))
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="6s"]').click()
    browser.find_element(By.ID, "editor-done").click()
    assert indicators.get_attribute("value") == "4p,6s"
    wait.until(lambda d: "3 han" in d.find_element(By.ID, "score-total").text)

    # the 5p corrected to a red five: drawn red, and one more han
    def tap_five(driver) -> bool:  # the hand is drawn again after each score: look the tile up each try
        five = driver.find_element(By.CSS_SELECTOR, '#hand .tile[data-code="5p"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", five)
        five.click()
        return True

    page_wait(browser).until(tap_five)
    wait.until(ec.visibility_of_element_located((By.ID, "palette")))
    browser.find_element(By.CSS_SELECTOR, '#palette .tile[data-code="0p"]').click()
    browser.find_element(By.ID, "editor-done").click()
    wait.until(lambda d: "4 han" in d.find_element(By.ID, "score-total").text)
    assert "Red Five" in browser.find_element(By.ID, "score-items").text
    red = browser.find_element(By.CSS_SELECTOR, '#hand .tile.red-five')
    assert red.get_attribute("data-code") == "0p" and red.find_element(By.CSS_SELECTOR, ".face").text == "五筒"
    browser.save_screenshot(str(tmp_path / "phone-riichi.png"))
