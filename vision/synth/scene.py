"""Where every tile lies on the table, in tile units (a tile face is 1 wide and TILE_H long).

A scene is the winning hand laid out the way people photograph it (the concealed row, melds set apart, flowers to
one side, the winning tile sometimes set apart at the end of the row) plus clutter far from it (discards, wall
rows, loose tiles). Rendering and labelling work from this list alone.

With table habits (``mjlens synth --habits``) a share of scenes also shows what real photos show: one uneven
gap inside the concealed row (two tiles touching unevenly, one pushed a little out of line), the winning tile set
apart by a modest gap, another player's tiles in the background (a face-down row, and their exposed melds,
turned to their seat, farther off), and exposed kongs laid as three with the fourth stacked on the middle one.
Habits draw from a generator of their own (stacking from one more), so the hand and every other draw stay those
of the same scene without habits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mjlens.vision.synth.hands import HandShown, MeldShown, TilePool

TILE_H = 1.33  # face length / face width of a Hong Kong style tile
#: Clutter keeps this far (tile widths) from the hand's bounds, which reach half a tile beyond its tiles.
CLUTTER_MARGIN = 3.5
#: Where the melds go relative to the concealed row (weights).
MELD_PLACES = {"same_row": 0.4, "front_row": 0.3, "back_row": 0.12, "left": 0.18}
#: Where the flowers go (weights).
FLOWER_PLACES = {"with_melds": 0.35, "left": 0.25, "right": 0.2, "own_row": 0.2}


@dataclass(frozen=True)
class Habits:
    """How often, and how strongly, scenes show the table habits of real photos (tile widths, degrees)."""

    p_uneven: float = 0.6  # share of concealed rows (of 4 tiles or more) with one uneven gap inside
    uneven_gap: tuple[float, float] = (0.1, 0.35)  # that gap, on top of the row's own (less than a winning gap)
    uneven_shift: float = 0.12  # the tile after it pushed this far out of line at most
    uneven_turn: float = 4.0  # ... and turned this far at most
    winning_gap: tuple[float, float] = (0.4, 1.2)  # the winning tile set apart by this
    p_background: float = 0.45  # share of scenes with another player's tiles in the background
    #: Which seat the other player sits at (weights): across the table, or on either side.
    seats: tuple[tuple[str, float, float], ...] = (("opposite", 180.0, 0.5), ("left", 90.0, 0.25),
                                                    ("right", -90.0, 0.25))
    background_distance: tuple[float, float] = (CLUTTER_MARGIN, 7.0)  # from the hand's bounds
    background_row: tuple[int, int] = (8, 14)  # tiles in their face-down row
    background_melds: tuple[int, int] = (0, 3)  # their exposed melds, face up
    p_stacked: float = 0.35  # share of exposed kongs laid as three with the fourth on the middle one


@dataclass
class Placed:
    """One tile on the table: ``shown`` is its code or "back" when face down; x, y its centre; angle in degrees;
    ``level`` 1 for a tile lying on another; ``side`` for a tile lying on its long side (an edge shows, no face);
    ``standing`` for a tile standing on its short edge, its face turned to the player (+y)."""

    shown: str
    hidden: str
    x: float
    y: float
    angle: float = 0.0
    group: int | None = None
    level: int = 0
    side: bool = False
    standing: bool = False


@dataclass
class Scene:
    tiles: list[Placed] = field(default_factory=list)
    groups: list[dict] = field(default_factory=list)  # role, kind, concealed, tiles: indices into ``tiles``
    hand: dict | None = None  # Hand JSON the layout step should read

    def hand_bounds(self) -> tuple[float, float, float, float]:
        pts = [(t.x, t.y) for t in self.tiles if t.group is not None and self.groups[t.group]["role"] != "other"]
        xs, ys = zip(*pts, strict=True)
        return min(xs) - 1, min(ys) - TILE_H, max(xs) + 1, max(ys) + TILE_H


def _pick(rng: np.random.Generator, weights: dict[str, float]) -> str:
    keys = list(weights)
    p = np.array(list(weights.values()))
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


class _RowWriter:
    """Lays tiles left to right along a row whose bottom edge (the player's side) is at ``base``."""

    def __init__(self, scene: Scene, rng: np.random.Generator, x: float, base: float, pitch_gap: float):
        self.scene, self.rng, self.x, self.base, self.pitch_gap = scene, rng, x, base, pitch_gap

    def tile(self, shown: str, hidden: str, group: int, sideways: bool = False, shift: float = 0.0,
             turn: float = 0.0) -> None:
        along = TILE_H if sideways else 1.0
        across = 1.0 if sideways else TILE_H
        jitter = self.rng.normal(0, 0.015, 2)
        cx = self.x + along / 2 + jitter[0]
        cy = self.base - across / 2 + jitter[1] + shift
        angle = (90.0 if sideways else 0.0) + float(self.rng.normal(0, 1.2)) + turn
        self.scene.tiles.append(Placed(shown, hidden, cx, cy, angle, group))
        self.scene.groups[group]["tiles"].append(len(self.scene.tiles) - 1)
        self.x += along + self.pitch_gap * float(self.rng.uniform(0.3, 1.0))

    def gap(self, lo: float, hi: float) -> None:
        self.x += float(self.rng.uniform(lo, hi))

    def group(self, role: str, **extra) -> int:
        self.scene.groups.append({"role": role, **extra, "tiles": []})
        return len(self.scene.groups) - 1

    def meld(self, meld: MeldShown) -> None:
        g = self.group("meld", kind=meld.kind, concealed=meld.concealed, **({"stacked": True} if meld.stacked else {}))
        laid = meld.tiles[:3] if meld.stacked else meld.tiles
        turned = min(meld.sideways, len(laid) - 1) if meld.sideways is not None else None
        for i, code in enumerate(laid):
            self.tile("back" if i in meld.backs else code, code, g, sideways=(i == turned))
            if meld.stacked and i == 1:  # the fourth lies on the middle tile, listed after it as the layout reads it
                under = self.scene.tiles[-1]
                jitter = self.rng.normal(0, 0.02, 2)
                self.scene.tiles.append(Placed(meld.tiles[3], meld.tiles[3], under.x + jitter[0],
                                               under.y + jitter[1], under.angle, g, level=1))
                self.scene.groups[g]["tiles"].append(len(self.scene.tiles) - 1)


#: How far behind the row's edge (the player's side) a standing tile's centre lies: half its thickness.
STANDING_DEPTH = 0.35


def stand_row(scene: Scene) -> None:
    """Stand the concealed row and a winning tile set apart up, faces to the player, as a player shows a hand
    without laying it down; melds and flowers stay flat. Each tile keeps its place along the row."""
    for group in scene.groups:
        if group["role"] in ("concealed", "winning"):
            for i in group["tiles"]:
                tile = scene.tiles[i]
                tile.y += TILE_H / 2 - STANDING_DEPTH
                tile.standing = True


def stack_kongs(rng: np.random.Generator, shown: HandShown, share: float) -> None:
    """Lay that ``share`` of the exposed kongs as three with the fourth on the middle one. A claimed tile turned
    sideways third or fourth is the row's last (the Hand JSON says it came from the right)."""
    for meld in shown.melds:
        if meld.kind == "kong" and not meld.concealed and rng.random() < share:
            meld.stacked = True
            if meld.sideways == 2:
                meld.sideways = 3


def layout_hand(rng: np.random.Generator, shown: HandShown, habits: Habits | None = None,
                habit_rng: np.random.Generator | None = None, stack_rng: np.random.Generator | None = None) -> Scene:
    """Place the hand's tiles: concealed row at y = 0 running along +x, melds and flowers set apart. With
    ``habits`` (drawn from ``habit_rng``): an uneven gap inside the row, the winning tile set apart modestly; and
    (drawn from ``stack_rng``) exposed kongs stacked."""
    if habits is not None and stack_rng is not None:
        stack_kongs(stack_rng, shown, habits.p_stacked)
    scene = Scene(hand=shown.hand_json())
    gap = float(rng.uniform(0.0, 0.06))
    meld_place = _pick(rng, MELD_PLACES) if shown.melds else "same_row"
    flower_place = _pick(rng, FLOWER_PLACES) if shown.flowers else "right"
    if flower_place == "with_melds" and meld_place == "left":
        flower_place = "left"
    row = _RowWriter(scene, rng, 0.0, TILE_H / 2, gap)

    def flowers(writer: _RowWriter) -> None:
        g = writer.group("flowers")
        for f in shown.flowers:
            writer.tile(f, f, g)

    def melds(writer: _RowWriter) -> None:
        for i, m in enumerate(shown.melds):
            if i:
                writer.gap(0.5, 1.3)
            writer.meld(m)

    if flower_place == "left":
        flowers(row)
        row.gap(0.6, 1.6)
    if meld_place == "left":
        melds(row)
        if flower_place == "with_melds":
            row.gap(0.5, 1.3)
            flowers(row)
        row.gap(0.6, 1.6)
    concealed = row.group("concealed")
    uneven = None  # the row's tile after which an uneven gap opens, with the gap, shift and turn
    if habits is not None:
        if habit_rng is None:
            raise ValueError("table habits need a generator of their own")
        # inside the row: a gap before its last tile or after its first would be a tile set apart
        if len(shown.row) >= 4 and habit_rng.random() < habits.p_uneven:
            uneven = (int(habit_rng.integers(1, len(shown.row) - 2)), float(habit_rng.uniform(*habits.uneven_gap)),
                      float(habit_rng.uniform(-1, 1)) * habits.uneven_shift,
                      float(habit_rng.uniform(-1, 1)) * habits.uneven_turn)
        winning_gap = float(habit_rng.uniform(*habits.winning_gap))

    def winning_gap_apart() -> None:
        start = row.x
        row.gap(0.5, 1.5)
        if habits is not None:
            row.x = start + winning_gap

    if shown.winning_apart and shown.winning_side == "left":
        row.tile(shown.winning, shown.winning, row.group("winning"))
        winning_gap_apart()
    for k, code in enumerate(shown.row):
        if uneven is not None and k == uneven[0] + 1:
            row.x += uneven[1]
            row.tile(code, code, concealed, shift=uneven[2], turn=uneven[3])
        else:
            row.tile(code, code, concealed)
    if shown.winning_apart and shown.winning_side == "right":
        winning_gap_apart()
        row.tile(shown.winning, shown.winning, row.group("winning"))
    if meld_place == "same_row":
        row.gap(0.6, 1.6)
        melds(row)
        if flower_place == "with_melds":
            row.gap(0.5, 1.3)
            flowers(row)
    elif meld_place in ("front_row", "back_row"):
        offset = TILE_H + float(rng.uniform(0.35, 1.4))
        base = row.base + (offset if meld_place == "front_row" else -offset)
        second = _RowWriter(scene, rng, float(rng.uniform(-1.0, 3.0)), base, gap)
        melds(second)
        if flower_place == "with_melds":
            second.gap(0.5, 1.3)
            flowers(second)
    elif flower_place == "with_melds":  # no melds at all: flowers follow the row
        flower_place = "right"
    if flower_place == "right":
        row.gap(0.6, 1.6)
        flowers(row)
    elif flower_place == "own_row":
        offset = TILE_H + float(rng.uniform(0.4, 1.4))
        side = -1 if meld_place == "front_row" else 1
        flowers(_RowWriter(scene, rng, float(rng.uniform(-1, 4)), row.base + side * offset, gap))
    return scene


def add_clutter(rng: np.random.Generator, scene: Scene, pool: TilePool) -> None:
    """Discards, wall rows and loose tiles, at least CLUTTER_MARGIN tile widths away from the hand's bounds."""
    x0, y0, x1, y1 = scene.hand_bounds()
    m = CLUTTER_MARGIN
    taken: list[tuple[float, float, float, float]] = [(x0 - m, y0 - m, x1 + m, y1 + m)]
    for _ in range(int(rng.integers(1, 4))):
        kind = _pick(rng, {"discards": 0.5, "wall": 0.3, "loose": 0.2})
        if kind == "discards":
            cols, rows = int(rng.integers(3, 7)), int(rng.integers(1, 4))
            w, h = cols * 1.05, rows * (TILE_H + 0.05)
        elif kind == "wall":
            cols, rows = int(rng.integers(6, 18)), 1
            w, h = cols * 1.0, TILE_H
        else:
            cols, rows = int(rng.integers(1, 5)), 1
            w, h = 4.0, 3.0
        spot = _free_spot(rng, taken, (x0, y0, x1, y1), w, h)
        if spot is None:
            continue
        sx, sy = spot
        taken.append((sx - 0.5, sy - 0.5, sx + w + 0.5, sy + h + 0.5))
        g = len(scene.groups)
        scene.groups.append({"role": "other", "tiles": []})
        tilt = float(rng.normal(0, 8))
        cos, sin = np.cos(np.radians(tilt)), np.sin(np.radians(tilt))
        for r in range(rows):
            for c in range(cols):
                if kind == "loose":
                    lx, ly, ang = rng.uniform(0.5, w - 0.5), rng.uniform(0.7, h - 0.7), rng.uniform(0, 360)
                    if any(abs(lx - (t.x - sx)) < 1.4 and abs(ly - (t.y - sy)) < 1.4 for t in _group_tiles(scene, g)):
                        continue
                else:
                    pitch = 1.05 if kind == "discards" else 1.0
                    lx, ly, ang = c * pitch + 0.5, r * (TILE_H + 0.05) + 0.67, 0.0
                    lx, ly = lx * cos - ly * sin, lx * sin + ly * cos
                    ang += tilt + rng.normal(0, 2.5 if kind == "discards" else 0.8)
                code = pool.random(rng)
                if code is None:
                    return
                face_down = kind == "wall" or (kind == "loose" and rng.random() < 0.3)
                scene.tiles.append(Placed("back" if face_down else code, code, sx + lx, sy + ly, float(ang), g))
                scene.groups[g]["tiles"].append(len(scene.tiles) - 1)


def add_background(rng: np.random.Generator, scene: Scene, pool: TilePool, habits: Habits) -> None:
    """Another player's tiles farther off (a share ``habits.p_background`` of scenes): their face-down row and
    their exposed melds face up in front of it, turned to their seat, clear of the hand and of the clutter. They
    are tiles of the table ("other"), never part of the hand."""
    if rng.random() >= habits.p_background:
        return
    names, turns, weights = zip(*habits.seats, strict=True)
    seat = int(rng.choice(len(names), p=np.array(weights) / sum(weights)))
    local = _other_player(rng, pool, habits)  # (code shown, code, a along their row, b towards them)
    if not local:
        return
    turn = turns[seat] + float(rng.normal(0, 4))
    cos, sin = np.cos(np.radians(turn)), np.sin(np.radians(turn))
    pts = np.array([[a * cos - b * sin, a * sin + b * cos] for _, _, a, b in local])
    x0, y0, x1, y1 = scene.hand_bounds()
    existing = np.array([(t.x, t.y) for t in scene.tiles])
    for _ in range(10):
        distance = float(rng.uniform(*habits.background_distance))
        slide = float(rng.uniform(-4, 4))
        if names[seat] == "opposite":  # beyond the hand's far edge (+y is the player's side)
            at = pts + [(x0 + x1) / 2 + slide - pts[:, 0].mean(), y0 - distance - pts[:, 1].max()]
        elif names[seat] == "left":
            at = pts + [x0 - distance - pts[:, 0].max(), (y0 + y1) / 2 + slide - pts[:, 1].mean()]
        else:
            at = pts + [x1 + distance - pts[:, 0].min(), (y0 + y1) / 2 + slide - pts[:, 1].mean()]
        gaps = np.hypot(*(at[:, None, :] - existing[None, :, :]).transpose(2, 0, 1))
        if gaps.min() > 2.0:
            break
    else:
        return
    g = len(scene.groups)
    scene.groups.append({"role": "other", "player": names[seat], "tiles": []})
    for (shown, code, _, _), (x, y) in zip(local, at, strict=True):
        scene.tiles.append(Placed(shown, code, float(x), float(y), turn + float(rng.normal(0, 1.0)), g))
        scene.groups[g]["tiles"].append(len(scene.tiles) - 1)


def _other_player(rng: np.random.Generator, pool: TilePool, habits: Habits) -> list[tuple[str, str, float, float]]:
    """Another player's tiles in their own frame: a along their row, b towards them; their face-down row at b = 0,
    their exposed melds (face up) in front of it."""
    tiles = []
    for k in range(int(rng.integers(habits.background_row[0], habits.background_row[1] + 1))):
        code = pool.random(rng)
        if code is None:
            return tiles
        tiles.append(("back", code, k * 1.0 + float(rng.normal(0, 0.02)), float(rng.normal(0, 0.03))))
    a = float(rng.uniform(-1, 2))
    b = -(TILE_H + float(rng.uniform(0.3, 1.0)))
    for _ in range(int(rng.integers(habits.background_melds[0], habits.background_melds[1] + 1))):
        code = pool.random(rng)
        if code is None or not pool.take(code, 2):
            break
        for _ in range(3):  # a pung: the simplest meld the pool can always say it holds
            tiles.append((code, code, a, b + float(rng.normal(0, 0.03))))
            a += 1.0
        a += float(rng.uniform(0.5, 1.2))
    return tiles


def _group_tiles(scene: Scene, g: int) -> list[Placed]:
    return [scene.tiles[i] for i in scene.groups[g]["tiles"]]


def _free_spot(rng, taken, hand, w, h):
    """A top-left corner for a w x h block that overlaps no block already placed, near the hand."""
    x0, y0, x1, y1 = hand
    for _ in range(30):
        sx = float(rng.uniform(x0 - w - 6, x1 + 6))
        sy = float(rng.uniform(y0 - h - 7, y1 + 5))
        box = (sx, sy, sx + w, sy + h)
        if all(box[2] < t[0] or box[0] > t[2] or box[3] < t[1] or box[1] > t[3] for t in taken):
            return sx, sy
    return None
