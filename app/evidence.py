"""The evidence behind the camera's calls: the frame each decision was taken on, kept on disk.

Every action the camera referee commits, every illegal call and every question it asks carries
the id of the frame it was decided on (``evidence`` on its events; see
:class:`companion.referee.camera.CameraReferee`'s ``witness``). :class:`EvidenceStore` keeps
those frames as small JPEGs (:func:`app.runner.annotated_jpeg`: at most 640 px wide, the regions
read outlined, the decision's own regions in a thick line) in one folder beside the event log,
``<state dir>/evidence/<match>-<n>.jpg``:

* only the frames of the current match and the one before are kept (a frame of a third match
  drops those of the oldest);
* the folder never holds more than ``max_bytes`` (``[camera] evidence_mb``): the oldest frames
  are dropped first;
* a restart reads the folder again: what was kept is still served (``GET /api/evidence/<id>.jpg``).

The store only handles bytes and files; it is thread-safe (the camera thread adds, the web's
threads read) and holds its lock only over its own list, never over a file write.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EvidenceStore", "EVIDENCE_ID"]

log = logging.getLogger(__name__)

#: What an evidence id looks like: ``<match>-<n>`` (both whole numbers).
EVIDENCE_ID = re.compile(r"(\d{1,12})-(\d{1,12})")


@dataclass(frozen=True)
class _Kept:
    seq: int
    match: int
    size: int

    @property
    def id(self) -> str:
        return f"{self.match}-{self.seq}"


class EvidenceStore:
    """Frames of decisions in ``folder`` (made when needed), at most ``max_bytes`` in all
    (0: none kept), of the current match and the one before."""

    def __init__(self, folder: str | Path, max_bytes: int = 50 * 2**20):
        self.folder = Path(folder)
        self.max_bytes = max(0, int(max_bytes))
        self._lock = threading.Lock()
        self._kept: list[_Kept] = []  # oldest first
        self.folder.mkdir(parents=True, exist_ok=True)
        for path in self.folder.iterdir():
            m = EVIDENCE_ID.fullmatch(path.stem)
            if m is None or path.suffix != ".jpg":
                if path.name.endswith(".part"):
                    path.unlink(missing_ok=True)  # a write cut short by a crash
                continue
            self._kept.append(_Kept(int(m[2]), int(m[1]), path.stat().st_size))
        self._kept.sort(key=lambda k: k.seq)
        self._next = self._kept[-1].seq + 1 if self._kept else 1
        self._drop(self._over())

    def add(self, jpeg: bytes, match: int | None) -> str | None:
        """Keep ``jpeg``, a frame of match ``match`` (its event log id); returns its id (None
        when nothing is kept: ``max_bytes`` 0, or a frame larger than the bound)."""
        if not jpeg or len(jpeg) > self.max_bytes:
            return None
        with self._lock:
            kept = _Kept(self._next, int(match or 0), len(jpeg))
            self._next += 1
        path = self._path(kept.id)
        part = path.with_name(path.name + ".part")
        try:
            part.write_bytes(jpeg)
            os.replace(part, path)
        except OSError as exc:
            log.warning("could not keep the frame %s: %s", path, exc)
            part.unlink(missing_ok=True)
            return None
        with self._lock:
            self._kept.append(kept)
            gone = self._over()
        self._drop(gone)
        return kept.id

    def jpeg(self, evidence_id: str) -> bytes | None:
        """The frame ``evidence_id`` (bytes), None when it is not kept (or not an id)."""
        if not isinstance(evidence_id, str) or EVIDENCE_ID.fullmatch(evidence_id) is None:
            return None
        try:
            return self._path(evidence_id).read_bytes()
        except OSError:
            return None

    def keep_question(self, evidence_id: str, question: dict) -> None:
        """Keep the question the camera asked on frame ``evidence_id`` beside it (the event log
        keeps no questions: after a restart the frame still says what was asked)."""
        with self._lock:
            kept = any(k.id == evidence_id for k in self._kept)
        if not kept:
            return
        path = self._path(evidence_id).with_suffix(".json")
        part = path.with_name(path.name + ".part")
        try:
            part.write_text(json.dumps(question))
            os.replace(part, path)
        except (OSError, TypeError, ValueError) as exc:
            log.warning("could not keep the question of %s: %s", evidence_id, exc)
            part.unlink(missing_ok=True)

    def question(self, evidence_id: str) -> dict | None:
        """The question asked on frame ``evidence_id``, None when none was (or it is not kept)."""
        if not isinstance(evidence_id, str) or EVIDENCE_ID.fullmatch(evidence_id) is None:
            return None
        try:
            question = json.loads(self._path(evidence_id).with_suffix(".json").read_text())
        except (OSError, ValueError):
            return None
        return question if isinstance(question, dict) else None

    def ids(self) -> list[str]:
        """The ids kept, oldest first."""
        with self._lock:
            return [k.id for k in self._kept]

    @property
    def size(self) -> int:
        """The bytes the kept frames take."""
        with self._lock:
            return sum(k.size for k in self._kept)

    def _path(self, evidence_id: str) -> Path:
        return self.folder / f"{evidence_id}.jpg"

    def _over(self) -> list[_Kept]:
        """Under the lock: take out of the list what the bounds drop; returns it."""
        matches: list[int] = []  # the matches seen, the newest first
        for k in reversed(self._kept):
            if k.match not in matches:
                matches.append(k.match)
        keep = set(matches[:2])  # the current match and the one before
        gone = [k for k in self._kept if k.match not in keep]
        self._kept = [k for k in self._kept if k.match in keep]
        total = sum(k.size for k in self._kept)
        while self._kept and total > self.max_bytes:
            oldest = self._kept.pop(0)
            total -= oldest.size
            gone.append(oldest)
        return gone

    def _drop(self, gone: list[_Kept]) -> None:
        for k in gone:
            try:
                self._path(k.id).unlink(missing_ok=True)
                self._path(k.id).with_suffix(".json").unlink(missing_ok=True)
            except OSError as exc:
                log.warning("could not drop the frame %s: %s", k.id, exc)
