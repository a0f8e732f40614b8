/* mjlens phone page: photo -> tiles (POST /v1/recognize) -> corrections -> score (POST /v1/score); a hand that
 * does not win gets its waits, or what to discard, from POST /v1/advise.
 * Plain JavaScript, no build step and nothing from a CDN, so it works on a LAN without internet.
 * The page keeps its own list of tiles, each with a place in the hand (role), and rebuilds the Hand JSON
 * (CONVENTIONS §2) from it after every correction, then asks the server to score it again. */
"use strict";

const SUITS = { m: "萬", p: "筒", s: "索" };
const ZH_NUM = "一二三四五六七八九";
const HONOURS = { "1z": "東", "2z": "南", "3z": "西", "4z": "北", "5z": "白", "6z": "發", "7z": "中" };
const BONUS = { "1f": "春", "2f": "夏", "3f": "秋", "4f": "冬", "5f": "梅", "6f": "蘭", "7f": "菊", "8f": "竹" };
const EN = { "1z": "East", "2z": "South", "3z": "West", "4z": "North", "5z": "White", "6z": "Green", "7z": "Red" };
/** The 43 detector classes in their order, then the red fives (CONVENTIONS §1): the palette. */
const CODES = [].concat(
  ...["m", "p", "s"].map((s) => [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => n + s)),
  Object.keys(HONOURS), Object.keys(BONUS), ["back"], ["0m", "0p", "0s"]);
/** The places of a tile, and the units, as the page names them (each said with t() where it is shown). */
const ROLE_NAMES = {
  concealed: N_("In hand"), winning: N_("Winning tile"), flowers: N_("Flower"), other: N_("Not in hand"),
  dora: N_("Dora indicators"),
};
const UNITS = { fan: N_("fan"), tai: N_("tai"), han: N_("han") };
const SEATS = { E: "東 E", S: "南 S", W: "西 W", N: "北 N" };
const LOW_CONFIDENCE = 0.6;
const UNSURE_GROUP = 0.7;  // a group the layout is less sure of (CONVENTIONS §4 "sure") is marked for a look

const state = {
  tiles: [],      // {code, box, confidence, alternatives, role, meld}
  melds: [],      // {concealed}: indexed by tile.meld
  width: 0, height: 0,
  selected: null,
  picker: null,   // {title, code, onPick}: the editor as a palette alone, for a tile that is not in the hand
  upload: null,   // {blob, name}: the photo as sent, for adding its corrected tiles to the tile set
  catalog: {},    // rules -> key -> {name_zh, name_en}
  scoreSeq: 0,
  scoreAbort: null,
};

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
};

function isBonus(code) { return code in BONUS; }
/** A red five (riichi aka-dora) is written 0 (CONVENTIONS §1): a five, drawn red. */
function isRedFive(code) { return code[0] === "0"; }
function tileFace(code) {
  if (code === "back") return "　";
  if (code in HONOURS) return HONOURS[code];
  if (code in BONUS) return BONUS[code] + code[0];
  return ZH_NUM[(Number(code[0]) || 5) - 1] + SUITS[code[1]];
}
function tileTitle(code) {
  if (code === "back") return t("face-down tile");
  if (LANG === "zh") return tileFace(code).trim() + (isRedFive(code) ? t("red five") : "");
  if (code in EN) return EN[code];
  if (code in BONUS) return "bonus " + code;
  return (isRedFive(code) ? "red 5" : code[0]) + " " + { m: "characters", p: "dots", s: "bamboo" }[code[1]];
}
function tileChip(code, extra = {}) {
  const suit = code === "back" ? "back" : code[1];
  const red = code !== "back" && isRedFive(code) ? " red-five" : "";
  return el("button", { type: "button", class: `tile suit-${suit}${red} ${extra.class || ""}`, title: tileTitle(code),
    "data-code": code, ...(extra.attrs || {}) }, el("span", { class: "face", text: tileFace(code) }),
  el("span", { class: "code", text: code }));
}

// -- server calls ------------------------------------------------------------------------------------------------
function apiHeaders(extra = {}) {
  const key = localStorage.getItem("mjlens-api-key");
  const said = { "Accept-Language": LANG, ...extra };  // the service's warnings and errors in the page's language
  return key ? { ...said, "X-API-Key": key } : said;
}
async function api(path, init = {}) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const response = await fetch(path, { ...init, headers: apiHeaders(init.headers || {}) });
    if (response.status === 401 && attempt === 0) {
      const key = prompt(t("This service needs an API key:"));
      if (key) { localStorage.setItem("mjlens-api-key", key); continue; }
    }
    let body = null;
    try { body = await response.json(); } catch (_) { body = null; }
    if (!response.ok) {
      const err = new Error((body && body.error && body.error.message) || `HTTP ${response.status}`);
      err.code = (body && body.error && body.error.code) || "http_" + response.status;
      err.status = response.status;
      throw err;
    }
    return body;
  }
  throw new Error("unauthorized");
}

async function loadCatalog() {
  try {
    const systems = await api("/v1/rules");
    const select = $("#rules");
    const chosen = select.value;
    select.replaceChildren(...systems.map((system) => el("option", { value: system.rules,
      text: LANG === "zh" ? system.name_zh : `${system.name_zh} ${system.name_en}` })));
    if (systems.some((system) => system.rules === chosen)) select.value = chosen;
    for (const system of systems) {
      state.catalog[system.rules] = Object.fromEntries((system.items || []).map((i) => [i.key, i]));
    }
  } catch (err) { setStatus(t("Could not load the rule list: {message}", { message: err.message }), true); }
}

// -- photo -------------------------------------------------------------------------------------------------------
function setStatus(text, bad = false) {
  const status = $("#status");
  status.textContent = text;
  status.classList.toggle("bad", bad);
}

async function onPhoto(file) {
  if (!file) return;
  const stage = $("#stage");
  const img = $("#photo");
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(file);
  stage.hidden = false;
  $("#boxes").replaceChildren();
  $("#result").hidden = true;
  setStatus(t("Reading the tiles…"));
  document.body.classList.add("busy");
  const upload = await shrinkForUpload(file);
  const name = upload.name || file.name || "photo.jpg";
  try {
    const { recognition, profile } = await readPhoto(upload, name);
    state.upload = { blob: upload, name };
    loadRecognition(recognition);
    const n = state.tiles.filter((t) => t.role !== "other").length;
    const apart = state.tiles.length - n;
    const low = state.tiles.filter((t) => t.confidence < LOW_CONFIDENCE).length;
    setStatus([t("Found {n} tiles", { n }),
      apart ? t("{n} more not in the hand (face down or apart)", { n: apart }) : "",
      low ? t("{n} to check (dashed)", { n: low }) : "",
      profile ? t("read with my tile set") : "",
      (recognition.warnings || []).join(t("; "))].filter(Boolean).join(" · "));
  } catch (err) {
    const retry = err.status === 503 ? " " + t("Try again shortly.") : "";
    setStatus(t("Could not read the photo ({code}): {message}.", { code: err.code, message: err.message }) + retry, true);
  } finally {
    document.body.classList.remove("busy");
  }
}

/** POST /v1/recognize, with the player's tile set when the page keeps one (profile.js). A tile set the service no
 * longer has is dropped, saying so, and one its reader cannot use (made for another crop classifier) is left
 * aside, saying so: either way the photo is read again without it. */
async function readPhoto(upload, name, profile = currentProfile()) {
  const form = new FormData();
  form.append("image", upload, name);
  if (profile) form.append("profile", profile.id);
  try {
    const recognition = await api("/v1/recognize", { method: "POST", body: form,
      headers: profile ? profileHeaders(profile) : {} });
    return { recognition, profile };
  } catch (err) {
    if (!profile) throw err;
    if (err.code === "profile_not_found") dropProfile(PROFILE_GONE);
    else if (err.code === "profile_classifier") profileNote(`${t(PROFILE_UNUSABLE)} (${err.message})`, true);
    else throw err;
    return readPhoto(upload, name, null);
  }
}

/** A big photo is sent as an upright JPEG of at most MAX_UPLOAD_SIDE pixels: the detector works at 640 px,
 * so this loses nothing it uses and makes the upload several times faster on a phone. Photos the browser
 * cannot decode (HEIC outside Safari) are sent as they are; the server reads them. */
const MAX_UPLOAD_SIDE = 2560;
const SHRINK_ABOVE_BYTES = 2.5e6;
async function shrinkForUpload(file) {
  if (file.size < SHRINK_ABOVE_BYTES || !window.createImageBitmap) return file;
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    const scale = MAX_UPLOAD_SIDE / Math.max(bitmap.width, bitmap.height);
    if (scale >= 1) { bitmap.close(); return file; }
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
    if (!blob) return file;
    const name = (file.name || "photo").replace(/\.[^.]*$/, "") + ".jpg";
    return new File([blob], name, { type: "image/jpeg" });
  } catch (_) {
    return file;
  }
}

/** Turn a Recognition JSON (CONVENTIONS §4) into the page's tiles with their places in the hand. */
function loadRecognition(rec) {
  state.width = rec.width; state.height = rec.height;
  const groups = rec.groups || [];
  state.melds = [];
  const meldOf = {};
  groups.forEach((g, gi) => {
    if (g.role === "meld") {
      meldOf[gi] = state.melds.length;
      // a concealed kong of four backs: its tile is asked (face_down_kong), picked on the page, never guessed
      state.melds.push({ concealed: !!g.concealed, faceDown: !!g.face_down, tile: g.tile || null,
        sure: g.sure ?? 1 });
    }
  });
  state.groupSure = {};
  groups.forEach((g) => { if (g.role !== "meld" && g.sure != null) state.groupSure[g.role] = g.sure; });
  const roleOf = {};
  groups.forEach((g, gi) => (g.tiles || []).forEach((ti) => { roleOf[ti] = gi; }));
  state.tiles = (rec.tiles || []).map((t, i) => {
    const gi = t.group != null ? t.group : roleOf[i];
    const group = gi != null ? groups[gi] : null;
    let role = group ? group.role : (groups.length ? "other" : "concealed");
    if (!(role in ROLE_NAMES) && role !== "meld") role = "concealed";
    return { code: t.code, read: t.code, box: t.box, confidence: t.confidence ?? 1,
      alternatives: t.alternatives || [], role, meld: role === "meld" ? meldOf[gi] : null };
  });
  // A layout that named the winning tile without a group of its own: mark the last matching concealed tile.
  const winning = rec.hand && rec.hand.winning_tile;
  if (winning && !state.tiles.some((t) => t.role === "winning")) {
    const last = [...state.tiles].reverse().find((t) => t.role === "concealed" && t.code === winning);
    if (last) last.role = "winning";
  }
  const ctx = (rec.hand && rec.hand.context) || {};
  for (const [key, value] of Object.entries(ctx)) setContextControl(key, value);
  if ("seat_wind" in ctx && ctx.dealer == null) dealerFollowsSeat();
  if (state.tiles.some((t) => t.role === "dora")) syncDora();
  render();
  rescore();
}

// -- the hand ----------------------------------------------------------------------------------------------------
/** Hand JSON from the page's tiles: bonus tiles go to flowers wherever they lie; face-down tiles in a meld
 * take the meld's face (a concealed kong shows two backs). */
function buildHand() {
  const concealed = [], flowers = [], meldTiles = state.melds.map(() => []);
  let winning = null;
  for (const t of state.tiles) {
    if (t.role === "other" || t.role === "dora") continue;  // dora indicators go to the riichi picker, never the hand
    if (isBonus(t.code)) { flowers.push(t.code); continue; }
    if (t.role === "meld" && meldTiles[t.meld]) { meldTiles[t.meld].push(t.code); continue; }
    if (t.code === "back") continue;
    if (t.role === "winning" && winning === null) winning = t.code;
    else concealed.push(t.code);
  }
  const melds = [];
  meldTiles.forEach((codes, m) => {
    const faces = codes.filter((c) => c !== "back");
    if (!faces.length && state.melds[m].tile) faces.push(state.melds[m].tile);
    if (!faces.length) return;
    const hadBack = faces.length < codes.length;
    const tiles = codes.map((c) => (c === "back" ? faces[0] : c)).sort(tileOrder);
    const kind = tiles.length === 4 ? "kong" : (new Set(tiles).size === 1 ? "pung" : "chow");
    melds.push({ kind, tiles, concealed: kind === "kong" && (state.melds[m].concealed || hadBack) });
  });
  return { concealed: concealed.sort(tileOrder), melds, winning_tile: winning, flowers, context: readContext() };
}

function tileOrder(a, b) {
  const rank = (c) => "mpszf".indexOf(c[1]) * 10 + (Number(c[0]) || 5);  // a red five sorts as a five
  return rank(a) - rank(b);
}

function readContext() {
  const ctx = {};
  for (const control of document.querySelectorAll("[data-ctx]")) {
    const key = control.dataset.ctx;
    if (control.closest("[hidden]")) continue;  // another rule system's context (riichi's under the others)
    if (control.dataset.tiles != null) ctx[key] = tileCodes(control.value);
    else if (control.type === "checkbox") ctx[key] = control.checked;
    else if (control.type === "number") ctx[key] = Math.max(0, Math.min(99, parseInt(control.value, 10) || 0));
    else ctx[key] = control.value;
  }
  return ctx;
}
/** Tiles typed as notation, spaces or commas between them ("3m,5p", "35p"): codes, for the server to check. */
function tileCodes(text) {
  const codes = [];
  for (const [, digits, suit] of text.matchAll(/(\d+)\s*([mpsz])/gi)) {
    for (const d of digits) codes.push(d + suit.toLowerCase());
  }
  const rest = text.replace(/\d+\s*[mpsz]/gi, "").replace(/[\s,]/g, "");
  if (rest) codes.push(rest);  // not notation: sent as typed, and the score says what is wrong
  return codes;
}
/** Riichi's context is shown only when riichi is the rule system. */
function showRulesContext() {
  $("#riichi-context").hidden = $("#rules").value !== "riichi";
}
/** Scoring options from the page: who discarded the winning tile (not asked of a self-drawn win). */
function readOptions() {
  const discarder = $("#discarder");
  const selfDrawn = $('[data-ctx="self_drawn"]').checked;
  discarder.disabled = selfDrawn;
  return discarder.value && !selfDrawn ? { discarder: discarder.value } : {};
}
/** The dealer sits East: choosing a seat ticks the Dealer box for East and clears it for the others (tick it
 * again to say otherwise; the score then warns that the two disagree). */
function dealerFollowsSeat() {
  $('[data-ctx="dealer"]').checked = $('[data-ctx="seat_wind"]').value === "E";
}
/** The photo's row of dora indicators (group role dora, left to right) fills riichi's dora picker. */
function syncDora() {
  setContextControl("dora_indicators", state.tiles.filter((t) => t.role === "dora").map((t) => t.code).join(","));
}
function setContextControl(key, value) {
  const control = document.querySelector(`[data-ctx="${key}"]`);
  if (!control || value == null) return;
  if (control.type === "checkbox") control.checked = !!value; else control.value = String(value);
}

// -- drawing -----------------------------------------------------------------------------------------------------
function render() {
  renderBoxes();
  renderHand();
  if ($("#editor").open) renderEditor();
}

function renderBoxes() {
  const boxes = $("#boxes");
  boxes.replaceChildren();
  if (!state.width) return;
  $("#stage").style.aspectRatio = `${state.width} / ${state.height}`;
  state.tiles.forEach((t, i) => {
    if (!t.box) return;
    const [x1, y1, x2, y2] = t.box;
    const box = el("button", {
      type: "button", class: `box role-${t.role}` + (t.confidence < LOW_CONFIDENCE ? " low" : "") +
        (state.selected === i ? " selected" : ""),
      "data-i": String(i), "data-code": t.code, title: `${t.code} ${Math.round(t.confidence * 100)}%`,
      style: `left:${(100 * x1) / state.width}%;top:${(100 * y1) / state.height}%;` +
        `width:${(100 * (x2 - x1)) / state.width}%;height:${(100 * (y2 - y1)) / state.height}%`,
      onclick: () => select(i),
    }, el("span", { class: "label", text: t.code }));
    boxes.append(box);
  });
}

function renderHand() {
  $("#hand-card").hidden = state.tiles.length === 0;
  const hand = $("#hand");
  hand.replaceChildren();
  const row = (title, indexes, extra, sure = 1) => {
    if (!indexes.length) return;
    const chips = indexes.map((i) => tileChip(state.tiles[i].code, {
      class: (state.selected === i ? "selected " : "") + (state.tiles[i].confidence < LOW_CONFIDENCE ? "low" : ""),
      attrs: { "data-i": String(i), onclick: () => select(i) },
    }));
    // a group the layout was unsure of: a tap on a tile moves it (split, join, another meld, the winning tile)
    const unsure = sure < UNSURE_GROUP;
    const note = unsure ? el("span", { class: "unsure-note", text: t("unsure: tap a tile to move it") }) : null;
    hand.append(el("div", { class: "row" + (unsure ? " unsure" : "") },
      el("span", { class: "row-title", text: t(title) }), ...chips, extra, note));
  };
  const sureOf = (role) => (state.groupSure || {})[role] ?? 1;
  const by = (pred) => state.tiles.map((t, i) => (pred(t) ? i : -1)).filter((i) => i >= 0)
    .sort((a, b) => tileOrder(state.tiles[a].code, state.tiles[b].code));
  row(ROLE_NAMES.concealed, by((t) => t.role === "concealed" && !isBonus(t.code)), null, sureOf("concealed"));
  state.melds.forEach((m, mi) => {
    const tiles = by((t) => t.role === "meld" && t.meld === mi);
    // only a kong (four tiles) can be concealed: a chow or pung gets no such box
    const toggle = tiles.length === 4 || m.faceDown ? el("label", { class: "kong-toggle" }, el("input", {
      type: "checkbox", ...(m.concealed ? { checked: "" } : {}),
      onchange: (e) => { m.concealed = e.target.checked; rescore(); },
    }), " " + t("concealed kong")) : null;
    const asked = m.faceDown && tiles.every((i) => state.tiles[i].code === "back");
    const pick = asked ? el("button", { type: "button", class: "button kong-pick" + (m.tile ? "" : " asked"),
      "data-meld": String(mi), onclick: () => pickKong(m) },
    m.tile ? t("Concealed kong {face} {code} · change", { face: tileFace(m.tile), code: m.tile })
      : t("Which tile is this kong?")) : null;
    row(t("Meld {n}", { n: mi + 1 }), tiles, el("span", {}, toggle, pick), m.sure ?? 1);
  });
  row(ROLE_NAMES.winning, by((t) => t.role === "winning"), null, sureOf("winning"));
  row(ROLE_NAMES.flowers, by((t) => isBonus(t.code) && t.role !== "other" && t.role !== "dora"));
  row(ROLE_NAMES.dora, state.tiles.map((t, i) => (t.role === "dora" ? i : -1)).filter((i) => i >= 0));
  row(ROLE_NAMES.other, by((t) => t.role === "other"));
}

// -- the tile editor ---------------------------------------------------------------------------------------------
function select(i) {
  state.selected = i;
  render();
  const editor = $("#editor");
  renderEditor();
  if (!editor.open) editor.showModal();
}

/** A concealed kong laid with four backs: the player names its tile (a playing tile; the photo cannot show it). */
function pickKong(meld) {
  pickCode(t("Concealed kong"), meld.tile || "1m", (code) => {
    if (code === "back" || isBonus(code)) return;
    meld.tile = code;
    render();
    rescore();
  });
}
/** An indicator picked from the palette, added after those typed; a second tap in the same palette replaces it. */
function pickIndicator(input) {
  const before = input.value.trim();
  pickCode(input.title || t("Indicator"), "1m", (code) => {
    if (code === "back" || isBonus(code)) return;
    input.value = before ? `${before},${code}` : code;
    rescore();
  });
}
function unansweredKong() { return state.melds.some((m, mi) => m.faceDown && !m.tile &&
  state.tiles.every((t) => t.role !== "meld" || t.meld !== mi || t.code === "back")); }

/** The editor as a palette alone (no place in the hand, no delete): ``onPick(code)`` for each tap. */
function pickCode(title, code, onPick) {
  state.picker = { title, code, onPick };
  const editor = $("#editor");
  renderEditor();
  if (!editor.open) editor.showModal();
}

function renderEditor() {
  const picker = state.picker;
  $("#editor").classList.toggle("palette-only", !!picker);
  if (picker) {
    $("#editor-title").textContent = `${picker.title}: ${tileFace(picker.code)} ${picker.code}`;
    renderPalette(picker.code, [], (code) => { picker.code = code; picker.onPick(code); renderEditor(); });
    return;
  }
  const i = state.selected;
  const t = state.tiles[i];
  if (!t) { $("#editor").close(); return; }
  const conf = t.box ? ` · ${Math.round(t.confidence * 100)}%` : "";
  const alts = t.alternatives.length ? " · " + window.t("or {codes}", { codes: t.alternatives.map((a) => a.code).join(", ") })
    : "";
  $("#editor-title").textContent = window.t("Tile {n}: {face} {code}", { n: i + 1, face: tileFace(t.code), code: t.code }) +
    conf + alts;
  renderPalette(t.code, t.alternatives, (code) => correct(i, { code }));
  const roles = $("#roles");
  const button = (label, change, active) => el("button", {
    type: "button", class: "button" + (active ? " active" : ""), onclick: () => correct(i, change),
  }, window.t(label));
  roles.replaceChildren(
    button(ROLE_NAMES.concealed, { role: "concealed", meld: null }, t.role === "concealed"),
    button(ROLE_NAMES.winning, { role: "winning", meld: null }, t.role === "winning"),
    ...state.melds.map((_, mi) => button(window.t("Meld {n}", { n: mi + 1 }), { role: "meld", meld: mi },
      t.role === "meld" && t.meld === mi)),
    button("＋ " + window.t("New meld"), { role: "meld", meld: "new" }, false),
    button(ROLE_NAMES.dora, { role: "dora", meld: null }, t.role === "dora"),
    button(ROLE_NAMES.other, { role: "other", meld: null }, t.role === "other"),
  );
}

function renderPalette(current, alternatives, onPick) {
  $("#palette").replaceChildren(...CODES.map((code) => tileChip(code, {
    class: (code === current ? "current" : "") + (alternatives.some((a) => a.code === code) ? " alt" : ""),
    attrs: { role: "option", "aria-selected": String(code === current), onclick: () => onPick(code) },
  })));
}

/** Apply a correction to tile ``i``, keep the hand consistent (one winning tile, no empty melds), re-score. */
function correct(i, change) {
  const t = state.tiles[i];
  const wasDora = t.role === "dora";
  // a place the player has set is sure: the marks of unsure groups go once the hand is corrected
  state.groupSure = {};
  state.melds.forEach((m) => { m.sure = 1; });
  if (change.meld === "new") { state.melds.push({ concealed: false }); change = { ...change, meld: state.melds.length - 1 }; }
  if (change.role === "winning") state.tiles.forEach((o) => { if (o.role === "winning") o.role = "concealed"; });
  Object.assign(t, change);
  if ("code" in change) { t.confidence = 1; t.alternatives = []; }
  if (wasDora || t.role === "dora") syncDora();
  dropEmptyMelds();
  render();
  rescore();
}

function dropEmptyMelds() {
  const used = state.melds.map((_, mi) => state.tiles.some((t) => t.role === "meld" && t.meld === mi));
  const remap = {};
  let next = 0;
  used.forEach((u, mi) => { if (u) remap[mi] = next++; });
  state.melds = state.melds.filter((_, mi) => used[mi]);
  state.tiles.forEach((t) => { if (t.role === "meld") t.meld = remap[t.meld]; });
}

function addTile() {
  state.tiles.push({ code: "1m", read: null, box: null, confidence: 1, alternatives: [], role: "concealed", meld: null });
  select(state.tiles.length - 1);
  rescore();
}

function deleteTile() {
  if (state.selected == null) return;
  const [gone] = state.tiles.splice(state.selected, 1);
  if (gone.role === "dora") syncDora();
  state.selected = null;
  dropEmptyMelds();
  $("#editor").close();
  render();
  rescore();
}

// -- scoring -----------------------------------------------------------------------------------------------------
let rescoreTimer = null;
function rescore() {
  clearTimeout(rescoreTimer);
  rescoreTimer = setTimeout(scoreNow, 120);
}

async function scoreNow() {
  if (!state.tiles.length) return;
  if (unansweredKong()) {
    renderScore({ valid: false, error: { code: "face_down_kong",
      message: t("A concealed kong shows four backs: tap “Which tile is this kong?” to say which tile it is") } });
    renderProgress(null);
    return;
  }
  const rules = $("#rules").value;
  const seq = ++state.scoreSeq;
  if (state.scoreAbort) state.scoreAbort.abort();
  state.scoreAbort = new AbortController();
  $("#score").classList.add("pending");
  try {
    const result = await api("/v1/score", {
      method: "POST", headers: { "Content-Type": "application/json" }, signal: state.scoreAbort.signal,
      body: JSON.stringify({ rules, hand: buildHand(), options: readOptions() }),
    });
    if (seq === state.scoreSeq) renderScore(result);
    const code = (result.error || {}).code;
    const progress = !result.valid && (code === "tile_count" || code === "not_winning")
      ? await api("/v1/advise", {
        method: "POST", headers: { "Content-Type": "application/json" }, signal: state.scoreAbort.signal,
        body: JSON.stringify({ rules, hand: buildHand(), options: readOptions() }),
      }).catch((err) => { if (err.name === "AbortError") throw err; return null; })
      : null;
    if (seq === state.scoreSeq) renderProgress(progress);
  } catch (err) {
    if (err.name === "AbortError") return;
    if (seq === state.scoreSeq) {
      renderScore({ rules, valid: false, error: { code: err.code, message: err.message } });
      renderProgress(null);
    }
  } finally {
    if (seq === state.scoreSeq) $("#score").classList.remove("pending");
  }
}

/** Points as one figure: Guangdong's 2^番, or all a riichi winner takes. */
function pointsText(result) {
  return typeof result.points === "object" ? result.points.total : result.points;
}
/** Riichi's fu with each line of the count, the limit reached and who pays what. */
function riichiLines(result) {
  const lines = (result.fu_items || []).map((i) => `${i.points} ${itemWords(i)}`).join(" + ");
  const paid = result.points || { payments: {} };
  const who = { discarder: t("discarder"), dealer: t("dealer"), each_other: t("each other"), each: t("each") };
  return [
    el("p", { id: "score-fu" }, el("b", { text: t("{fu} fu", { fu: result.fu }) }), lines ? ` = ${lines}` : ""),
    result.limit ? el("p", { id: "score-limit", class: "ok", text: `${result.limit.name_ja} ${result.limit.name_en}` })
      : null,
    el("p", { id: "score-payments" }, `${paid.win === "tsumo" ? t("tsumo") : t("ron")}: ` +
      Object.entries(paid.payments).map(([k, v]) => `${who[k] || k} ${v}`).join(", ") +
      (paid.honba_bonus ? " · " + t("honba +{n}", { n: paid.honba_bonus }) : "") +
      (paid.riichi_sticks_bonus ? " · " + t("sticks +{n}", { n: paid.riichi_sticks_bonus }) : "")),
  ].filter((p) => p);
}

/** An item's name as the page shows it: Chinese alone to a Chinese reader, else both. */
function itemWords(item) { return LANG === "zh" ? item.name_zh : `${item.name_zh} ${item.name_en}`; }
function itemName(rules, key) {
  const item = (state.catalog[rules] || {})[key];
  return item ? itemWords(item) : key;
}

function renderScore(result) {
  const body = $("#score-body");
  const unit = t(UNITS[result.unit] || result.unit || "");
  const parts = [];
  if (result.valid) {
    parts.push(el("p", { id: "score-total", class: "total" }, `${result.total} ${unit}`,
      result.points != null ? el("small", { text: " = " + t("{points} points", { points: pointsText(result) }) }) : null));
    if (result.fu != null) parts.push(...riichiLines(result));
    if (result.minimum != null) {
      const status = result.meets_minimum ? t("met") : t("not met");
      parts.push(el("p", { class: result.meets_minimum ? "ok" : "bad",
        text: t("Minimum {minimum}: {status}", { minimum: result.minimum, status }) }));
    }
  } else {
    const err = result.error || {};
    parts.push(el("p", { id: "score-total", class: "total bad" }, t("No score"),
      el("small", { text: ` (${err.code})` })));
    parts.push(el("p", { id: "score-error", class: "bad", text: err.message || "" }));
  }
  if ((result.items || []).length) {
    const rows = result.items.map((item) => el("tr", {},
      el("td", { class: "zh", text: item.name_zh }), LANG === "zh" ? null : el("td", { text: item.name_en }),
      el("td", { class: "num", text: item.count > 1 ? `${item.value}×${item.count}` : String(item.value) }),
      el("td", { class: "num", text: String(item.points) })));
    parts.push(el("table", { id: "score-items" },
      el("thead", {}, el("tr", {}, el("th", { text: "番種" }), LANG === "zh" ? null : el("th", { text: "Item" }),
        el("th", { class: "num", text: t("Value") }), el("th", { class: "num", text: t("Points") }))),
      el("tbody", {}, ...rows)));
  }
  if ((result.excluded || []).length) {
    parts.push(el("h3", { text: t("Not counted") }));
    parts.push(el("ul", { id: "score-excluded" }, ...result.excluded.map((x) => el("li", {},
      el("b", { text: itemName(result.rules, x.key) }), ` ← ${itemName(result.rules, x.by)}`,
      x.reason ? el("span", { class: "muted", text: ` · ${x.reason}` }) : null))));
  }
  const settlement = Object.entries(result.settlement || {});
  if (settlement.length) {
    parts.push(el("h3", { text: t("Settlement") }));
    parts.push(el("div", { id: "score-settlement", class: "settlement" }, ...settlement.map(([seat, amount]) =>
      el("span", { class: amount >= 0 ? "ok" : "bad", text: `${SEATS[seat] || seat} ${amount > 0 ? "+" : ""}${amount}` }))));
  }
  for (const warning of result.warnings || []) parts.push(el("p", { class: "warning", text: "⚠ " + warning }));
  body.replaceChildren(...parts);
  renderResultLine(result, unit);
}

/** The result in a line under the status, in view as soon as a photo is read: the total, or why there is none. */
function renderResultLine(result, unit) {
  const line = $("#result");
  const err = result.error || {};
  line.className = result.valid ? "ok" : "bad";
  line.replaceChildren(...(result.valid
    ? [el("b", { id: "result-total", text: `${result.total} ${unit}` }),
      result.points != null ? " = " + t("{points} points", { points: pointsText(result) }) : ""]
    : [el("b", { id: "result-total", text: t("No score") }), ` (${err.code}) ${err.message || ""}`]),
  " · ", el("a", { href: "#score", text: t("details ↓") }));
  line.hidden = false;
}

// -- a hand that has not won: its waits, or what to discard (POST /v1/advise) ------------------------------------
function pays(score, unit) {
  if (score.valid && score.fu != null) return `${score.total} ${unit} ${t("{fu} fu", { fu: score.fu })} · ${pointsText(score)}`;
  if (score.valid) return `${score.total} ${unit}`;
  if ((score.error || {}).code === "below_minimum") return `${score.total} ${unit} ${t("below minimum")}`;
  return "—";
}

/** The waits as tiles, each with its copies left and what it pays on a discard and self-drawn. */
function waitList(waits, unit) {
  return el("ul", { class: "waits" }, ...waits.map((w) => el("li", { class: w.meets_minimum ? "" : "below",
    "data-tile": w.tile },
  tileChip(w.tile), el("span", { class: "left", text: t("{n} left", { n: w.left }) }),
  el("span", { class: "pays" }, el("span", { text: t("discard {pays}", { pays: pays(w.discard, unit) }) }),
    el("span", { text: t("self-drawn {pays}", { pays: pays(w.self_drawn, unit) }) })))));
}

function distance(shanten) {
  if (shanten < 0) return t("Wins");
  return shanten === 0 ? t("Ready") : t("{n} from ready", { n: shanten });
}

function renderProgress(result) {
  const card = $("#progress");
  card.hidden = !(result && result.valid);
  if (card.hidden) return;
  const unit = t(UNITS[result.unit] || result.unit || "");
  const parts = [el("p", { id: "progress-shanten", class: "total", text: distance(result.shanten) })];
  if (result.discards) {
    parts.push(el("h3", { text: t("What to discard") }));
    parts.push(el("ol", { id: "discards", class: "discards" }, ...result.discards.slice(0, 5).map((d) => el("li",
      { "data-tile": d.tile }, el("div", { class: "discard-head" }, tileChip(d.tile),
        el("b", { text: distance(d.shanten) }),
        el("span", { class: "muted", text: " · " + (d.waits ? t("{n} winning left", { n: d.winning_tiles_left })
          : t("{n} improving left", { n: d.useful_left })) })),
      d.waits && d.waits.length ? waitList(d.waits, unit) : null,
      el("p", { class: "reason", text: d.reason })))));
  } else if (result.waits && result.waits.length) {
    parts.push(el("h3", { text: t("Waits on · {n} left", { n: result.tiles_left }) }));
    parts.push(waitList(result.waits, unit));
  } else if ((result.useful || []).length) {
    parts.push(el("h3", { text: t("Tiles that bring it nearer · {n} left", { n: result.useful_left }) }));
    parts.push(el("div", { class: "useful" }, ...result.useful.map((u) => el("span", { class: "useful-tile" },
      tileChip(u.tile), el("small", { text: `×${u.left}` })))));
  }
  for (const warning of result.warnings || []) parts.push(el("p", { class: "warning", text: "⚠ " + warning }));
  $("#progress-body").replaceChildren(...parts);
}

// -- wiring ------------------------------------------------------------------------------------------------------
function init() {
  for (const id of ["#camera-input", "#photo-input"]) {
    $(id).addEventListener("change", (e) => { onPhoto(e.target.files[0]); e.target.value = ""; });
  }
  $("#photo").addEventListener("error", () => $("#stage").classList.add("no-preview"));
  $("#photo").addEventListener("load", () => $("#stage").classList.remove("no-preview"));
  $("#add-tile").addEventListener("click", addTile);
  $("#delete-tile").addEventListener("click", deleteTile);
  $("#editor").addEventListener("close", () => {
    const handEdited = state.picker === null;
    state.selected = null; state.picker = null;
    render();
    if (handEdited) addCorrectionsToProfile();
  });
  $("#rules").addEventListener("change", () => {
    localStorage.setItem("mjlens-rules", $("#rules").value);
    showRulesContext();
    rescore();
  });
  $('[data-ctx="seat_wind"]').addEventListener("change", dealerFollowsSeat);
  for (const button of document.querySelectorAll("[data-pick]")) {
    button.addEventListener("click", () => pickIndicator($(`[data-ctx="${button.dataset.pick}"]`)));
  }
  for (const control of document.querySelectorAll("[data-ctx], [data-option]")) {
    control.addEventListener("change", rescore);
  }
  const saved = localStorage.getItem("mjlens-rules");
  if (saved && [...$("#rules").options].some((o) => o.value === saved)) $("#rules").value = saved;
  showRulesContext();
  loadCatalog();
  initProfile();
  initTeach();
}

wordsLoaded.then(init);  // i18n.js: the page's words first, so what init draws is in the reader's language
