"""Vision: image decoding, the detector runtime, the layout of tiles into a hand, synthetic data, training."""
