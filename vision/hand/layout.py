"""The layout step: detected tiles -> rows, groups and a Hand (CONVENTIONS §2, §4).

Rows and gaps decide. Tiles are chained into rows along the photo's dominant row direction (rows may run
diagonally, and bend a little under perspective; tiles that fit no row get a second look along their own
direction). Rows are cut where two neighbours lie clearly farther apart than touching tiles nearby, which gives
"segments"; a cut of under 0.45 of a tile between two runs is the row's uneven touch and is undone, unless both
are melds or one is a single tile. The hand is grown from the run that is not a meld: melds (3 or 4 tiles set
apart: chow, pung or kong by their tiles, backs making a concealed kong; a tile of a pung's code lying on one of
its tiles makes it a kong) and single tiles within a hand's reach join it, other runs only while the hand is short
of tiles; what is left is clutter ("other"), such as another player's tiles farther off. Bonus tiles are flowers
wherever they lie; a single tile that is the next segment on the concealed row's line (or the one after it, set
apart farther) is the winning tile, and so is a tile at the row's end set apart by less than a cut but clearly
more than the row's own median spacing. A short row of face-up tiles set apart above the hand, which the hand
is whole without, is the dora indicators a riichi player laid there (role "dora"), never part of the hand
(``DORA_REACH``).
Anything the photo leaves open goes into ``warnings``; nothing is guessed silently.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mjlens.i18n import msg
from mjlens.scoring.errors import HandError
from mjlens.scoring.hand import Hand, Meld, validate_structure
from mjlens.scoring.tiles import is_bonus, is_playing, sort_key
from mjlens.vision.boxes import box_iou
from mjlens.vision.detection import Detection

# -- rows ----------------------------------------------------------------------------------------------------------
#: A row may turn this many degrees away from the photo's dominant row direction (perspective) between close
#: tiles, and ROW_BEND_FAR between tiles more than 2.5 tiles apart.
ROW_BEND, ROW_BEND_FAR = 25.0, 8.0
#: Centres of tiles in one row lie at most this share of a tile width apart across the row (beyond the bend).
ROW_TOLERANCE = 0.6
#: Tiles more than this many tile widths apart are never neighbours in a row.
LINE_REACH = 5.0
#: Tiles left out of every row get a second look along their own dominant direction when it differs from the
#: photo's by more than this many degrees (a hand beside a discard pile turned another way).
SECOND_TURN = 15.0
#: A tile whose box is this many times longer along the row than its neighbours' trend lies sideways; it takes
#: SIDEWAYS_LENGTH tile widths of its row.
SIDEWAYS_RATIO, SIDEWAYS_LENGTH = 1.2, 1.33

# -- gaps ----------------------------------------------------------------------------------------------------------
#: A row is cut where two neighbours lie farther apart than touching tiles nearby by this share of a tile...
GAP_SPLIT = 0.3
GAP_SPLIT_DIAGONAL = 0.42  # ... in diagonal rows, where a sideways tile (1.17 tiles apart) cannot be seen
#: ... and always where the spacing is this many times the typical spacing of touching tiles.
CLEAR_GAP = 1.8
#: A cut of less than this share of a tile between two runs of a row is its uneven touch, not a set laid apart,
#: unless both runs are melds or one is a single tile (the winning tile set apart): see ``_mend_uneven`` and
#: docs/experiments/whole-hands.md.
MEND_GAP = 0.45

# -- the hand ------------------------------------------------------------------------------------------------------
#: Segments closer than this (edge to edge) are within a hand's reach: tile widths along the rows, tile lengths
#: across them.
NEAR_ALONG, NEAR_ACROSS = 2.5, 1.4
#: Tile counts of a whole hand (kongs counted as three): standard, and Taiwan 16-tile hands.
HAND_SIZES = (14, 17)
#: A tile at one end of the concealed row whose spacing is END_SPLIT times the row's median spacing (the hand's,
#: in rows under END_MIN_ROW tiles) and END_OVER times any other of the row's is the winning tile set apart.
END_MIN_ROW, END_SPLIT, END_OVER = 5, 1.3, 1.15
#: A group set apart that is not a meld may be read with one tile as its runner-up code (the first this many
#: alternatives, each at least this confident), when exactly one such reading makes a meld.
ALTERNATIVES_TRIED, ALTERNATIVE_MIN = 2, 0.05
# -- dora indicators -----------------------------------------------------------------------------------------------
#: A row of at most DORA_MOST face-up playing tiles (bonus tiles are flowers wherever they lie) above the hand, set
#: apart from its top edge by DORA_GAP to DORA_REACH tile lengths edge to edge and lying along the hand's span (with
#: NEAR_ALONG tile widths to spare either side), the nearest row above it and no tile of a heap, is the dora
#: indicators: riichi shows one, and one more per kong. Clutter and other players' tiles lie farther off. The row is
#: the indicators only where the hand read without it is the same hand and whole (14 or 17 tiles): a meld laid above
#: the row, or a tile the hand needs, stays the hand's.
DORA_GAP, DORA_REACH, DORA_MOST = 0.2, 2.0, 5

# -- how sure the layout is of each group (``"sure"`` in the groups, 1 = plain to see) ------------------------------
#: A group set apart by a gap of SURE_GAP tiles beyond touching (or more) is plain; one set apart by MEND_GAP, the
#: least that sets a group apart, is as unsure as can be (SURE_LEAST); between, in proportion.
SURE_GAP, SURE_LEAST = 0.9, 0.1
#: A meld made by reading a tile as its runner-up, a winning tile told only by a wider spacing at the row's end,
#: and a concealed row that took in tiles set apart that are no meld are this sure at most.
SURE_RUNNER_UP, SURE_END, SURE_FOLDED = 0.5, 0.5, 0.5

#: Two boxes overlapping more than this (intersection over union) are one tile found twice...
DUPLICATE_IOU = 0.6
#: ... unless the two are one code, their centres apart along the row by under STACK_ALONG of the distance from
#: the one under to its nearest other tile (touching tiles lie that far apart), and at least STACK_APART but under
#: STACK_REACH of a tile apart in all (a box found twice lies closer): a tile lying on another, as the fourth tile
#: of a kong is stacked on its pung, its raised face shifted away from the point below the camera. The tile under
#: lies where its row's tiles put it. A top with no tile beside it on its own line (no row behind) may lie up to
#: STACK_REACH_ALONE apart: seen from low, a tile's thickness raises it by most of a tile.
STACK_ALONG, STACK_APART, STACK_REACH, STACK_REACH_ALONE = 0.5, 0.12, 0.75, 1.1

# -- codes of the warnings that ask or tell something a program acts on (``Layout.notices``) -----------------------
#: A concealed kong shows four backs: its tile is asked, never guessed (CONVENTIONS §2).
FACE_DOWN_KONG = "face_down_kong"
#: A kong's tile was given where no concealed kong shows four backs to take it.
KONG_ANSWER_UNUSED = "kong_answer_unused"


@dataclass
class Layout:
    """How the tiles of one photo were read: groups of detection indices, the hand, and what was unclear."""

    groups: list[dict] = field(default_factory=list)
    tile_group: list[int | None] = field(default_factory=list)
    hand: Hand | None = None
    warnings: list[str] = field(default_factory=list)
    #: The warnings a program acts on, each also in ``warnings``: {"code", "message"} and, where it is about one
    #: group, "group" (its index).
    notices: list[dict] = field(default_factory=list)

    def warn(self, message: str, code: str, **where: int) -> None:
        """A warning with a stable ``code`` (and the group it is about): in ``warnings`` and ``notices`` alike."""
        self.warnings.append(message)
        self.notices.append({"code": code, "message": message, **where})

    def in_hand(self) -> list[int]:
        """The detections the hand was read from: every tile in a group but the clutter ("other") and the dora
        indicators ("dora")."""
        return [i for i, g in enumerate(self.tile_group)
                if g is not None and self.groups[g]["role"] not in ("other", "dora")]

    def to_json(self) -> dict:
        return {
            "groups": self.groups,
            "hand": self.hand.to_json() if self.hand else None,
            "warnings": list(self.warnings),
            "warning_details": [dict(n) for n in self.notices],
        }


@dataclass
class _Geometry:
    """Tile positions in row coordinates: u along the rows, v across; ``size`` is each tile's local width."""

    u: np.ndarray
    v: np.ndarray
    size: np.ndarray
    along: np.ndarray  # each box's side along the row, in pixels
    across: np.ndarray  # ... and across it
    sideways: np.ndarray  # bool per tile, set once rows are known
    diagonal: np.ndarray  # per tile: its row runs well off the picture's axes (boxes cannot show a sideways tile)
    centres: np.ndarray
    direction: np.ndarray  # per tile: unit vector along its row
    box_w: np.ndarray
    box_h: np.ndarray


def assemble(detections: list[Detection], width: int, height: int, kongs: Sequence[str] = ()) -> Layout:
    """Read ``detections`` (boxes in a ``width`` x ``height`` photo) as a hand; see the module docstring.
    ``kongs``: the tiles of the concealed kongs shown with four backs, in the order of their groups (the player's
    answers to ``FACE_DOWN_KONG``); a kong left without one keeps the hand open (None)."""
    if any(not is_playing(code) for code in kongs):
        raise ValueError(f"a kong's tile must be a playing tile's code, not {' '.join(kongs)}")
    if not detections:
        return Layout(warnings=[msg("no tiles found")])
    stacked = _stacked(detections, _geometry(detections))
    layout, loose = _assemble(detections, stacked, kongs)
    if loose:  # tiles lying on others but on no pung of theirs: read again as tiles like any other
        layout, _ = _assemble(detections, {top: base for top, base in stacked.items() if top not in loose}, kongs)
    return layout


def _assemble(detections: list[Detection], stacked: dict[int, int], kongs: Sequence[str]) -> tuple[Layout, set[int]]:
    """``assemble`` with the tiles of ``stacked`` lying on others; also the tiles of those on no pung of theirs."""
    layout = Layout(tile_group=[None] * len(detections))
    geo = _geometry(detections)
    kept = _without_duplicates(detections, layout.warnings, stacked)
    flowers = [i for i in kept if is_bonus(detections[i].code)]
    # a tile lying on another takes no place in a row: it joins the meld of the tile under it once that is read
    playing = {i for i in kept if not is_bonus(detections[i].code) and i not in stacked}
    laid = [i for i in kept if i not in stacked]
    segments, line_of, cuts = _mend_uneven(*_only(playing, *_segments(_rows(laid, geo), geo, playing)), detections,
                                           geo)
    hand_cluster, left_out = _find_hand(segments, line_of, cuts, detections, geo)
    dora = _dora_row(hand_cluster, segments, line_of, [i for i in kept if i not in flowers], detections, geo)
    if dora:  # read the hand again without them: they are the indicators only where it is the same hand, and whole
        rest = _only({i for seg in segments for i in seg} - set(dora), segments, line_of, cuts)
        cluster, out = _find_hand(*rest, detections, geo)
        used = {i for k in (hand_cluster or ()) for i in segments[k]} - set(dora)
        again = {i for k in (cluster or ()) for i in rest[0][k]}
        if again == used and _cluster_size(cluster, rest[0], detections, geo) in HAND_SIZES:
            (segments, line_of, cuts), hand_cluster, left_out = rest, cluster, out
            layout.warnings.extend(_bonus_in_dora_row(dora, flowers, detections, geo))
        else:
            dora = []
    for k in sorted(left_out):
        names = " ".join(detections[i].code for i in segments[k])
        layout.warnings.append(msg("tiles near the hand ({names}) were left out: the hand has its tiles "
                                   "without them", names=names))

    def add_group(role: str, tiles: list[int], **extra) -> None:
        layout.groups.append({"role": role, **extra, "tiles": tiles})
        for i in tiles:
            layout.tile_group[i] = len(layout.groups) - 1

    hand_ids = sorted(hand_cluster) if hand_cluster is not None else []
    reading = _read_hand(hand_ids, segments, line_of, cuts, detections, geo, layout.warnings)
    loose = _stack_on_pungs(reading.melds, stacked, detections, layout.warnings)
    if reading.concealed:
        add_group("concealed", reading.concealed, sure=round(reading.concealed_sure, 2))
    if reading.winning is not None:
        add_group("winning", [reading.winning], sure=round(reading.winning_sure, 2))
    meld_groups = []
    for meld in reading.melds:
        add_group("meld", meld.tiles, kind=meld.kind, concealed=meld.concealed, sure=round(meld.sure, 2))
        meld_groups.append(len(layout.groups) - 1)
    if flowers:
        add_group("flowers", sorted(flowers, key=lambda i: geo.u[i]))
    if dora:
        add_group("dora", sorted(dora, key=lambda i: geo.u[i]))
    for k, seg in enumerate(segments):
        if hand_cluster is None or k not in hand_cluster or k in reading.others:
            add_group("other", seg)
    face_down_told = _tell_face_down(reading.melds, meld_groups, list(kongs), layout)
    layout.hand = _build_hand(reading, flowers, detections, layout.warnings) if face_down_told else None
    return layout, loose


# -- geometry ------------------------------------------------------------------------------------------------------
def _without_duplicates(dets: list[Detection], warnings: list[str], stacked: dict[int, int]) -> list[int]:
    """Indices of the detections to read: of two boxes on one tile (overlap over DUPLICATE_IOU) the more
    confident one is kept and the other left without a group; a tile and the one lying on it (``stacked``, top
    to the tile under it) are two tiles."""
    order = sorted(range(len(dets)), key=lambda i: -dets[i].confidence)
    boxes = [d.box for d in dets]
    same_tile = box_iou(boxes, boxes, np.float64) > DUPLICATE_IOU
    for top, base in stacked.items():
        same_tile[top, base] = same_tile[base, top] = False
    kept: list[int] = []
    for i in order:
        if same_tile[i, kept].any():
            warnings.append(msg("two boxes on one tile ({code}): the less confident one is left out",
                                code=dets[i].code))
            continue
        kept.append(i)
    return sorted(kept)


def _stacked(dets: list[Detection], geo: _Geometry) -> dict[int, int]:
    """The tiles lying on another tile of their code (``STACK_ALONG``, ``STACK_APART``, ``STACK_REACH``,
    ``STACK_REACH_ALONE``): top -> the tile under it, each tile in one pair at most."""
    n = len(dets)
    distance = np.hypot(*(geo.centres[:, None, :] - geo.centres[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(distance, np.inf)
    pairs = []
    for i in range(n):
        for j in range(i + 1, n):
            if dets[i].code != dets[j].code or not is_playing(dets[i].code):
                continue
            size = min(geo.size[i], geo.size[j])
            # the spacing of touching tiles where they lie: how far the one under lies from its nearest other tile
            # (the farther of the two's, as a top shifted along the row comes near a neighbour)
            others = np.delete(distance[[i, j]], [i, j], axis=1)
            spacing = float(others.min(axis=1).max()) if others.size else np.inf
            du, apart = abs(geo.u[i] - geo.u[j]), float(distance[i, j])
            if du < STACK_ALONG * min(spacing, 1.5 * size) and STACK_APART * size <= apart < STACK_REACH_ALONE * size:
                pairs.append((apart / size, i, j))
    out: dict[int, int] = {}
    paired: set[int] = set()
    for ratio, i, j in sorted(pairs):  # the closest pairs first
        if {i, j} & paired:
            continue
        top, base = _top_of(i, j, geo)
        if ratio < STACK_REACH or _alone(top, base, geo):
            out[top] = base
            paired |= {i, j}
    return out


def _alone(top: int, base: int, geo: _Geometry) -> bool:
    """Whether no tile lies beside ``top`` on its own line (within 1.5 tiles along it, half a tile across)."""
    return not any(k not in (top, base) and abs(geo.v[k] - geo.v[top]) < 0.5 * geo.across[top]
                   and abs(geo.u[k] - geo.u[top]) < 1.5 * geo.size[top] for k in range(len(geo.u)))


def _top_of(i: int, j: int, geo: _Geometry) -> tuple[int, int]:
    """Of two tiles one on the other, (the top, the one under it): the one under lies where its row's tiles
    either side put it (halfway between the nearest on each side), the top off that place; with no tile on
    either side, the top lies off the line of the tiles around, or (none around) farther up the photo's rows."""
    around = [k for k in range(len(geo.u)) if k not in (i, j) and abs(geo.v[k] - geo.v[i]) < geo.across[i]
              and abs(geo.u[k] - geo.u[i]) < 1.8 * geo.size[i]]
    left = [k for k in around if geo.u[k] < geo.u[i]]
    right = [k for k in around if geo.u[k] > geo.u[i]]
    if left and right:
        a = max(left, key=lambda k: geo.u[k])
        b = min(right, key=lambda k: geo.u[k])
        place = ((geo.u[a] + geo.u[b]) / 2, (geo.v[a] + geo.v[b]) / 2)
        off = [float(np.hypot(geo.u[k] - place[0], geo.v[k] - place[1])) for k in (i, j)]
        return (i, j) if off[0] > off[1] else (j, i)
    if around:
        line = float(np.median(geo.v[around]))
        return (i, j) if abs(geo.v[i] - line) > abs(geo.v[j] - line) else (j, i)
    return (i, j) if geo.v[i] < geo.v[j] else (j, i)


def row_angle(centres: np.ndarray, size: np.ndarray) -> float:
    """The dominant direction from each tile to its nearest neighbours (rows of touching tiles), in radians."""
    n = len(centres)
    if n < 2:
        return 0.0
    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    np.fill_diagonal(dist, np.inf)
    nearest = dist.argmin(axis=1)
    touching = dist[np.arange(n), nearest] < 1.8 * size
    if not touching.any():
        return 0.0
    step = diff[np.arange(n), nearest][touching]
    doubled = np.arctan2(step[:, 1], step[:, 0]) * 2
    # the mode of the doubled angles (rows have no head or tail), refined by a local mean
    close = np.abs(np.angle(np.exp(1j * (doubled[None, :] - doubled[:, None])))) < np.radians(20)
    best = int(close.sum(axis=1).argmax())  # the first of the most crowded, as a scan in order finds it
    mean = np.angle(np.mean(np.exp(1j * doubled[close[best]])))
    return float(mean / 2)


def _geometry(dets: list[Detection]) -> _Geometry:
    boxes = np.array([d.box for d in dets], float)
    w = np.maximum(boxes[:, 2] - boxes[:, 0], 1.0)
    h = np.maximum(boxes[:, 3] - boxes[:, 1], 1.0)
    centres = np.c_[(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2]
    short = np.minimum(w, h)
    theta = row_angle(centres, short)
    c, s = np.cos(theta), np.sin(theta)
    u = centres[:, 0] * c + centres[:, 1] * s
    v = -centres[:, 0] * s + centres[:, 1] * c
    n = len(dets)
    flags = np.zeros(n, bool)
    geo = _Geometry(u, v, short, w.copy(), h.copy(), flags, flags.copy(), centres, np.zeros((n, 2)), w, h)
    _turn(geo, np.arange(n), theta)
    return geo


def _turn(geo: _Geometry, tiles, theta: float) -> None:
    """Give ``tiles`` the row direction ``theta``: their along/across box sides and whether the row is diagonal."""
    d = np.array([np.cos(theta), np.sin(theta)])
    geo.direction[tiles] = d
    # a box's side along its row (its width for rows across the picture, its height for rows up and down)
    horizontal = abs(d[0]) >= abs(d[1])
    geo.along[tiles] = (geo.box_w if horizontal else geo.box_h)[tiles]
    geo.across[tiles] = (geo.box_h if horizontal else geo.box_w)[tiles]
    # rows more than ~10 degrees off the picture's axes: a box no longer shows whether its tile lies sideways
    geo.diagonal[tiles] = abs(np.sin(2 * theta)) > 0.35


def _rows(idx: list[int], geo: _Geometry) -> list[list[int]]:
    """Lines along the photo's dominant direction; then the tiles those left alone, along their own."""
    lines = _lines(idx, geo)
    alone = [line[0] for line in lines if len(line) == 1]
    if len(alone) >= 3:
        sub = np.array(alone)
        theta2 = row_angle(geo.centres[sub], geo.size[sub])
        theta1 = float(np.arctan2(geo.direction[alone[0], 1], geo.direction[alone[0], 0]))
        if abs(np.angle(np.exp(2j * (theta2 - theta1)))) / 2 > np.radians(SECOND_TURN):
            _turn(geo, sub, theta2)
            again = _lines(alone, geo)
            if max(len(line) for line in again) >= 3:
                lines = [line for line in lines if len(line) > 1] + again
            else:
                _turn(geo, sub, theta1)
    return lines


def _neighbours(side: int, idx: list[int], geo: _Geometry) -> dict[int, int | None]:
    """For each tile of ``idx``, the nearest tile on one side along its row (a cone about the row direction), or
    None; all pairs at once."""
    if not idx:
        return {}
    tiles = np.asarray(idx, dtype=int)
    delta = geo.centres[tiles][None, :, :] - geo.centres[tiles][:, None, :]  # row: from tile, column: to tile
    d = geo.direction[tiles][:, None, :]
    du = side * (delta[..., 0] * d[..., 0] + delta[..., 1] * d[..., 1])
    dv = np.abs(delta[..., 0] * d[..., 1] - delta[..., 1] * d[..., 0])
    unit = (geo.size[tiles][:, None] + geo.size[tiles][None, :]) / 2
    cone = np.where(du < 2.5 * unit, np.tan(np.radians(ROW_BEND)), np.tan(np.radians(ROW_BEND_FAR)))
    near = (du > 0) & (dv <= np.maximum(ROW_TOLERANCE * unit, cone * du)) & (du <= LINE_REACH * unit)
    np.fill_diagonal(near, False)
    distance = np.where(near, np.hypot(du, dv), np.inf)
    nearest = np.argmin(distance, axis=1)  # the first nearest, as the tiles are listed
    found = near.any(axis=1)
    return {i: int(tiles[nearest[k]]) if found[k] else None for k, i in enumerate(idx)}


def _lines(idx: list[int], geo: _Geometry) -> list[list[int]]:
    """Tiles chained to their nearest neighbours along the row direction, both ways: rows that may bend, with
    the gaps still in them. Each line is ordered along the row. Marks the sideways tiles of each line."""
    right, left = _neighbours(1, idx, geo), _neighbours(-1, idx, geo)
    nxt = {i: j for i, j in right.items() if j is not None and left[j] == i}
    has_prev = set(nxt.values())
    lines = []
    for i in sorted(idx, key=lambda k: geo.u[k]):
        if i in has_prev:
            continue
        line = [i]
        while line[-1] in nxt:
            line.append(nxt[line[-1]])
        lines.append(line)
    # a sideways tile: a box much longer along the row than its neighbours in the row (perspective changes the
    # boxes' shape slowly along a row, so only nearby tiles are compared)
    ratio = geo.along / geo.across
    overall = statistics.median(ratio[idx].tolist()) if idx else 1.0
    for line in lines:
        for k, i in enumerate(line):
            near = [j for j in range(max(0, k - 3), min(len(line), k + 4)) if j != k]
            values = ratio[[line[j] for j in near]].tolist()
            typical = statistics.median(values) if near else overall
            if len(near) >= 3:  # ... or the trend of the neighbours' shapes read at this tile's place, if higher
                slope, base = statistics.linear_regression(near, values)
                typical = max(typical, slope * k + base)
            geo.sideways[i] = ratio[i] > SIDEWAYS_RATIO * max(typical, 1e-6)
    return lines


def _spacings(line: list[int], geo: _Geometry) -> list[float]:
    """Centre distance of each pair of neighbours over the distance touching tiles would have: the local tile
    length across the row (boxes of upright tiles nearby) stands for the scale, a sideways tile counts 1.33."""
    upright = [i for i in line if not geo.sideways[i]] or line
    out = []
    for k, (a, b) in enumerate(zip(line, line[1:], strict=False)):
        near = [i for i in line[max(0, k - 2) : k + 4] if i in upright] or upright
        scale = statistics.median(geo.across[near].tolist())
        d = float(np.hypot(geo.u[a] - geo.u[b], geo.v[a] - geo.v[b]))
        length = (SIDEWAYS_LENGTH if geo.sideways[a] else 1.0) + (SIDEWAYS_LENGTH if geo.sideways[b] else 1.0)
        out.append(d / (scale * length / 2))
    return out


def _segments(lines: list[list[int]], geo: _Geometry,
              measure: set[int]) -> tuple[list[list[int]], list[int], list[float]]:
    """Cut each line where two neighbours lie farther apart than touching tiles nearby (by GAP_SPLIT of a tile).
    The touching spacing is measured on the photo itself, between tiles of ``measure`` only (flowers, often
    another art or size, and huddled, say little of how the hand's tiles touch): the median of the nearby pairs
    that are not gaps themselves, or the line's (or photo's) typical spacing. Returns the segments, each one's
    line, and the gap before each (the share of a tile its cut exceeds touching tiles by; inf for a line's
    first)."""
    spacings = [_spacings(line, geo) for line in lines]
    measured = [[k for k in range(len(line) - 1) if line[k] in measure and line[k + 1] in measure] for line in lines]
    every = [rs[k] for rs, ks in zip(spacings, measured, strict=True) for k in ks]
    typical = float(np.percentile(every, 30)) if every else 1.0
    segments, line_of, cuts = [], [], []
    # where a sideways tile cannot be told from its box, its wider spacing must not read as a gap
    for n, (line, rs, ks) in enumerate(zip(lines, spacings, measured, strict=True)):
        split = 1 + (GAP_SPLIT_DIAGONAL if geo.diagonal[line].mean() > 0.5 else GAP_SPLIT)
        # rows at other distances from the camera have their own spacing; long lines measure their own
        own = float(np.percentile([rs[k] for k in ks], 30)) if len(ks) >= 4 else typical
        # first cut where the gap is plain to see, so that each part measures its own touching spacing
        parts, start = [], 0
        for k, r in enumerate(rs):
            if r > CLEAR_GAP * own:
                parts.append((start, k + 1))
                start = k + 1
        parts.append((start, len(line)))
        cut = float("inf")
        for lo, hi in parts:
            current = [line[lo]]
            for k in range(lo, hi - 1):
                window = [rs[j] for j in range(max(lo, k - 2), min(hi - 1, k + 3)) if j != k and j in ks]
                # the touching spacing nearby: the median of the neighbouring pairs that are not gaps themselves
                touching = [r for r in window if r < (1 + GAP_SPLIT) * min(window)]
                ref = min(statistics.median(touching), own * 1.15) if window else own
                if rs[k] > split * ref:
                    segments.append(current)
                    line_of.append(n)
                    cuts.append(cut)
                    current, cut = [], rs[k] / ref - 1
                current.append(line[k + 1])
            segments.append(current)
            line_of.append(n)
            cuts.append(cut)
            cut = rs[hi - 1] / own - 1 if hi < len(line) else float("inf")
    return segments, line_of, cuts


def _only(tiles: set[int], segments: list[list[int]], line_of: list[int],
          cuts: list[float]) -> tuple[list[list[int]], list[int], list[float]]:
    """The segments (with their lines and the gaps before them) cut down to ``tiles``, those left empty dropped
    (the gap after one of those is no longer known: inf). Rows are cut with the bonus tiles in them, then cut down
    to the playing tiles, so that flowers lying in a row between its tiles take their place in it, not a gap."""
    out: tuple[list[list[int]], list[int], list[float]] = ([], [], [])
    dropped = False
    for seg, line, cut in zip(segments, line_of, cuts, strict=True):
        seg = [i for i in seg if i in tiles]
        if not seg:
            dropped = True
            continue
        out[0].append(seg)
        out[1].append(line)
        out[2].append(float("inf") if dropped else cut)
        dropped = False
    return out


def _mend_uneven(segments: list[list[int]], line_of: list[int], cuts: list[float], dets: list[Detection],
                 geo: _Geometry) -> tuple[list[list[int]], list[int], list[float]]:
    """Undo the cuts a row's uneven touch makes: two neighbouring runs of a line, each of two tiles or more and
    no face-down tile, at most one of them a meld, with less than MEND_GAP of a tile between them, are one run
    (a set inside the concealed row pushed a little apart is not a meld laid down; a meld is set apart by more,
    and a single tile apart may be the winning tile). Returns the runs, their lines and the gaps before them."""
    out: list[list[int]] = []
    lines: list[int] = []
    gaps: list[float] = []
    for k, seg in enumerate(segments):
        if out and lines[-1] == line_of[k] and cuts[k] < MEND_GAP and _mendable(out[-1], seg, dets, geo):
            out[-1] = out[-1] + seg
        else:
            out.append(list(seg))
            lines.append(line_of[k])
            gaps.append(cuts[k])
    return out, lines, gaps


def _mendable(a: list[int], b: list[int], dets: list[Detection], geo: _Geometry) -> bool:
    if min(len(a), len(b)) < 2 or any(dets[i].code == "back" for i in (*a, *b)):
        return False
    return not (_is_meld_shape(a, dets, geo) and _is_meld_shape(b, dets, geo))


def _seg_gap(a: list[int], b: list[int], geo: _Geometry) -> float:
    """How far apart two segments lie, edge to edge, as a share of the reach of a hand (1 = at the limit): along
    the row in tile widths (NEAR_ALONG), across it in tile lengths (NEAR_ACROSS, which shrink with the camera's
    tilt as distances across the rows do)."""
    if not a or not b:
        return float(np.inf)
    i, j = np.asarray(a)[:, None], np.asarray(b)[None, :]  # every pair of tiles, one from each segment
    width = (geo.along[i] + geo.along[j]) / 2
    length = (geo.across[i] + geo.across[j]) / 2
    du = np.maximum(0.0, np.abs(geo.u[i] - geo.u[j]) - width)
    dv = np.maximum(0.0, np.abs(geo.v[i] - geo.v[j]) - length)
    return float(np.hypot(du / (width * NEAR_ALONG), dv / (length * NEAR_ACROSS)).min())


# -- dora indicators -----------------------------------------------------------------------------------------------
def _dora_row(cluster: set[int] | None, segments: list[list[int]], line_of: list[int], table: list[int],
              dets: list[Detection], geo: _Geometry) -> list[int]:
    """The tiles of the row of dora indicators above the hand (``DORA_GAP``, ``DORA_REACH``, ``DORA_MOST``), or
    none. The hand is its concealed row's line and its melds (those a hand's reach away that are meld-shaped); the
    row is the nearest line of tiles above it, when every run of it that lies along the hand is face up, no meld of
    the hand, and set apart (a row touching the hand, or with a row between, is none), and no other tile of the
    ``table`` (the tiles read, bonus tiles aside) lies beside it (a tile of a heap is none)."""
    if not cluster:
        return []
    meld = {k: _is_meld_shape(segments[k], dets, geo) for k in cluster}
    plain = [k for k in cluster if not meld[k] and not any(dets[i].code == "back" for i in segments[k])]
    if not plain:
        return []
    row = max(plain, key=lambda k: len(segments[k]))
    hand = np.array([i for k in cluster if meld[k] or line_of[k] == line_of[row] for i in segments[k]])
    top = float((geo.v[hand] - geo.across[hand] / 2).min())
    length, width = float(np.median(geo.across[hand])), float(np.median(geo.along[hand]))
    lo, hi = geo.u[hand].min() - NEAR_ALONG * width, geo.u[hand].max() + NEAR_ALONG * width
    above: dict[int, float] = {}  # the runs along the hand that lie above its top edge (by half a tile at least)
    for k, seg in enumerate(segments):
        tiles = np.asarray(seg)
        if line_of[k] == line_of[row] or meld.get(k) or geo.u[tiles].max() < lo or geo.u[tiles].min() > hi:
            continue
        gap = (top - float((geo.v[tiles] + geo.across[tiles] / 2).max())) / length
        if -0.5 < gap <= DORA_REACH:
            above[k] = gap
    if not above:
        return []
    line = line_of[min(above, key=lambda k: above[k])]
    runs = [k for k in above if line_of[k] == line]
    tiles = [i for k in runs for i in segments[k]]
    if len(tiles) > DORA_MOST or any(above[k] < DORA_GAP for k in runs) or any(
            dets[i].code == "back" or not lo <= geo.u[i] <= hi for i in tiles):
        return []
    apart = set(tiles) | set(hand.tolist())
    rest = np.array([j for j in table if j not in apart], dtype=int)
    if rest.size and any(((np.abs(geo.u[rest] - geo.u[i]) < 1.5 * width)
                          & (np.abs(geo.v[rest] - geo.v[i]) < length)).any() for i in tiles):
        return []
    return tiles


def _cluster_size(members: set[int] | None, segments: list[list[int]], dets: list[Detection], geo: _Geometry) -> int:
    """The tiles of a hand's segments as ``_find_hand`` counts them: a meld as three."""
    return sum(3 if _is_meld_shape(segments[k], dets, geo) else len(segments[k]) for k in members or ())


def _bonus_in_dora_row(dora: list[int], flowers: list[int], dets: list[Detection], geo: _Geometry) -> list[str]:
    """A warning where bonus tiles lie in the row of dora indicators: they are read as flowers all the same."""
    tiles = np.asarray(dora)
    width = float(np.median(geo.along[tiles]))
    near = [i for i in flowers if abs(geo.v[i] - float(np.median(geo.v[tiles]))) < float(np.median(geo.across[tiles]))
            and geo.u[tiles].min() - 1.5 * width <= geo.u[i] <= geo.u[tiles].max() + 1.5 * width]
    if not near:
        return []
    names = " ".join(dets[i].code for i in sorted(near, key=lambda i: geo.u[i]))
    return [f"bonus tiles ({names}) lie in the row of dora indicators: they are read as flowers, the other tiles "
            f"as dora indicators"]


# -- reading -------------------------------------------------------------------------------------------------------
@dataclass
class _Meld:
    kind: str
    tiles: list[int]
    concealed: bool
    codes: list[str] | None  # None when every tile is face down
    sideways: int | None = None
    note: str | None = None  # how the meld was read when a tile's first reading did not fit
    sure: float = 1.0  # how sure the layout is of the meld (``SURE_GAP``)


@dataclass
class _Reading:
    concealed: list[int] = field(default_factory=list)
    winning: int | None = None
    melds: list[_Meld] = field(default_factory=list)
    others: list[int] = field(default_factory=list)  # segments near the hand that are not part of it (walls)
    concealed_sure: float = 1.0
    winning_sure: float = 1.0


def _meld_of(seg: list[int], dets: list[Detection], geo: _Geometry) -> _Meld | None:
    """The meld a segment of 3 or 4 tiles forms, or None when its tiles are not a meld. When they are not, but
    would be with one tile read as its detector's runner-up (and only one such reading exists), that meld is
    returned with a note saying so."""
    codes = [dets[i].code for i in seg]
    meld = _meld_from_codes(seg, codes, geo)
    if meld is not None or len(seg) not in (3, 4):
        return meld
    found = []
    for k, i in enumerate(seg):
        for alt, confidence in dets[i].alternatives[:ALTERNATIVES_TRIED]:
            if confidence < ALTERNATIVE_MIN or alt == codes[k]:
                continue
            repaired = _meld_from_codes(seg, [*codes[:k], alt, *codes[k + 1 :]], geo)
            if repaired is not None:
                repaired.note = msg("read {code} as {alt} (its second reading) to make a {kind}",
                                    code=codes[k], alt=alt, kind=repaired.kind)
                found.append(repaired)
    return found[0] if len(found) == 1 else None


def _meld_from_codes(seg: list[int], codes: list[str], geo: _Geometry) -> _Meld | None:
    faces = [c for c in codes if c != "back"]
    backs = len(codes) - len(faces)
    turned = [k for k, i in enumerate(seg) if geo.sideways[i]]
    sideways = turned[0] if len(turned) == 1 else None
    if len(seg) == 3 and not backs:
        if len(set(faces)) == 1:
            return _Meld("pung", seg, False, faces, sideways)
        ordered = sorted(faces, key=sort_key)
        suit = {c[1] for c in ordered}
        if len(suit) == 1 and suit <= set("mps") and [int(c[0]) for c in ordered] == list(
            range(int(ordered[0][0]), int(ordered[0][0]) + 3)
        ):
            return _Meld("chow", seg, False, faces, sideways)
        return None
    if len(seg) == 4 and len(set(faces)) <= 1:
        if backs == 0:
            return _Meld("kong", seg, False, faces, sideways)
        return _Meld("kong", seg, True, [faces[0]] * 4 if faces else None)
    return None


def _is_meld_shape(seg: list[int], dets: list[Detection], geo: _Geometry) -> bool:
    return _meld_of(seg, dets, geo) is not None


def _find_hand(segments: list[list[int]], line_of: list[int], cuts: list[float], dets,
               geo: _Geometry) -> tuple[set[int] | None, set[int]]:
    """The segments that make the hand. Each run that is not a meld is tried as the concealed row, and grown by
    the segments within a hand's reach of it (nearest first; melds and single tiles before other runs, which join
    only while the hand is short of tiles). The reading that wins: its tile count within one of a hand's, then
    the fewest stray pieces (segments other than the seed that are not melds, the winning tile's place beside
    the seed excepted: a stray tile far off is no better a concealed row for being alone), then the count
    nearest a hand's, then the longest concealed row. Where no reading comes within one tile of a hand (tiles
    missed or misread break the hand into pieces), stray pieces are not counted: the most tiles win, not a pair
    of tiles far off (another player's) for being whole. Rows of backs alone (walls) never join. Also returns the
    segments within reach that were left out (other than walls), for the warnings."""
    n = len(segments)
    if not n:
        return None, set()
    gap = np.array([[_seg_gap(segments[a], segments[b], geo) if a != b else 0.0 for b in range(n)] for a in range(n)])
    wall = _walls(segments, line_of, cuts, dets)
    meld = [not wall[k] and _is_meld_shape(s, dets, geo) for k, s in enumerate(segments)]
    seeds = [k for k in range(n) if not meld[k] and not wall[k]] or [k for k in range(n) if meld[k]]
    if not seeds:
        return None, set()
    largest = max(HAND_SIZES)

    def grow(seed: int) -> tuple[set[int], int, set[int]]:
        members, refused = {seed}, set()
        count = 3 if meld[seed] else len(segments[seed])
        while True:
            reach = [m for m in range(n) if m not in members and m not in refused and gap[m, list(members)].min() < 1]
            if not reach:
                return members, count, {k for k in refused if not wall[k]}
            m = min(reach, key=lambda k: (not meld[k] and len(segments[k]) > 1, gap[k, list(members)].min()))
            size = 3 if meld[m] else len(segments[m])
            stray = not meld[m] and size > 1
            if wall[m] or count + size > largest or (stray and count >= min(HAND_SIZES)):
                refused.add(m)
            else:
                members.add(m)
                count += size

    def score(seed: int) -> tuple:
        members, count, left_out = grow(seed)
        miss = min(abs(count - h) for h in HAND_SIZES)
        beside = {k for k in (seed - 1, seed + 1) if k in members and len(segments[k]) == 1
                  and line_of[k] == line_of[seed]}  # where the winning tile lies
        stray = sum(not meld[k] for k in members - beside - {seed})
        near = miss <= 1
        return (near, -stray if near else 0, -miss, len(segments[seed]), count), members, left_out

    best = max((score(k) for k in seeds), key=lambda t: t[0])
    return best[1], best[2]


def _walls(segments: list[list[int]], line_of: list[int], cuts: list[float], dets: list[Detection]) -> list[bool]:
    """Per segment, whether it is a row of backs alone that is no concealed kong: any but four backs, and four
    whose line runs on into more backs (a face-down row, another player's or the wall, broken by the boxes), unless
    those are four backs too, set apart by MEND_GAP or more (two concealed kongs side by side)."""
    backs = [all(dets[i].code == "back" for i in seg) for seg in segments]

    def runs_on(k: int) -> bool:
        return any(0 <= j < len(segments) and line_of[j] == line_of[k] and backs[j]
                   and (len(segments[j]) != 4 or cuts[max(j, k)] < MEND_GAP) for j in (k - 1, k + 1))

    return [backs[k] and (len(seg) != 4 or runs_on(k)) for k, seg in enumerate(segments)]


def _read_hand(ids: list[int], segments: list[list[int]], line_of: list[int], cuts: list[float], dets,
               geo: _Geometry, warnings: list[str]) -> _Reading:
    """Roles inside the hand's cluster of segments (given by index, in line order; ``cuts``: the gap before
    each on its line)."""
    reading = _Reading()
    if not ids:
        warnings.append(msg("no hand found among the tiles"))
        return reading
    is_wall = _walls(segments, line_of, cuts, dets)
    melds = {k: None if is_wall[k] else _meld_of(segments[k], dets, geo) for k in ids}
    walls = [k for k in ids if is_wall[k]]
    reading.others.extend(walls)
    plain = [k for k in ids if melds[k] is None and k not in walls]
    concealed: int | None = None
    if not plain:
        # every segment is meld-shaped: the hand's concealed part is missing, or a set was laid apart
        warnings.append(msg("no concealed row found: every group of tiles looks like a meld"))
    else:
        concealed = max(plain, key=lambda k: (len(segments[k]), -sum(dets[i].code == "back" for i in segments[k])))
        reading.concealed = list(segments[concealed])
    reading.melds = [melds[k] for k in ids if melds[k] is not None]
    for k in ids:
        if melds[k] is not None:
            apart = _apart_by(k, line_of, cuts, {j for j in plain if j != k})
            melds[k].sure = min(_gap_sure(apart), SURE_RUNNER_UP if melds[k].note else 1.0)
    warnings.extend(m.note for m in reading.melds if m.note)
    # the winning tile: a single tile that is the next segment on the concealed row's line, at either end; or the
    # one after it, set apart farther (the first then lies apart only by the row's uneven touch)
    absorbed: list[int] = []
    if concealed is not None:
        def single(k: int) -> bool:
            return k in plain and line_of[k] == line_of[concealed] and len(segments[k]) == 1

        ends, beyond = [], {}
        for step in (-1, 1):
            k = concealed + step
            if single(k):
                far = k + step
                if single(far) and cuts[max(k, far)] > cuts[max(concealed, k)]:
                    beyond[far] = k
                    far_end = far
                else:
                    far_end = k
                ends.append(far_end)
        if len(ends) == 1:
            reading.winning = segments[ends[0]][0]
            reading.winning_sure = _gap_sure(cuts[ends[0] if ends[0] > concealed else ends[0] + 1])  # the gap between
            if ends[0] in beyond:
                absorbed.append(beyond[ends[0]])
                reading.concealed.extend(segments[beyond[ends[0]]])
        elif len(ends) > 1:
            warnings.append(msg("a single tile lies apart at both ends of the concealed row: the winning tile "
                                "is unclear"))
        else:
            end = _end_set_apart(segments[concealed], dets, geo, _hand_spacing(ids, segments, geo))
            if end is not None:
                reading.winning = reading.concealed.pop(end)
                reading.winning_sure = SURE_END
    winning_seg = [reading.winning] if reading.winning is not None else None
    extra = [k for k in plain if k != concealed and segments[k] != winning_seg and k not in absorbed]
    core = len(reading.concealed) + 3 * len(reading.melds) + (reading.winning is not None)
    for k in extra:
        names = " ".join(dets[i].code for i in segments[k])
        if core in HAND_SIZES:  # the hand is whole without them: tiles lying near it, not part of it
            warnings.append(msg("tiles near the hand ({names}) were left out: the hand is complete without "
                                "them", names=names))
            reading.others.append(k)
        else:
            warnings.append(msg("tiles set apart that are not a meld ({names}) were read as part of the "
                                "concealed hand", names=names))
            reading.concealed.extend(segments[k])
            reading.concealed_sure = SURE_FOLDED
    if any(dets[i].code == "back" for i in reading.concealed):
        warnings.append(msg("face-down tiles among the concealed tiles: their faces are unknown"))
    return reading


def _apart_by(k: int, line_of: list[int], cuts: list[float], plain: set[int]) -> float:
    """How far segment ``k`` lies from the runs of ``plain`` beside it on its line (the concealed row, single
    tiles), which it might belong to: the narrower gap (inf where none lies beside it; a meld beside a meld is
    plain whatever the gap)."""
    before = cuts[k] if k - 1 in plain and line_of[k - 1] == line_of[k] else float("inf")
    after = cuts[k + 1] if k + 1 in plain and line_of[k + 1] == line_of[k] else float("inf")
    return min(before, after)


def _gap_sure(gap: float) -> float:
    """How sure a group set apart by ``gap`` (tiles beyond touching) is: SURE_LEAST at MEND_GAP, 1 from SURE_GAP."""
    return float(np.clip((gap - MEND_GAP) / (SURE_GAP - MEND_GAP), SURE_LEAST, 1.0))


def _end_set_apart(row: list[int], dets: list[Detection], geo: _Geometry, hand_spacing: float) -> int | None:
    """The position (0 or -1) of a tile at one end of the concealed row that lies apart from it by less than a
    cut but clearly more than the row's tiles touch: its spacing END_SPLIT times the row's median inner spacing
    (one uneven touch inside does not move a median; a row shorter than END_MIN_ROW has the hand's spacing
    instead) and END_OVER times every other spacing of the row, and a face-up tile. None when neither end is
    so, or both are and the two are not one code (a pair wait: either tile is the same hand)."""
    if len(row) < 2:
        return None
    rs = _spacings(row, geo)
    typical = statistics.median(rs[1:-1]) if len(row) >= END_MIN_ROW else hand_spacing
    found = [pos for pos, r, others in ((0, rs[0], rs[1:]), (-1, rs[-1], rs[:-1]))
             if r > END_SPLIT * typical and r > END_OVER * max(others, default=0.0) and is_playing(dets[row[pos]].code)]
    if len(found) == 2 and len(row) == 2 and dets[row[0]].code == dets[row[1]].code:
        return -1
    return found[0] if len(found) == 1 else None


def _hand_spacing(ids: list[int], segments: list[list[int]], geo: _Geometry) -> float:
    """How far apart touching tiles of the hand lie (``_spacings``' measure): the median over its runs."""
    spacings = [r for k in ids for r in _spacings(segments[k], geo) if len(segments[k]) > 1]
    return statistics.median(spacings) if spacings else float("inf")


def _stack_on_pungs(melds: list[_Meld], stacked: dict[int, int], dets: list[Detection],
                    warnings: list[str]) -> set[int]:
    """Each pung with a tile of its code lying on one of its tiles becomes an exposed kong of the four (the top
    listed after the tile under it). Returns the tiles lying elsewhere, left out of the hand and said so."""
    loose = set()
    for top, base in sorted(stacked.items()):
        meld = next((m for m in melds if base in m.tiles), None)
        if meld is None or meld.kind != "pung" or meld.codes is None or meld.codes[0] != dets[top].code:
            warnings.append(msg("a tile ({code}) lies on another but not on a pung of its code: it is left "
                                "out of the hand", code=dets[top].code))
            loose.add(top)
            continue
        k = meld.tiles.index(base)
        meld.tiles = [*meld.tiles[: k + 1], top, *meld.tiles[k + 1 :]]
        meld.codes = [*meld.codes, dets[top].code]
        meld.kind = "kong"
        if meld.sideways is not None and meld.sideways > k:
            meld.sideways += 1
    return loose


def _tell_face_down(melds: list[_Meld], groups: list[int], answers: list[str], layout: Layout) -> bool:
    """Give each concealed kong of four backs its tile from ``answers`` (in order), marking its group
    ``face_down`` and, once told, its ``tile``; ask for each left without one (``FACE_DOWN_KONG``) and say which
    answers were left over (``KONG_ANSWER_UNUSED``). Whether every such kong has its tile."""
    told = True
    for meld, g in zip(melds, groups, strict=True):
        if meld.codes is not None:
            continue
        layout.groups[g]["face_down"] = True
        if answers:
            code = answers.pop(0)
            meld.codes = [code] * 4
            layout.groups[g]["tile"] = code
            continue
        told = False
        layout.warn(msg("a concealed kong shows four backs (group {g}): which tile it is cannot be seen; give "
                        "it to score the hand (mjlens photo --kong-tile CODE, or the field kongs: one code "
                        "per such kong, in order)", g=g),
                    FACE_DOWN_KONG, group=g)
    if answers:
        layout.warn(msg("kong tile(s) {answers} given, but no other concealed kong shows four backs: not used",
                        answers=' '.join(answers)), KONG_ANSWER_UNUSED)
    return told


def _build_hand(reading: _Reading, flowers: list[int], dets, warnings: list[str]) -> Hand | None:
    if not reading.concealed and reading.winning is None:
        return None
    melds = []
    for m in reading.melds:
        assert m.codes is not None, "a kong of four backs is told its tile before the hand is built"
        backs = sum(dets[i].code == "back" for i in m.tiles)
        if m.concealed and backs not in (2, 4):
            warnings.append(msg("a concealed kong of {codes} shows {backs} face-down tile(s), not 2 or 4",
                                codes=m.codes[0], backs=backs))
        claimed = m.codes[m.sideways] if m.sideways is not None else None
        source = None
        if m.sideways is not None:
            last = len(m.tiles) - 1
            source = "left" if m.sideways == 0 else ("right" if m.sideways == last else "across")
        tiles = tuple(sorted(m.codes, key=sort_key))
        melds.append(Meld(m.kind, tiles, m.concealed, claimed, source))
    codes = [dets[i].code for i in reading.concealed]
    if any(not is_playing(c) for c in codes):
        return None
    winning = dets[reading.winning].code if reading.winning is not None else None
    bonus = tuple(sorted((dets[i].code for i in flowers), key=sort_key))
    hand = Hand(tuple(sorted(codes, key=sort_key)), tuple(melds), winning, bonus)
    try:
        validate_structure(hand)
    except HandError as err:
        warnings.append(msg("the tiles do not form a hand: {message}", message=err.message))
        return None
    size = hand.effective_size()
    if size not in HAND_SIZES:
        warnings.append(msg("{size} tiles read (a kong counts as three); a hand has 14, or 17 in Taiwan rules",
                            size=size))
    if winning is None:
        warnings.append(msg("the winning tile is not set apart: it is left open"))
    return hand
