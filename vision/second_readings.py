"""The second readings of a photo, in the order the reader tries them (``vision.reading.read_photo``).

Each says when it applies to the photo's first reading, reads the photo again, and weighs that reading against the
reading so far (``vision.reading.SecondReading``). A photo squeezed out of its aspect ratio is read squashed back,
and then only turned whole; one taken a quarter turn off is read turned a quarter each way; rows running diagonal
are read again turned level; small tiles are read again larger; faces standing upside down are read again turned
half round. A new second reading is a module with one such class, and a line here.
"""

from __future__ import annotations

from .aspect import SQUEEZED
from .reading import SecondReading
from .turn import DIAGONAL_ROWS, QUARTER_TURN
from .wayup import UPSIDE_DOWN
from .zoom import SMALL_TILES

SECOND_READINGS: tuple[SecondReading, ...] = (SQUEEZED, QUARTER_TURN, DIAGONAL_ROWS, SMALL_TILES, UPSIDE_DOWN)
