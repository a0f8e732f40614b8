"""Synthetic photos of winning hands for training and measuring the detector and the layout step.

``generate.write_dataset`` writes a YOLO dataset (images/, labels/, data.yaml) plus ``hands/*.json``: the
ground-truth Hand JSON and the role of every labelled tile, so the layout step can be measured on it.
"""
