"""The runtime: a photo decoded, the ONNX sessions, the detector that locates tiles and the crop classifier
that names them (onnxruntime and OpenCV, no torch)."""
