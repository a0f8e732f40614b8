/* mjlens phone page: "Teach my tiles". The player lays the set out in rows and photographs it; POST
 * /v1/profiles/preview reads the layout and stores nothing; the page shows each tile boxed on the photo and the
 * rows as read, each tile its own crop with its code; a tap fixes a code with the tile palette; "Save" sends the
 * photo and the grid as fixed to POST /v1/profiles and keeps the profile (profile.js). */
"use strict";

/** The layout's rows in order (vision/profile/layout.py). */
const LAYOUT_ROWS = [
  { name: N_("Characters"), codes: ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"] },
  { name: N_("Dots"), codes: ["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p"] },
  { name: N_("Bamboo"), codes: ["1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s"] },
  { name: N_("Honours"), codes: ["1z", "2z", "3z", "4z", "5z", "6z", "7z"] },
  { name: N_("Flowers and seasons"), codes: ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"] },
];
/** What to do about each error the service gives a layout photo (docs/profiles.md); its own message follows. */
const LAYOUT_ADVICE = {
  no_tiles: N_("No tiles found: lay the set out face up on a plain table and photograph it from above."),
  tiles_unreadable: N_("The tiles are too small or blurred: come closer, in good light, and hold still."),
  row_length: N_("A row is short, long or out of order: lay out each row whole, in the order above (a whole row " +
    "may be left out), and take the photo again."),
  rows_unmatched: N_("More rows than the layout has: five rows at most, in the order above."),
  code_missing: N_("Two tiles of one row look the same: one tile laid twice and another missing. Check that row " +
    "and take the photo again."),
  tiles_look_alike: N_("Two tiles of different rows look the same to the reader: check the layout and take the " +
    "photo again in better light."),
  bad_tiles: N_("The tiles sent were refused: take the photo again."),
  client_profile_limit: N_("This device keeps as many tile sets as it may: forget one first."),
  client_rate_limit: N_("Too many tile sets made lately: try again later."),
  profile_limit: N_("The service holds as many tile sets as it may: ask whoever runs it to remove some."),
  model_unavailable: N_("The service cannot read tiles now: try again shortly."),
  busy: N_("The service is busy: try again in a moment."),
};
/** The crop of each tile in the grid fits this box (CSS pixels). */
const CROP_W = 36, CROP_H = 48;

const teach = {
  upload: null,   // {blob, name}: the layout photo as sent
  url: null,      // an object URL of it, for the photo and the crops
  width: 0, height: 0,  // the frame of the tiles' boxes
  tiles: [],      // {code, read, box, row, confidence}
  busy: false,
  seq: 0,         // a reading answered after the dialog was closed or another photo chosen is dropped
};

function teachStatus(text, bad = false) {
  const status = $("#teach-status");
  status.textContent = text;
  status.classList.toggle("bad", bad);
}

function openTeach() {
  resetTeach();
  teachStatus(t("Lay the set out as above, then take or choose a photo."));
  $("#teach").showModal();
}

function resetTeach() {
  teach.seq += 1;
  teach.busy = false;
  $("#teach").classList.remove("busy");
  if (teach.url) URL.revokeObjectURL(teach.url);
  Object.assign(teach, { upload: null, url: null, width: 0, height: 0, tiles: [] });
  $("#teach-stage").hidden = true;
  renderTeach();
}

async function onLayoutPhoto(file) {
  if (!file) return;
  resetTeach();
  const seq = teach.seq;
  teach.busy = true;
  teachStatus(t("Reading the layout…"));
  $("#teach").classList.add("busy");
  let preview = null, size = null, failure = null;
  try {
    const upload = await shrinkForUpload(file);
    if (seq !== teach.seq) return;
    teach.upload = { blob: upload, name: upload.name || file.name || "layout.jpg" };
    teach.url = URL.createObjectURL(upload);
    size = await showLayoutPhoto(teach.url);
    const form = new FormData();
    form.append("image", teach.upload.blob, teach.upload.name);
    preview = await api("/v1/profiles/preview", { method: "POST", body: form });
  } catch (err) {
    failure = err;
  }
  if (seq !== teach.seq) return;
  teach.busy = false;
  $("#teach").classList.remove("busy");
  if (failure) {
    renderTeach();
    teachStatus(layoutError(failure), true);
    return;
  }
  // The boxes are in pixels of the photo as sent, unless the answer names its own frame.
  teach.width = preview.width || size.width;
  teach.height = preview.height || size.height;
  teach.tiles = (preview.tiles || []).map((t) => ({ code: t.code, read: t.code, box: t.box, row: t.row,
    confidence: t.confidence ?? 1 }));
  renderTeach();
  const rows = new Set(teach.tiles.map((t) => t.row)).size;
  const unsure = teach.tiles.filter((t) => t.confidence < LOW_CONFIDENCE).length;
  teachStatus(t("Read {n} tiles in {rows} rows. Check each code; tap a tile to fix it, then Save.",
    { n: teach.tiles.length, rows }) +
    (unsure ? " " + t("{n} to check (dashed).", { n: unsure }) : "") +
    ((preview.warnings || []).length ? " · " + preview.warnings.join(t("; ")) : ""));
}

function layoutError(err) {
  const advice = err.code in LAYOUT_ADVICE ? t(LAYOUT_ADVICE[err.code]) : t("Could not read the layout photo.");
  return `${advice} (${err.code}: ${err.message})`;
}

/** Show the photo; its size in pixels (0 x 0 when this browser cannot decode it, e.g. HEIC outside Safari). */
async function showLayoutPhoto(url) {
  const img = $("#teach-photo");
  img.src = url;
  $("#teach-stage").hidden = false;
  try { await img.decode(); } catch (_) { return { width: 0, height: 0 }; }
  return { width: img.naturalWidth, height: img.naturalHeight };
}

/** Codes laid more than once in the grid as fixed: a layout holds each tile once. */
function repeatedCodes() {
  const seen = new Map();
  for (const t of teach.tiles) seen.set(t.code, (seen.get(t.code) || 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([code]) => code);
}

function renderTeach() {
  const repeated = new Set(repeatedCodes());
  renderLayoutBoxes(repeated);
  renderLayoutGrid(repeated);
  const fixed = teach.tiles.filter((t) => t.code !== t.read).length;
  $("#teach-check").textContent = repeated.size
    ? t("Each tile is laid once: {codes} twice. Fix one of each.", { codes: [...repeated].join(", ") })
    : (fixed ? t("{n} fixed.", { n: fixed }) : "");
  $("#teach-check").classList.toggle("bad", repeated.size > 0);
  $("#teach-save").disabled = !teach.tiles.length || repeated.size > 0 || teach.busy;
}

/** Fixed by the player, laid twice, or read unsurely (and not fixed since). */
function tileFlags(t, repeated) {
  if (repeated.has(t.code)) return " repeated";
  if (t.code !== t.read) return " fixed";
  return t.confidence < LOW_CONFIDENCE ? " low" : "";
}

function renderLayoutBoxes(repeated) {
  const boxes = $("#teach-boxes");
  boxes.replaceChildren();
  if (!teach.width || !teach.height) return;
  $("#teach-stage").style.aspectRatio = `${teach.width} / ${teach.height}`;
  teach.tiles.forEach((t, i) => {
    const [x1, y1, x2, y2] = t.box;
    boxes.append(el("button", {
      type: "button", class: "box" + tileFlags(t, repeated),
      "data-i": String(i), "data-code": t.code, "aria-label": window.t("tile {n}: {code}, tap to fix", { n: i + 1, code: t.code }),
      style: `left:${(100 * x1) / teach.width}%;top:${(100 * y1) / teach.height}%;` +
        `width:${(100 * (x2 - x1)) / teach.width}%;height:${(100 * (y2 - y1)) / teach.height}%`,
      onclick: () => fixLayoutTile(i),
    }, el("span", { class: "label", text: t.code })));
  });
}

/** The rows as read, top to bottom, each tile its crop of the photo and its code. */
function renderLayoutGrid(repeated) {
  const rows = [...new Set(teach.tiles.map((t) => t.row))].sort((a, b) => a - b);
  $("#teach-grid").replaceChildren(...rows.map((row) => {
    const name = LAYOUT_ROWS[row] ? t(LAYOUT_ROWS[row].name) : t("Row {n}", { n: row + 1 });
    const tiles = teach.tiles.map((t, i) => [t, i]).filter(([t]) => t.row === row);
    return el("div", { class: "layout-row", role: "group", "aria-label": name, "data-row": String(row) },
      el("span", { class: "row-title", text: name }), ...tiles.map(([t, i]) => layoutTile(t, i, repeated)));
  }));
}

function layoutTile(t, i, repeated) {
  const label = t.code !== t.read ? window.t("{code}, read as {read}, tap to fix", { code: t.code, read: t.read })
    : window.t("{code}, tap to fix", { code: t.code });
  return el("button", { type: "button", class: "layout-tile" + tileFlags(t, repeated), "data-i": String(i),
    "data-code": t.code, "aria-label": label, onclick: () => fixLayoutTile(i) },
  el("span", { class: "crop", style: cropStyle(t.box) }), el("span", { class: "code", text: t.code }));
}

/** A CSS background showing ``box`` of the photo, fitted in CROP_W x CROP_H. */
function cropStyle(box) {
  if (!teach.url || !teach.width) return "";
  const [x1, y1, x2, y2] = box;
  const scale = Math.min(CROP_W / Math.max(x2 - x1, 1), CROP_H / Math.max(y2 - y1, 1));
  const left = -x1 * scale + (CROP_W - (x2 - x1) * scale) / 2;
  const top = -y1 * scale + (CROP_H - (y2 - y1) * scale) / 2;
  return `background-image:url("${teach.url}");background-size:${teach.width * scale}px ${teach.height * scale}px;` +
    `background-position:${left}px ${top}px`;
}

function fixLayoutTile(i) {
  const t = teach.tiles[i];
  pickCode(window.t("Layout tile {n}", { n: i + 1 }) + (t.code !== t.read ? " " + window.t("(read {read})", { read: t.read })
    : ""), t.code,
    (code) => { t.code = code; renderTeach(); });
}

async function saveProfile() {
  if (!teach.upload || !teach.tiles.length || teach.busy) return;
  teach.busy = true;
  renderTeach();
  teachStatus(t("Saving my tile set…"));
  $("#teach").classList.add("busy");
  const form = new FormData();
  form.append("image", teach.upload.blob, teach.upload.name);
  form.append("tiles", JSON.stringify(teach.tiles.map((t) => ({ code: t.code, box: t.box }))));
  try {
    const created = await api("/v1/profiles", { method: "POST", body: form });
    const previous = currentProfile();
    keepProfile(created, t("Saved: every photo is now read with my tile set ({n} kinds).", { n: created.codes.length }) +
      ((created.warnings || []).length ? " · " + created.warnings.join(t("; ")) : ""));
    if (previous && previous.id !== created.id) {  // the one it replaces, so the service's store does not fill up
      api(profilePath(previous), { method: "DELETE", headers: profileHeaders(previous) }).catch(() => {});
    }
    $("#teach").close();
  } catch (err) {
    teachStatus(`${t("Could not save.")} ${layoutError(err)}`, true);
  } finally {
    teach.busy = false;
    $("#teach").classList.remove("busy");
    renderTeach();
  }
}

function initTeach() {
  $("#teach-open").addEventListener("click", openTeach);
  $("#teach-save").addEventListener("click", saveProfile);
  $("#teach-cancel").addEventListener("click", () => $("#teach").close());
  $("#teach").addEventListener("close", resetTeach);
  for (const id of ["#teach-camera", "#teach-file"]) {
    $(id).addEventListener("change", (e) => { onLayoutPhoto(e.target.files[0]); e.target.value = ""; });
  }
  $("#teach-rows").replaceChildren(...LAYOUT_ROWS.map((row) => el("li", {},
    el("b", { text: t(row.name) }), ` ${row.codes[0]} … ${row.codes[row.codes.length - 1]}`)));
}
