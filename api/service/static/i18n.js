/* mjlens phone page: its words in the reader's language (docs/i18n.md). The page is written in English, here and
 * in index.html (each sentence there marked data-i18n); a browser set to Chinese gets them from the service's
 * catalogue (GET /v1/messages?lang=zh), and every call to the service asks for its warnings and errors in the same
 * language. Loaded before the other scripts. */
"use strict";

/** "zh" for a browser set to any Chinese (zh, zh-TW, zh-Hant-HK...), else "en". */
const LANG = /^zh(-|$)/i.test(navigator.language || "") ? "zh" : "en";
let PAGE_WORDS = {};

/** ``text`` (an English template with {name} fields) in the page's language, its fields filled from ``params``. */
function t(text, params = {}) {
  const template = PAGE_WORDS[text] || text;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** Marks a sentence for the catalogue where it is written (a constant), said later with t(): gettext's noop. */
function N_(text) { return text; }

/** Every element marked data-i18n (its text) or data-i18n-ATTR (that attribute), said in the page's language. */
function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) {
    if (!node.dataset.i18n) node.dataset.i18n = node.textContent.split(/\s+/).filter(Boolean).join(" ");
    node.textContent = t(node.dataset.i18n);
  }
  for (const attr of ["title", "placeholder", "aria-label", "alt"]) {
    for (const node of root.querySelectorAll(`[data-i18n-${attr}]`)) {
      node.setAttribute(attr, t(node.getAttribute(`data-i18n-${attr}`)));
    }
  }
}

/** The page's words for LANG (none to fetch for English), then the page said in them. Offline, it stays English. */
const wordsLoaded = (async () => {
  document.documentElement.lang = LANG === "zh" ? "zh-Hant" : "en";
  if (LANG !== "en") {
    try {
      const response = await fetch(`/v1/messages?lang=${LANG}`);
      if (response.ok) PAGE_WORDS = (await response.json()).messages || {};
    } catch (_) { /* the service cannot be reached: English it is */ }
  }
  if (document.readyState === "loading") await new Promise((done) => addEventListener("DOMContentLoaded", done));
  translatePage();
})();
