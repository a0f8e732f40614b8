"""Reading a photo: the first reading by the detector and the crop classifier, the second readings tried after it
(``reading.second``), and the clean-ups that leave one tile set (``twins``, ``copies``)."""
