"""Training of the tile detector: the warm-start checkpoint, the training run, and the ONNX export.

Needs the ``train`` extra (ultralytics, torch, onnx, mahjong-detector); the runtime never imports this package.
"""
