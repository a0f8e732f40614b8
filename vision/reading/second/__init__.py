"""The second readings of a photo, in the order the reader tries them (``vision.reading.path.read_photo``).

Each says when it applies to the photo's first reading, reads the photo again, and weighs that reading against the
reading so far (``vision.reading.path.SecondReading``). A photo of a single tile close up, where nothing or only a
tile far too large was found, is read squashed back, as a squeezed photo is, and where that finds no hand, shrunk
into a larger canvas (it looks squeezed: so few tiles). A photo squeezed out of its aspect ratio is read squashed back,
and then only turned whole; one taken a quarter turn off is read turned a quarter each way; rows running diagonal
are read again turned level; small tiles are read again larger; faces standing upside down are read again turned
half round. A new second reading is a module with one such class, and a line here.
"""

from __future__ import annotations

from mjlens.vision.reading.path import SecondReading
from mjlens.vision.reading.second.close_up import CLOSE_UP
from mjlens.vision.reading.second.small_tiles import SMALL_TILES
from mjlens.vision.reading.second.squeezed import SQUEEZED
from mjlens.vision.reading.second.turned import DIAGONAL_ROWS, QUARTER_TURN
from mjlens.vision.reading.second.upside_down import UPSIDE_DOWN

SECOND_READINGS: tuple[SecondReading, ...] = (CLOSE_UP, SQUEEZED, QUARTER_TURN, DIAGONAL_ROWS, SMALL_TILES,
                                              UPSIDE_DOWN)
