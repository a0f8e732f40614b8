"""Fan detectors, one module per family: chows, pungs, tiles, win, special shapes."""
