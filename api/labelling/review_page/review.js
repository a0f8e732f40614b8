/* The review page of `mjlens label`: correct the labels of each photo (a tile's code, a false box, a missed one),
 * mark the photo done, and save. Saving writes corrections.jsonl (one Recognition JSON line a photo changed or
 * done, what `mjlens profile create --from-corrections` reads), the labels (YOLO txt, COCO json) and this page with
 * the corrections in it. Served by `mjlens label --review DIR`, the server writes them into DIR; opened as a file,
 * the page writes them into the folder the reviewer picks (File System Access API) or downloads them as one zip.
 * Plain script, no library: the page is a single file that must open anywhere, offline. Its sentences are written
 * t("...") and said in the words the page carries (data.words, from the catalogue's context "review", in the
 * language of the command that wrote the page; none: English). */
"use strict";
(() => {
  // The page as written, taken before anything is drawn: a save made here writes it again with the new data.
  const PAGE_SOURCE = "<!doctype html>" + document.documentElement.outerHTML;
  const DATA_START = '<script type="application/json" id="review-data">';
  const data = JSON.parse(document.getElementById("review-data").textContent);
  const CLASS_INDEX = Object.fromEntries(data.codes.map((code, i) => [code, i]));
  const SUPERCATEGORY = { m: "characters", p: "dots", s: "bamboo", z: "honours", f: "bonus" };
  const SERVED = !!data.token && location.protocol.startsWith("http");
  const MIN_DRAWN_PX = 4; // a drag shorter than this is a tap, not a box
  const WORDS = data.words || {};
  // a sentence in the page's language, its {fields} filled from params
  function t(text, params = {}) {
    const template = WORDS[text] || text;
    return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
  }

  const photos = data.photos.map((p, i) => ({ ...p, i, tiles: p.tiles.map((t) => ({ ...t })) }));
  const isLow = (t) => t.confidence !== undefined && t.confidence < data.low;
  // photos with unsure tiles and not done come first, as the summary says; the order then stays put while editing
  const order = [...photos].sort((a, b) => rank(a) - rank(b) || a.i - b.i);
  function rank(p) { return !p.done && p.tiles.some(isLow) ? 0 : 1; }

  let selected = null;  // {photo, index} of the box the picker edits
  let drawing = null;   // the photo a box is being drawn on
  let lastCode = data.codes[0];
  let unsaved = false;
  let folder = null;    // the output folder the reviewer picked, once (File System Access API)

  const $ = (sel, root = document) => root.querySelector(sel);
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
    }
    node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
    return node;
  }
  const photoCount = (n) => (n === 1 ? t("{n} photo", { n }) : t("{n} photos", { n }));
  const tileCount = (n) => (n === 1 ? t("{n} tile", { n }) : t("{n} tiles", { n }));
  const progress = (done, changed) => t("{done} of {photos} done · {changed} changed",
    { done, photos: photoCount(photos.length), changed });
  const pct = (v, whole) => `${(100 * v / whole).toFixed(3)}%`;

  // ---- the bar -------------------------------------------------------------------------------------------------
  function drawBar() {
    const done = photos.filter((p) => p.done).length;
    const changed = photos.filter((p) => p.corrected).length;
    $("#bar").replaceChildren(
      el("span", { class: "title" }, t("Labels review")),
      el("span", { id: "progress" }, progress(done, changed)),
      el("label", {}, t("Show "), el("select", { id: "show", onchange: drawPhotos },
        el("option", { value: "all" }, t("every photo")), el("option", { value: "todo" }, t("photos not done")))),
      el("button", { id: "save", class: "primary" + (unsaved ? " unsaved" : ""), onclick: save,
        title: SERVED ? t("write the labels and corrections into the output folder")
          : t("write the labels and corrections into the output folder you pick, or download them") }, t("Save")),
      el("span", { id: "save-status", role: "status" }));
  }
  function updateBar() {
    const done = photos.filter((p) => p.done).length;
    const changed = photos.filter((p) => p.corrected).length;
    $("#progress").textContent = progress(done, changed);
    $("#save").classList.toggle("unsaved", unsaved);
  }
  function say(text, bad = false, ...extra) {
    const status = $("#save-status");
    status.replaceChildren(text, ...extra);
    status.classList.toggle("bad", bad);
  }
  function changed(photo) {
    photo.corrected = true;
    unsaved = true;
    drawCard(photo);
    updateBar();
  }

  // ---- the photos ----------------------------------------------------------------------------------------------
  function drawPhotos() {
    const todoOnly = $("#show") && $("#show").value === "todo";
    $("#photos").replaceChildren(...order.filter((p) => !todoOnly || !p.done).map(card));
  }
  function drawCard(photo) {
    const old = document.querySelector(`figure.card[data-i="${photo.i}"]`);
    if (old) old.replaceWith(card(photo));
  }
  function card(photo) {
    const low = photo.done ? 0 : photo.tiles.filter(isLow).length;
    const boxes = photo.tiles.map((tile, j) => box(photo, tile, j));
    const area = el("div", { class: "photo", style: `aspect-ratio: ${photo.width} / ${photo.height}` },
      el("img", { src: photo.src, alt: "", loading: "lazy", draggable: "false" }), ...boxes);
    area.addEventListener("pointerdown", (e) => startDrawing(e, photo, area));
    const figure = el("figure", { class: "card" + (photo.done ? " is-done" : "") + (low ? " has-low" : ""),
      "data-i": photo.i, "data-image": photo.image },
      el("figcaption", {},
        el("span", { class: "name" }, photo.image),
        el("span", { class: "meta" }, `${photo.width}x${photo.height}, ${tileCount(photo.tiles.length)}`
          + (low ? t(", {n} to check", { n: low }) : "") + (photo.corrected ? t(", changed") : "")),
        el("span", { class: "actions" },
          el("button", { class: "draw", "aria-pressed": String(drawing === photo),
            title: t("then drag over a missed tile"),
            onclick: () => { drawing = drawing === photo ? null : photo; closePicker(); drawCard(photo); } },
            t("Draw a box")),
          el("button", { class: "done", "aria-pressed": String(!!photo.done),
            title: t("every box of this photo is right"), onclick: () => { photo.done = !photo.done; changed(photo); } },
            photo.done ? t("Done ✓") : t("Done")))),
      area);
    if (drawing === photo) figure.classList.add("drawing");
    return figure;
  }
  function box(photo, tile, j) {
    const [x1, y1, x2, y2] = tile.box;
    const low = !photo.done && isLow(tile);
    const isSelected = selected && selected.photo === photo && selected.index === j;
    return el("button", {
      class: "b" + (low ? " low" : "") + (tile.confidence === undefined ? " edited" : "") + (isSelected ? " selected" : ""),
      "data-t": j, "data-code": tile.code, type: "button",
      "aria-label": tile.confidence === undefined ? tile.code
        : t("{code}, confidence {confidence}", { code: tile.code, confidence: tile.confidence.toFixed(2) }),
      style: `left:${pct(x1, photo.width)};top:${pct(y1, photo.height)};width:${pct(x2 - x1, photo.width)};`
        + `height:${pct(y2 - y1, photo.height)}`,
      onclick: (e) => { e.stopPropagation(); openPicker(photo, j); },
    }, el("span", {}, tile.code + (low ? ` ${tile.confidence.toFixed(2)}` : "")));
  }

  // ---- drawing a missed tile -----------------------------------------------------------------------------------
  function startDrawing(e, photo, area) {
    if (drawing !== photo || e.button > 0) return;
    e.preventDefault();
    const rect = area.getBoundingClientRect();
    const at = (ev) => [Math.min(Math.max(ev.clientX - rect.left, 0), rect.width),
      Math.min(Math.max(ev.clientY - rect.top, 0), rect.height)];
    const start = at(e);
    const ghost = el("div", { class: "b ghost" });
    area.append(ghost);
    area.setPointerCapture(e.pointerId);
    let end = start;
    const place = () => {
      Object.assign(ghost.style, { left: `${Math.min(start[0], end[0])}px`, top: `${Math.min(start[1], end[1])}px`,
        width: `${Math.abs(end[0] - start[0])}px`, height: `${Math.abs(end[1] - start[1])}px` });
    };
    const move = (ev) => { end = at(ev); place(); };
    const up = (ev) => {
      end = at(ev);
      area.removeEventListener("pointermove", move);
      area.removeEventListener("pointerup", up);
      area.removeEventListener("pointercancel", up);
      ghost.remove();
      if (Math.abs(end[0] - start[0]) < MIN_DRAWN_PX || Math.abs(end[1] - start[1]) < MIN_DRAWN_PX) return;
      const sx = photo.width / rect.width, sy = photo.height / rect.height;
      const round = (v) => Math.round(v * 10) / 10;
      photo.tiles.push({ code: lastCode, box: [round(Math.min(start[0], end[0]) * sx), round(Math.min(start[1], end[1]) * sy),
        round(Math.max(start[0], end[0]) * sx), round(Math.max(start[1], end[1]) * sy)] });
      drawing = null;
      changed(photo);
      openPicker(photo, photo.tiles.length - 1, true);
    };
    area.addEventListener("pointermove", move);
    area.addEventListener("pointerup", up);
    area.addEventListener("pointercancel", up);
  }

  // ---- the code picker -----------------------------------------------------------------------------------------
  function openPicker(photo, index, drawn = false) {
    selected = { photo, index };
    drawCard(photo);
    const tile = photo.tiles[index];
    const codeButton = (code) => el("button", { class: "code" + (code === tile.code ? " current" : ""),
      "data-code": code, type: "button", title: code, onclick: () => pick(code) },
      el("b", {}, code), el("small", {}, data.names[code] || "▮"));
    const rows = ["m", "p", "s", "z", "f"].map((suit) => el("div", { class: "row" },
      ...data.codes.filter((c) => c.endsWith(suit) || (suit === "f" && !/^\d[mpszf]$/.test(c))).map(codeButton)));
    const likely = (tile.alternatives || []).filter((c) => c !== tile.code);
    $("#picker").replaceChildren(
      el("div", { class: "head" },
        el("span", { class: "what", id: "picker-what" }, drawn ? t("New box: pick its code")
          : t("{image}, tile {number}: {code}", { image: photo.image, number: index + 1, code: tile.code })
            + (tile.confidence === undefined ? ""
              : t(" (read at {confidence})", { confidence: tile.confidence.toFixed(2) }))),
        el("button", { id: "picker-delete", class: "danger", type: "button", onclick: deleteSelected },
          t("Delete box")),
        el("button", { id: "picker-close", type: "button", onclick: closePicker }, t("Close"))),
      likely.length ? el("div", { class: "likely" }, t("The reader's next guesses: "), ...likely.map(codeButton))
        : null,
      ...rows);
    $("#picker").hidden = false;
  }
  function pick(code) {
    const { photo, index } = selected;
    const tile = photo.tiles[index];
    lastCode = code;
    if (tile.code !== code || tile.confidence !== undefined) {
      photo.tiles[index] = { code, box: tile.box };  // set by the reviewer: no reader's confidence any more
    }
    closePicker();
    changed(photo);
  }
  function deleteSelected() {
    const { photo, index } = selected;
    photo.tiles.splice(index, 1);
    closePicker();
    changed(photo);
  }
  function closePicker() {
    const was = selected;
    selected = null;
    $("#picker").hidden = true;
    if (was) drawCard(was.photo);
  }
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      if (drawing) { const p = drawing; drawing = null; drawCard(p); }
      closePicker();
    } else if ((e.key === "Delete" || e.key === "Backspace") && selected && e.target.tagName !== "SELECT") {
      e.preventDefault();
      deleteSelected();
    }
  });

  // ---- what a save writes (the formats as api/labelling/labels.py and api/labelling/corrections.py write them) ----
  function correction(p) {
    return { image: `images/${p.image}`, width: p.width, height: p.height, done: !!p.done,
      tiles: p.tiles.map((t) => (t.confidence === undefined ? { code: t.code, box: t.box }
        : { code: t.code, box: t.box, confidence: t.confidence })) };
  }
  const reviewed = () => photos.filter((p) => p.corrected || p.done);
  const known = (p) => p.tiles.filter((t) => t.code in CLASS_INDEX);
  const stem = (name) => name.replace(/\.[^.]*$/, "");
  function yoloLines(p) {
    const lines = [];
    for (const t of known(p)) {
      let [x1, y1, x2, y2] = t.box;
      [x1, x2] = [Math.max(0, Math.min(x1, p.width)), Math.max(0, Math.min(x2, p.width))];
      [y1, y2] = [Math.max(0, Math.min(y1, p.height)), Math.max(0, Math.min(y2, p.height))];
      if (x2 <= x1 || y2 <= y1) continue;
      lines.push(`${CLASS_INDEX[t.code]} ${((x1 + x2) / 2 / p.width).toFixed(6)} ${((y1 + y2) / 2 / p.height).toFixed(6)} `
        + `${((x2 - x1) / p.width).toFixed(6)} ${((y2 - y1) / p.height).toFixed(6)}`);
    }
    return lines;
  }
  function coco() {
    const r1 = (v) => Math.round(v * 10) / 10;
    const images = [], annotations = [];
    photos.forEach((p, n) => {
      images.push({ id: n + 1, file_name: p.image, width: p.width, height: p.height });
      for (const t of known(p)) {
        const [x1, y1, x2, y2] = t.box;
        annotations.push({ id: annotations.length + 1, image_id: n + 1, category_id: CLASS_INDEX[t.code] + 1,
          bbox: [r1(x1), r1(y1), r1(x2 - x1), r1(y2 - y1)], area: r1((x2 - x1) * (y2 - y1)), iscrowd: 0,
          score: t.confidence === undefined ? null : t.confidence });
      }
    });
    const categories = data.codes.map((code, i) => ({ id: i + 1, name: code,
      supercategory: SUPERCATEGORY[code.slice(-1)] || "back" }));
    return { info: { description: "mjlens batch labels" }, images, annotations, categories };
  }
  function pageNow() {
    const start = PAGE_SOURCE.indexOf(DATA_START) + DATA_START.length;
    const end = PAGE_SOURCE.indexOf("<\/script>", start);  // written so, not to end this script
    const now = { ...data, photos: photos.map(({ i, ...p }) => p) };
    return PAGE_SOURCE.slice(0, start) + JSON.stringify(now).replace(/</g, "\\u003c") + PAGE_SOURCE.slice(end);
  }
  function savedFiles() {
    const files = [{ path: "corrections.jsonl", text: reviewed().map((p) => JSON.stringify(correction(p)) + "\n").join("") }];
    if (data.formats.includes("yolo")) {
      for (const p of reviewed()) {
        const lines = yoloLines(p);
        files.push({ path: `labels/${stem(p.image)}.txt`, text: lines.join("\n") + (lines.length ? "\n" : "") });
      }
    }
    if (data.formats.includes("coco")) files.push({ path: "annotations.json", text: JSON.stringify(coco()) });
    files.push({ path: "review.html", text: pageNow() });
    return files;
  }

  // ---- saving --------------------------------------------------------------------------------------------------
  async function save() {
    const count = reviewed().length;
    say(t("Saving…"));
    try {
      let where;
      if (SERVED) where = await saveToServer();
      else if (window.showDirectoryPicker) where = await saveToFolder();
      else where = download();
      unsaved = false;
      updateBar();
      say(t("Saved {photos} changed or done: {where}", { photos: photoCount(count), where }));
    } catch (err) {
      if (err.name === "AbortError") {
        say(t("Not saved: no folder chosen."), true, el("button", { type: "button", onclick: saveDownload },
          t("Download instead")));
      } else {
        say(t("Not saved: {reason}", { reason: err.message }), true);
      }
    }
  }
  function saveDownload() {
    const where = download();
    unsaved = false;
    updateBar();
    say(t("Saved: {where}", { where }));
  }
  async function saveToServer() {
    const answer = await fetch("save", { method: "POST", headers: { "Content-Type": "application/json",
      "X-Review-Token": data.token }, body: JSON.stringify({ corrections: reviewed().map(correction) }) });
    let body;
    try { body = await answer.json(); } catch { body = {}; }
    if (!answer.ok) {
      const error = body.error || { code: `http_${answer.status}`, message: answer.statusText };
      throw new Error(`${error.code}: ${error.message}`);
    }
    return t("written into the output folder ({files})", { files: body.files.join(", ") });
  }
  async function saveToFolder() {
    if (!folder) {
      const chosen = await window.showDirectoryPicker({ id: "mjlens-review", mode: "readwrite" });
      try {
        await chosen.getDirectoryHandle("images");
        await chosen.getFileHandle("review.html");
      } catch {
        throw new Error(t("{folder} is not the output folder: pick the folder that holds review.html and images/",
          { folder: chosen.name }));
      }
      folder = chosen;
    }
    const files = savedFiles();
    for (const file of files) {
      const parts = file.path.split("/");
      let dir = folder;
      for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part, { create: true });
      const writable = await (await dir.getFileHandle(parts.at(-1), { create: true })).createWritable();
      await writable.write(file.text);
      await writable.close();
    }
    return t("written into {folder}/ ({n} files)", { folder: folder.name, n: files.length });
  }
  function download() {
    const blob = new Blob([zip(savedFiles())], { type: "application/zip" });
    const link = el("a", { href: URL.createObjectURL(blob), download: "review-save.zip" });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    return t("review-save.zip downloaded: unzip it into the output folder (unzip -o review-save.zip -d FOLDER)");
  }

  // A zip of stored (uncompressed) files: labels and JSON are small, and the archive needs no library.
  const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  function crc32(bytes) {
    let c = 0xffffffff;
    for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  }
  function zip(files) {
    const encoder = new TextEncoder();
    const now = new Date();
    const time = (now.getHours() << 11) | (now.getMinutes() << 5) | (now.getSeconds() >> 1);
    const date = ((now.getFullYear() - 1980) << 9) | ((now.getMonth() + 1) << 5) | now.getDate();
    const chunks = [], central = [];
    let offset = 0;
    const header = (size) => { const buf = new DataView(new ArrayBuffer(size)); return buf; };
    for (const file of files) {
      const name = encoder.encode(file.path), body = encoder.encode(file.text), crc = crc32(body);
      const local = header(30);
      [[0, 0x04034b50, 4], [4, 20, 2], [6, 0x0800, 2], [8, 0, 2], [10, time, 2], [12, date, 2], [14, crc, 4],
        [18, body.length, 4], [22, body.length, 4], [26, name.length, 2], [28, 0, 2]]
        .forEach(([at, v, n]) => (n === 4 ? local.setUint32(at, v, true) : local.setUint16(at, v, true)));
      const entry = header(46);
      [[0, 0x02014b50, 4], [4, 20, 2], [6, 20, 2], [8, 0x0800, 2], [10, 0, 2], [12, time, 2], [14, date, 2],
        [16, crc, 4], [20, body.length, 4], [24, body.length, 4], [28, name.length, 2], [30, 0, 2], [32, 0, 2],
        [34, 0, 2], [36, 0, 2], [38, 0, 4], [42, offset, 4]]
        .forEach(([at, v, n]) => (n === 4 ? entry.setUint32(at, v, true) : entry.setUint16(at, v, true)));
      chunks.push(local, name, body);
      central.push(entry, name);
      offset += 30 + name.length + body.length;
    }
    const size = central.reduce((sum, part) => sum + part.byteLength, 0);
    const end = header(22);
    [[0, 0x06054b50, 4], [4, 0, 2], [6, 0, 2], [8, files.length, 2], [10, files.length, 2], [12, size, 4],
      [16, offset, 4], [20, 0, 2]].forEach(([at, v, n]) => (n === 4 ? end.setUint32(at, v, true)
      : end.setUint16(at, v, true)));
    return new Blob([...chunks, ...central, end]);
  }

  window.addEventListener("beforeunload", (e) => {
    if (unsaved) { e.preventDefault(); e.returnValue = ""; }
  });
  drawBar();
  drawPhotos();
})();
