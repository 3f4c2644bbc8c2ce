/* The evidence behind the camera's calls: tapping an event the camera decided (it carries an
   "evidence" id) shows the frame it was decided on (GET /api/evidence/<id>.jpg, the regions
   read outlined), the question the camera asked about it, if any, and, on a seat's phone,
   the undo request of the last action (POST /api/undo, as the undo button: another seat has
   to agree). */

function evidenceEvents(id) {
  return (App.recent || []).filter((ev) => ev.evidence === id);
}

function evidenceUndoHtml(id, acted) {
  const s = App.state || {};
  const me = s.me && s.me.seat;
  if (!s.playing || !acted) return "";  // (a question not answered yet: nothing to undo)
  if (!me) return `<p class="muted small">${esc(T("evidence_undo_seat"))}</p>`;
  if (s.last_evidence !== id) return `<p class="muted small">${esc(T("evidence_undo_last"))}</p>`;
  const u = s.undo_request;
  if (u && u.by === me) return `<p class="note">${esc(T("undo_waiting"))}</p>`;
  const label = u ? T("evidence_agree") : T("evidence_undo");
  return `<button type="button" class="btn ${u ? "primary" : "danger"}" data-evidence-undo>↶ ${esc(label)}</button>`;
}

/* The questions asked on frames whose question is not among the events in memory (after a
   restart: the event log keeps no questions), as GET /api/evidence/<id>.json gave them. */
const evidenceQuestions = {};

function evidenceHtml(id) {
  const events = evidenceEvents(id);
  const asked = events.find((ev) => ev.type === "confirm-needed") || evidenceQuestions[id];
  const lines = events.filter((ev) => ev.type !== "confirm-needed").map(eventText).filter(Boolean);
  return `<h3>${esc(T("evidence_title"))}</h3>
    <figure class="evidence-frame"><img src="/api/evidence/${encodeURIComponent(id)}.jpg" alt="${esc(T("evidence_title"))}" data-evidence-img>
    <p class="note" data-evidence-gone hidden>${esc(T("evidence_gone"))}</p></figure>
    ${asked ? `<p class="evidence-question">${esc(T("evidence_asked", { question: questionText(asked) }))}</p>` : ""}
    ${lines.length ? `<ul class="evidence-lines">${lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>` : ""}
    <div class="button-row">${evidenceUndoHtml(id, lines.length > 0)}
      <button type="button" class="btn ghost" data-cancel>${esc(T("ok"))}</button></div>`;
}

function watchEvidenceImage() {
  const img = document.querySelector("#sheet [data-evidence-img]");
  if (!img) return;
  const gone = () => {
    img.hidden = true;
    const note = document.querySelector("#sheet [data-evidence-gone]");
    if (note) note.hidden = false;
  };
  if (img.complete && img.naturalWidth === 0 && img.src) gone();
  img.addEventListener("error", gone);
}

function openEvidence(id) {
  const shown = openDialog({
    label: T("evidence_title"),
    draw: () => evidenceHtml(id),
    onClick: async (b, done, redraw) => {
      if (!b.hasAttribute("data-evidence-undo")) return;
      b.disabled = true;
      // the action meant: the one asked about when agreeing, else the last one standing
      const s = App.state || {};
      const seq = s.undo_request ? s.undo_request.seq : s.undo_seq;
      const res = await post("/api/undo", { seq });
      if (res && res.ok) { await App.refresh(); done(true); } else redraw();
    },
  });
  watchEvidenceImage();
  if (!evidenceEvents(id).some((ev) => ev.type === "confirm-needed") && !(id in evidenceQuestions)) {
    fetch(`/api/evidence/${encodeURIComponent(id)}.json`, { cache: "no-store" })
      .then((res) => (res.ok ? res.json() : {}))
      .then((data) => {
        evidenceQuestions[id] = data.question || null;
        const sheet = document.querySelector("#sheet");
        if (data.question && sheet && sheet.open && sheet.querySelector("[data-evidence-img]")) {
          const figure = sheet.querySelector(".evidence-frame");
          if (figure && !sheet.querySelector(".evidence-question")) {
            figure.insertAdjacentHTML("afterend", `<p class="evidence-question">${esc(T("evidence_asked", { question: questionText(data.question) }))}</p>`);
          }
        }
      })
      .catch(() => {});
  }
  return shown;
}

document.addEventListener("click", (e) => {
  const b = e.target.closest && e.target.closest(".evidence-open");
  if (!b || !b.dataset.evidence) return;
  e.preventDefault();
  openEvidence(b.dataset.evidence);
});
