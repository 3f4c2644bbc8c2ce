"""Training the card classifier (needs the ``train`` extra: torch, onnx). Never imported at run time."""
