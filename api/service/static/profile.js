/* mjlens phone page: "my tile set", the profile every photo is read with (docs/profiles.md).
 * Its id and token live in this browser's localStorage only: POST /v1/profiles gives the token once, and it is
 * what reads, uses and deletes the profile (header X-Profile-Token). A profile the service no longer has (404)
 * is dropped with a message. With "Add my corrections to my tile set" on, the tiles of a hand the player
 * corrected are sent to POST /v1/profiles/{id}/examples when the tile editor closes. */
"use strict";

const PROFILE_KEY = "mjlens-profile";
const LEARN_KEY = "mjlens-learn-corrections";
const TOKEN_HEADER = "X-Profile-Token";
const PROFILE_GONE = N_("The service no longer has your tile set: teach it again.");
const PROFILE_UNUSABLE = N_("The service's reader cannot use your tile set (made for another reader): the photo was " +
  "read without it; teach it again.");

/** The kept profile, {id, token, codes}, or null. */
function currentProfile() {
  try {
    const kept = JSON.parse(localStorage.getItem(PROFILE_KEY) || "null");
    return kept && typeof kept.id === "string" && typeof kept.token === "string" ? kept : null;
  } catch (_) {
    return null;
  }
}

function profileHeaders(profile) { return { [TOKEN_HEADER]: profile.token }; }
function profilePath(profile, rest = "") { return `/v1/profiles/${encodeURIComponent(profile.id)}${rest}`; }

function keepProfile(profile, note = "") {
  localStorage.setItem(PROFILE_KEY, JSON.stringify({ id: profile.id, token: profile.token,
    codes: profile.codes || [] }));
  renderProfile(note);
}

function dropProfile(note = "", bad = true) {
  localStorage.removeItem(PROFILE_KEY);
  renderProfile(note, bad);
}

function profileNote(text, bad = false) {
  const note = $("#profile-note");
  note.textContent = t(text);  // a sentence kept as a constant (N_) is said here; one said already stays as it is
  note.classList.toggle("bad", bad);
}

function renderProfile(note = null, bad = false) {
  const profile = currentProfile();
  const card = $("#profile-card");
  card.classList.toggle("in-use", !!profile);
  $("#profile-state").textContent = profile
    ? "✓ " + t("In use: my tile set, {n} kinds of tile · every photo is read with it", { n: profile.codes.length })
    : t("Not in use: photos are read with the usual tiles. Teach the reader your own set for a better reading.");
  $("#teach-open").textContent = "🀄 " + (profile ? t("Teach again") : t("Teach my tiles"));
  $("#profile-forget").hidden = !profile;
  $("#profile-badge").hidden = !profile;
  $("#learn").hidden = !profile;
  if (note !== null) profileNote(note, bad);
}

/** Ask the service whether it still has the kept profile: one it lost is dropped, saying so; a network failure
 * keeps it (the next photo tells). */
async function checkProfile() {
  const profile = currentProfile();
  if (!profile) return;
  try {
    const summary = await api(profilePath(profile), { headers: profileHeaders(profile) });
    if (Array.isArray(summary.codes)) keepProfile({ ...profile, codes: summary.codes });
  } catch (err) {
    if (err.code === "profile_not_found") dropProfile(PROFILE_GONE);
  }
}

async function forgetProfile() {
  const profile = currentProfile();
  if (!profile || !confirm(t("Forget my tile set? The service deletes it; to use it again, teach it again."))) {
    return;
  }
  try {
    await api(profilePath(profile), { method: "DELETE", headers: profileHeaders(profile) });
  } catch (err) {
    if (err.code !== "profile_not_found") {
      profileNote(t("Could not delete it ({code}): {message}. Try again.", { code: err.code, message: err.message }), true);
      return;
    }
  }
  dropProfile(N_("Forgotten: photos are read with the usual tiles again."), false);
}

/** The tiles of the hand read from a photo whose code the player changed and that the tile set has not had yet:
 * face-down tiles and tiles added by hand (no box) are left out. */
function correctedTiles() {
  return state.tiles.filter((t) => t.box && t.read && t.code !== t.read && t.code !== "back" && t.code !== t.taught);
}

async function addCorrectionsToProfile() {
  const profile = currentProfile();
  if (!profile || !$("#learn-corrections").checked || !state.upload) return;
  const tiles = correctedTiles();
  if (!tiles.length) return;
  const form = new FormData();
  form.append("image", state.upload.blob, state.upload.name);
  form.append("tiles", JSON.stringify(tiles.map((t) => ({ code: t.code, box: t.box }))));
  const codes = tiles.map((t) => t.code);
  tiles.forEach((t) => { t.taught = t.code; });  // sent once, whatever the answer: a retry would add them twice
  try {
    const added = await api(profilePath(profile, "/examples"), { method: "POST", body: form,
      headers: profileHeaders(profile) });
    const count = Array.isArray(added.added) ? added.added.length : added.added;
    profileNote(t("Added to my tile set: {codes}", { codes: codes.join(" ") }) +
      (count != null ? " " + t("({n} examples)", { n: count }) : "") +
      ((added.warnings || []).length ? " · " + added.warnings.join(t("; ")) : ""));
  } catch (err) {
    if (err.code === "profile_not_found") { dropProfile(PROFILE_GONE); return; }
    tiles.forEach((t) => { t.taught = null; });
    profileNote(t("Could not add the corrections ({code}): {message}", { code: err.code, message: err.message }), true);
  }
}

function initProfile() {
  const learn = $("#learn-corrections");
  learn.checked = localStorage.getItem(LEARN_KEY) === "on";
  learn.addEventListener("change", () => {
    localStorage.setItem(LEARN_KEY, learn.checked ? "on" : "off");
    if (learn.checked) addCorrectionsToProfile();
  });
  $("#profile-forget").addEventListener("click", forgetProfile);
  renderProfile("");
  checkProfile();
}
