"""The trained card model (cards.onnx) and its description (cards.json)."""
