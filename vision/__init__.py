"""Frames in, table readings out.

Card reading (this package's public API for the rest of the product):

* :class:`vision.recognize.CardReader` -- ``read(image_bgr, deck="auto") -> list[CardSighting]``
  finds and reads every card in a photo; ``classify(rectified_card_bgr)`` reads one card.
* :mod:`vision.detect` -- card outlines (quads) in a photo.
* :mod:`vision.card_shape` -- a card's rounded outline, the order of its corners, and its
  rectification to the canonical card (one copy for the detector, the table reader, the drawers).
* :mod:`vision.card_art` -- ``draw_card(label, width, height)``: every face of all three sets, drawn.
* :mod:`vision.synth` -- synthetic tables of cards (tests, evaluation, benchmark, demo).

Submodules are imported on use (``from vision.recognize import CardReader``) so that importing
:mod:`vision` costs nothing.
"""
