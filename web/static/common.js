/* Shared by every page: words, cards, the live event stream, and POSTs with the CSRF header. */
"use strict";

const STR = JSON.parse(document.getElementById("i18n").textContent);
const DECKS = JSON.parse(document.getElementById("decks").textContent);
const CSRF = document.querySelector('meta[name="csrf-token"]').content;

// Colour-blind friendly: every colour also has its own symbol and its name in words.
const COLOR_SYMBOL = { red: "▲", yellow: "●", green: "■", blue: "◆", pink: "♥", teal: "✚", orange: "★", purple: "⬟" };
const FACE_MARK = {
  "skip": "⊘", "reverse": "⇄", "draw-two": "+2", "draw-one": "+1", "draw-five": "+5", "flip": "↻",
  "skip-everyone": "⊘⊘", "wild": "W", "wild-draw-four": "W+4", "wild-draw-two": "W+2", "wild-draw-color": "W+",
};
/* A face whose mark needs words under it, on every card however small ("W+" and "until a colour"). */
const FACE_SUB = { "wild-draw-color": "mark_until_color" };

/* The words of key in the page's language, {name} filled from vals. A value that names seats
   (seat, seats, by, accused, ...: "north, south") is said in the page's language too. */
const SEAT_PARAMS = new Set(["seat", "seats", "by", "accused", "starter", "dealer", "winners", "champions", "target"]);
function T(key, vals) {
  let s = STR[key] !== undefined ? STR[key] : key;
  if (vals) s = s.replace(/\{(\w+)\}/g, (m, k) => {
    const v = vals[k];
    if (v === undefined || v === null) return m;
    return SEAT_PARAMS.has(k) && typeof v === "string" ? seatsWords(v) : v;
  });
  return s;
}

/* A seat as the page says it: the grid game's sides (north, east, south, west) in the page's
   language, any other seat by the name it was given. */
function seatName(seat) {
  const key = "side_name_" + seat;
  return STR[key] !== undefined ? STR[key] : seat;
}

/* "north, south" -> "北, 南" (a list of seats, joined by ", "). */
function seatsWords(text) { return String(text).split(", ").map(seatName).join(", "); }

function esc(s) {
  return String(s === undefined || s === null ? "" : s).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function $(sel, root) { return (root || document).querySelector(sel); }

function parseCard(name) {
  if (!name) return null;
  const colors = Object.keys(COLOR_SYMBOL);
  const dash = name.indexOf("-");
  if (dash > 0 && colors.includes(name.slice(0, dash))) return { color: name.slice(0, dash), face: name.slice(dash + 1) };
  return { color: null, face: name };
}

function colorName(color) { return color ? T("color_" + color) : ""; }
function faceName(face) { return /^\d$/.test(face) ? face : T("face_" + face); }

/* Words for a card: "▲ red 7", "wild (◆ blue)". */
function cardWords(name, declared) {
  const c = parseCard(name);
  if (!c) return "—";
  const base = c.color ? `${COLOR_SYMBOL[c.color]} ${colorName(c.color)} ${faceName(c.face)}` : faceName(c.face);
  return declared && !c.color ? `${base} (${colorWords(declared)})` : base;
}

function colorWords(color) { return color ? `${COLOR_SYMBOL[color] || ""} ${colorName(color)}` : ""; }

/* A card: its face mark in the middle, its colour's symbol and letter in the top-left corner (a
   second cue besides the colour, which nothing is drawn over: the pawn sits top right), and its
   name under the face unless opts.noName (the words hide themselves on a card too small for
   them, see app.css; the card's label always has them). */
function cardHtml(name, opts) {
  opts = opts || {};
  const c = parseCard(name);
  if (!c) return `<span class="card ${opts.cls || ""}" style="--c:#9aa3b5"><span class="face">?</span></span>`;
  const mark = FACE_MARK[c.face] || c.face;
  const darkWild = !c.color && opts.side === "dark" ? " dark-side" : "";
  const cls = c.color ? `c-${c.color}` : `wild${darkWild}`;
  const corner = c.color
    ? `<span class="corner" aria-hidden="true">${COLOR_SYMBOL[c.color]}<b>${esc(T("letter_" + c.color))}</b></span>` : "";
  const words = c.color ? `${colorName(c.color)}${/^\d$/.test(c.face) ? "" : " " + faceName(c.face)}` : faceName(c.face);
  const title = esc(cardWords(name));
  const sub = FACE_SUB[c.face] ? `<span class="face-sub">${esc(T(FACE_SUB[c.face]))}</span>` : "";
  return `<span class="card ${cls} ${opts.cls || ""}" title="${title}" role="img" aria-label="${title}">${corner}<span class="face">${esc(mark)}</span>${sub}` +
    (opts.noName ? "" : `<span class="cname">${esc(words)}</span>`) + `</span>`;
}

/* A wild's chosen colour, as large as the card beside it: the colour, its symbol, its name. */
function chosenHtml(color, big) {
  return `<span class="chosen c-${color} ${big ? "big" : ""}" style="--c:var(--${color})" role="img" aria-label="${esc(T("chosen_color") + ": " + colorWords(color))}">` +
    `<span class="chosen-label">${esc(T("chosen_color"))}</span><span class="chosen-mark" aria-hidden="true">${COLOR_SYMBOL[color] || ""}</span>` +
    `<span class="chosen-name">${esc(colorName(color))}</span></span>`;
}

function swatch(color) {
  return color ? `<span class="swatch c-${color}" style="--c:var(--${color})">${esc(colorWords(color))}</span>` : "";
}

function cellWords(cell) { return Array.isArray(cell) ? `(${cell[0]}, ${cell[1]})` : ""; }

/* What the camera read in a region: a card, or "nothing", "a card face down"... (null: the pawn). */
function readWords(label) {
  if (label === null || label === undefined) return T("read_pawn");
  if (STR["read_" + label] !== undefined) return T("read_" + label);
  return cardWords(label);
}

/* A region as players say it: "cell (2, 3)", "the discard pile", "the pawn". */
function whereWords(region) {
  const m = /^cell-(\d+)-(\d+)$/.exec(region || "");
  if (m) return T("where_cell", { cell: cellWords([Number(m[1]), Number(m[2])]) });
  return STR["where_" + region] !== undefined ? T("where_" + region) : String(region || "");
}

/* An action (replay form) in words: "ann played ▲ red 7 on cell (0, 1)". */
function actionText(a) {
  if (!a) return "";
  const d = { seat: a.by, card: a.card ? cardWords(a.card, a.color) : "" };
  if (a.do === "play" && Array.isArray(a.cell)) return T("act_play_cell", Object.assign(d, { cell: cellWords(a.cell) }));
  if (a.do === "play") return T("act_play", d);
  if (a.do === "move") {
    const off = Array.isArray(a.to) && (a.to[0] < 0 || a.to[0] > 4 || a.to[1] < 0 || a.to[1] > 4);
    return off ? T("act_move_off", d) : T("act_move", Object.assign(d, { to: cellWords(a.to) }));
  }
  if (a.do === "discard") return T("act_discard", d);
  if (a.do === "reveal") return T("act_reveal", d);
  return T("act_other", Object.assign(d, { do: STR["do_" + a.do] !== undefined ? T("do_" + a.do) : a.do }));
}

/* The camera's question (a confirm-needed event: kind, seat, region, card, choices; an
   out-of-turn one also by, did, after: "Did ben play before ann drew?") in words. */
function questionText(q) {
  if (!q) return "";
  if (!q.kind) return q.question || "";  // an event of another sender, already in words
  const vals = { seat: q.seat || T("q_someone"), by: q.by || T("q_someone"), card: readWords(q.card), where: whereWords(q.region) };
  const exact = "q_" + q.kind + "_" + q.did + "_" + q.after;
  return T(q.by && STR[exact] !== undefined ? exact : "q_" + q.kind, vals);
}

/* One answer button of a question: a colour, an action, or "nothing happened". */
function choiceText(q, c) {
  if (typeof c === "string") return c;
  if (!c) return "";
  if (c.nothing) return T("nothing_" + c.nothing, { by: (q && q.by) || T("q_someone") });
  const a = c.action;
  if (a && q && q.kind === "out-of-turn" && a.do === "draw")
    return T(q.did === "draw" ? "choice_oot_it_was" : "choice_oot_drew_first", { seat: a.by });
  if (a && q && q.kind === "out-of-turn" && a.do === "play" && !Array.isArray(a.cell))
    return T("choice_oot_seats_card", { seat: a.by, card: cardWords(a.card, a.color) });
  if (a && q && q.kind === "drew" && a.do === "draw") return T("choice_drew_yes", { seat: a.by });
  if (c.action && q && q.kind === "colour" && c.action.color) return colorWords(c.action.color);
  if (c.action) return actionText(c.action);
  return c.label || "";
}

/* A refusal in words: the code's own sentence with its parameters, in the reader's language. */
function reasonText(code, params, message) {
  const p = Object.assign({}, params || {});
  for (const k of ["card", "onto"]) if (p[k]) p[k] = cardWords(p[k]);
  if (p.color) p.color = colorWords(p.color);
  for (const k of ["cell", "pawn"]) if (Array.isArray(p[k])) p[k] = cellWords(p[k]);
  if (Array.isArray(p.seats)) p.seats = p.seats.join(", ");
  const full = STR["errp_" + code];
  if (full !== undefined) {
    const text = T("errp_" + code, p);
    if (!/\{\w+\}/.test(text)) return text;
  }
  if (STR["err_" + code] !== undefined) return T("err_" + code);
  // a code this page has no words for: the server's English only on an English page
  if (message && document.documentElement.lang === "en") return message;
  return T("err_unknown", { code: code || "?" });
}

function ledName(color) { return STR["led_" + (color || "off")] !== undefined ? T("led_" + (color || "off")) : color; }
function tuneName(name) { return STR["tune_" + name] !== undefined ? T("tune_" + name) : name; }

/* One bus event in words, or null for the ones not worth a line. */
function eventText(ev) {
  const d = Object.assign({}, ev);
  if (d.card) d.card = cardWords(d.card, d.color);
  if (d.color && ev.type === "color-declared") d.color = colorWords(ev.color);
  if (Array.isArray(d.seats)) d.seats = d.seats.join(", ");
  if (Array.isArray(d.champions)) d.champions = d.champions.join(", ");
  if (Array.isArray(d.winners)) d.winners = d.winners.join(", ") || "—";
  if (Array.isArray(d.predicted)) d.predicted = d.predicted.map((c) => cardWords(c)).join(" / ");
  if (d.start) d.start = cardWords(d.start);
  if (ev.type === "camera") {
    // why the camera is lost, where the table knows (run: missing, busy or hung), with the fix
    const key = ev.cause && STR["camera_" + ev.status + "_" + ev.cause] !== undefined ? "camera_" + ev.status + "_" + ev.cause : "camera_" + ev.status;
    d.status = STR[key] !== undefined ? T(key) : ev.status;
  }
  if (ev.type === "confirm-answer" && d.choice) d.choice = choiceText(null, d.choice);
  if (ev.type === "confirm-answer" && d.other) d.choice = actionText(d.other);  // another card
  if (ev.type === "confirm-needed") d.question = questionText(ev);
  // an engine's "illegal" is always followed by the table's "refused", which says it with its parameters
  if (ev.type === "illegal") return null;
  if (ev.type === "refused") {
    d.message = reasonText(ev.code, ev.params, ev.message);
    return ev.seat ? T("ev_illegal", d) : T("ev_refused", d);
  }
  if (ev.type === "timeout" && ev.action === "warn") return T("ev_timeout_warn", d);
  if (ev.type === "timer" && ev.kind !== "warning") return ev.kind === "tick" ? null : T("ev_timer_" + ev.kind, d);
  if (ev.type === "hand-shown" && Array.isArray(ev.cards)) return T("ev_hand-shown_cards", Object.assign(d, { n: ev.cards.length }));
  if (d.direction) d.direction = T("dir_" + d.direction);
  if (d.side) d.side = T("side_" + d.side);
  if (ev.type === "played" && ev.cell) return T("ev_played_cell", Object.assign(d, { cell: cellWords(ev.cell) }));
  if (ev.type === "moved") {
    const off = Array.isArray(ev.to) && (ev.to[0] < 0 || ev.to[0] > 4 || ev.to[1] < 0 || ev.to[1] > 4);
    return off ? T("ev_moved_off", d) : T("ev_moved", Object.assign(d, { to: cellWords(ev.to) }));
  }
  if (ev.type === "uno-window" && !ev.open) return null;
  if (ev.type === "hello" || ev.type === "resync") return null;
  const key = "ev_" + ev.type;
  if (STR[key] === undefined) return null;
  return T(key, d);
}

function eventLi(ev) {
  const text = eventText(ev);
  if (!text) return "";
  const t = ev.time ? new Date(ev.time * 1000).toLocaleTimeString(document.documentElement.lang || [], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) : "";
  const bad = ev.type === "illegal" || ev.type === "refused" || ev.type === "penalty" ? "bad" : "";
  // what the camera decided opens the frame it was decided on (evidence.js)
  if (typeof ev.evidence === "string") return `<li class="${bad} has-evidence"><time>${esc(t)}</time><button type="button" class="evidence-open" data-evidence="${esc(ev.evidence)}" title="${esc(T("evidence_open"))}">${esc(text)}</button></li>`;
  return `<li class="${bad}"><time>${esc(t)}</time><span>${esc(text)}</span></li>`;
}

function renderEvents(list, el, newestFirst) {
  if (!el) return;
  const items = list.map(eventLi).filter(Boolean);
  if (newestFirst) items.reverse();
  const html = items.slice(0, 30).join("");
  // drawn again only when it changed: a tap on an event (evidence.js) is not lost to a redraw
  if (el._html === html) return;
  el._html = html;
  el.innerHTML = html;
}

function toast(text, bad) {
  const el = $("#toast");
  el.textContent = text;
  el.className = "toast" + (bad ? " bad" : "");
  el.hidden = false;
  clearTimeout(toast._t);
  toast._t = setTimeout(() => { el.hidden = true; }, 3200);
}

/* --- dialogs ---------------------------------------------------------------------------------
   Every dialog of the pages goes through openDialog (and confirmDialog): one modal <dialog> per
   page (the page's #sheet, or one made on first use). The caller draws its content and handles
   its taps; the promise resolves with the value given to done(), or null when the dialog is
   cancelled: Esc, a [data-cancel] button, or another dialog opening over it. Focus moves into
   the dialog ([autofocus], else its first enabled control), stays on the same control across
   redraws, and goes back to where it was when the dialog closes. */

const Dialog = { el: null, form: null, finish: null, opener: null, draw: null, onClick: null };

function dialogElement() {
  if (Dialog.el) return Dialog.el;
  let el = document.getElementById("sheet");
  if (!el) {
    el = document.createElement("dialog");
    el.id = "sheet";
    el.className = "sheet";
    el.innerHTML = '<form method="dialog" id="sheet-form"></form>';
    document.body.appendChild(el);
  }
  Dialog.el = el;
  Dialog.form = el.querySelector("form") || el;
  el.addEventListener("cancel", () => closeDialog(null));                 // Esc
  // Closed some other way (a browser's own Esc handling): an open dialog is never left waiting.
  el.addEventListener("close", () => { if (!el.open) closeDialog(null); });
  Dialog.form.addEventListener("submit", (e) => e.preventDefault());
  Dialog.form.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b || !Dialog.finish || b.disabled) return;
    if (b.hasAttribute("data-cancel")) { closeDialog(null); return; }
    if (Dialog.onClick) Dialog.onClick(b, closeDialog, redrawDialog);
  });
  return el;
}

/* opts: {draw: () => html, onClick: (button, done, redraw) => void, label: text}. */
function openDialog(opts) {
  const el = dialogElement();
  const opener = Dialog.finish ? Dialog.opener : document.activeElement;
  closeDialog(null);                       // one dialog at a time
  return new Promise((resolve) => {
    Dialog.finish = resolve;
    Dialog.opener = opener;
    Dialog.draw = opts.draw;
    Dialog.onClick = opts.onClick || null;
    if (opts.label) el.setAttribute("aria-label", opts.label); else el.removeAttribute("aria-label");
    Dialog.form.innerHTML = Dialog.draw();
    if (!el.open) el.showModal();
    focusInDialog(null);
  });
}

/* Draw the open dialog again (its state changed), keeping focus on the same control. */
function redrawDialog() {
  if (!Dialog.finish) return;
  const key = controlKey(document.activeElement);
  Dialog.form.innerHTML = Dialog.draw();
  focusInDialog(key);
}

function closeDialog(value) {
  const finish = Dialog.finish;
  if (!finish) return;
  Dialog.finish = null;
  Dialog.onClick = null;
  if (Dialog.el.open) Dialog.el.close();
  const opener = Dialog.opener;
  Dialog.opener = null;
  if (opener && opener.isConnected && typeof opener.focus === "function") opener.focus();
  finish(value === undefined ? null : value);
}

/* A control's identity across redraws: its tag and data-* attributes. */
function controlKey(el) {
  if (!el || !Dialog.form || !Dialog.form.contains(el)) return null;
  return el.tagName + Object.keys(el.dataset).sort().map((k) => `|${k}=${el.dataset[k]}`).join("");
}

function focusInDialog(key) {
  const controls = Array.from(Dialog.form.querySelectorAll(
    "button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex='-1'])"));
  const target = (key && controls.find((c) => controlKey(c) === key))
    || Dialog.form.querySelector("[autofocus]") || controls[0];
  if (target) target.focus();
}

/* A yes/no question in the page's own dialog (not window.confirm): true, or false when
   cancelled. opts.yes names the button that says yes. */
function confirmDialog(text, opts) {
  opts = opts || {};
  return openDialog({
    label: text,
    draw: () => `<h3>${esc(text)}</h3><div class="button-row">
      <button type="button" class="btn ${opts.danger ? "danger" : "primary"} big" data-yes>${esc(opts.yes || T("ok"))}</button>
      <button type="button" class="btn ghost" data-cancel autofocus>${esc(T("cancel"))}</button></div>`,
    onClick: (b, done) => { if (b.hasAttribute("data-yes")) done(true); },
  }).then((answer) => answer === true);
}

/* A random key for one tap (the Idempotency-Key header). crypto.getRandomValues works on a
   plain-HTTP page too (randomUUID needs HTTPS). */
function tapKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/* POST one tap: it carries a new Idempotency-Key, and when the connection fails before an answer
   it is sent again with the same key (3 more times, 0.5, 1 and 2 s apart): the table applies it
   once and answers a repeat as the first time. Throws when every try failed. */
async function sendTap(path, init) {
  const opts = Object.assign({}, init, {
    method: "POST", credentials: "same-origin",
    headers: Object.assign({}, init.headers, { "Idempotency-Key": tapKey() }),
  });
  for (let wait = 500; ; wait *= 2) {
    try { return await fetch(path, opts); }
    catch (e) {
      if (wait > 2000) throw e;
      await new Promise((ok) => setTimeout(ok, wait));
    }
  }
}

async function post(path, body) {
  let res;
  try {
    res = await sendTap(path, {
      headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
      body: JSON.stringify(body || {}),
    });
  } catch (e) {
    toast(T("err_network"), true);
    return { ok: false, error: "network" };
  }
  let data = {};
  try { data = await res.json(); } catch (e) { data = { ok: false, error: "bad-response" }; }
  if (!data.ok && (data.error || data.message)) toast(`${T("refused")}: ${reasonText(data.error, data.params, data.message)}`, true);
  return data;
}

/* The live table: App.state is the last /api/state, kept current from the event stream. */
const App = {
  state: null,
  recent: [],
  listeners: [pageLook],
  timer: null, // {seat, left, seconds, paused, at}
  onChange(fn) { this.listeners.push(fn); },
  emit(reason) { for (const fn of this.listeners) fn(this.state, reason); },

  async refresh() {
    try {
      const res = await fetch("/api/state", { credentials: "same-origin", cache: "no-store" });
      const s = await res.json();
      this.state = s;
      this.recent = s.recent || [];
      if (s.timer) this.timer = Object.assign({}, s.timer, { at: performance.now() });
      else this.timer = null;
      this.emit("refresh");
    } catch (e) { /* the stream's reconnect will try again */ }
  },

  refreshSoon() {
    clearTimeout(this._soon);
    this._soon = setTimeout(() => this.refresh(), 120);
  },

  connect() {
    const conn = $("#conn");
    const es = new EventSource("/api/events");
    // The dot: green while the live stream is open, orange while it reconnects.
    const show = (on) => {
      if (!conn) return;
      conn.dataset.state = on ? "on" : "off";
      conn.title = T(on ? "live" : "offline");
      conn.setAttribute("aria-label", conn.title);
    };
    es.onopen = () => show(true);
    es.onerror = () => show(false);
    es.onmessage = (m) => {
      let ev;
      try { ev = JSON.parse(m.data); } catch (e) { return; }
      this.handle(ev);
    };
    this.es = es;
  },

  handle(ev) {
    if (ev.type === "hello" || ev.type === "resync") { this.refresh(); return; }
    if (ev.type === "state" && this.state && this.state.playing) {
      const before = this.state.turn;
      Object.assign(this.state, ev.state);
      if (ev.state.turn !== before && this.timer) {
        this.timer = Object.assign({}, this.timer, { seat: ev.state.turn, left: this.timer.seconds, at: performance.now(), paused: false });
      }
      this.emit("state");
      this.refreshSoon();
      return;
    }
    if (ev.type === "timer" && this.timer) {
      if (ev.kind === "paused" || ev.kind === "resumed") this.timer.paused = ev.kind === "paused";
      this.timer.left = ev.left; this.timer.seat = ev.seat; this.timer.at = performance.now();
    }
    if (ev.type === "match-started") this.recent = [];
    if (eventText(ev)) { this.recent.push(ev); if (this.recent.length > 40) this.recent.shift(); }
    this.emit(ev.type);
    if (ev.type !== "timer") this.refreshSoon();
  },

  timeLeft() {
    const t = this.timer;
    if (!t || !t.seconds || !t.seat) return null;
    if (t.paused) return t.left;
    return Math.max(0, t.left - (performance.now() - t.at) / 1000);
  },

  start() {
    this.connect();
    this.refresh();
    setInterval(() => this.emit("tick"), 250);
  },
};

/* The page's look follows the table: UNO Flip's Dark side darkens the whole page (body
   data-side), and each [data-turn-where] says where the seat on turn sits (its side, an arrow
   pointing there) in its side's colour (--seat on the element's panel). */
const SIDE_ARROW = { north: "↑", east: "→", south: "↓", west: "←" };
function pageLook(s, reason) {
  if (reason === "tick") return;
  const side = s && s.playing && s.side ? s.side : "";
  if (document.body.dataset.side !== side) document.body.dataset.side = side;
  const meta = document.querySelector('meta[name="theme-color"]');
  if (meta) meta.content = side === "dark" ? "#1a0b2e" : "#14213d";
  const seat = s && s.playing && !s.over && s.game !== "scoreboard" ? s.turn : null;
  const at = seat && s.seating ? s.seating[seat] : null;
  for (const el of document.querySelectorAll("[data-turn-where]")) {
    // (a grid game's seat is named after its side: its name says it)
    el.textContent = at && at !== seat ? `${SIDE_ARROW[at] || ""} ${T("turn_side", { side: seatName(at) })}` : "";
    el.hidden = !el.textContent;
    const panel = el.closest("[data-seat-side]");
    if (panel) panel.dataset.seatSide = at || "";
  }
}

function renderTimer(el) {
  if (!el) return;
  const base = el.dataset.base ? el.dataset.base + " " : "";
  const left = App.timeLeft();
  const st = App.state;
  if (left === null) {
    // The scoreboard has no turns: no clock at all rather than "no timer".
    el.textContent = st && st.playing && st.game !== "scoreboard" ? T("timer_off") : "";
    el.className = base + "timer off";
    return;
  }
  const s = Math.ceil(left);
  el.textContent = (App.timer.paused ? "Ⅱ " : "") + `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  el.className = base + "timer" + (s <= 0 ? " out" : s <= 10 ? " low" : "");
  const ring = el.closest(".clock");
  if (ring && App.timer.seconds) ring.style.setProperty("--frac", String(Math.max(0, Math.min(1, left / App.timer.seconds))));
}

function renderClocks() { for (const el of document.querySelectorAll("[data-clock]")) renderTimer(el); }

/* The seats in playing order, the one whose turn it is marked (timer game). */
function orderHtml(s) {
  return `<ol class="order" aria-label="${esc(T("turn_order"))}">${(s.seats || []).map((seat) =>
    `<li class="${seat === s.turn ? "turn" : ""}">${esc(seatName(seat))}</li>`).join("")}</ol>`;
}

function nextSeat(s) {
  const seats = s.seats || [];
  const i = seats.indexOf(s.turn);
  return i < 0 || !seats.length ? null : seats[(i + 1) % seats.length];
}

/* Timer only: the big clock, whose turn, the turn count, the order. */
function timerBoardHtml(s) {
  const next = nextSeat(s);
  return `<div class="timer-board">
    <div class="clock" data-seat-side="${esc((s.seating || {})[s.turn] || "")}"><div class="clock-face"><div class="clock-seat">${esc(s.turn ? seatName(s.turn) : "—")}</div><div data-clock data-base="bigclock"></div>
      <div class="clock-turn">${esc(T("turn_n", { n: (s.turns || 0) + 1 }))}</div></div></div>
    ${next && next !== s.turn ? `<p class="next-up">${esc(T("next_up", { seat: next }))}</p>` : ""}
    ${orderHtml(s)}</div>`;
}

/* Scoreboard only: this round's entries and the totals. opts.me: this phone's seat (its row is
   marked); opts.noStatus: leave out the "waiting for" line (a joined phone's banner and prompt
   say it, for the others than itself). */
function scoreBoardHtml(s, opts) {
  opts = opts || {};
  const entered = s.entered || {};
  const waiting = (s.pending && s.pending.seats) || [];
  const champs = s.champions || [];
  const rows = (s.seats || []).map((seat) => {
    const has = Object.prototype.hasOwnProperty.call(entered, seat);
    const cell = has ? `<span class="entry ok">✓ ${esc(T("points_unit", { points: entered[seat] }))}</span>`
      : s.over ? "" : `<span class="entry missing">… ${esc(T("missing"))}</span>`;
    const me = opts.me === seat ? " me" : "";
    return `<tr class="${champs.includes(seat) ? "champ" : ""}${me}"><th scope="row">${champs.includes(seat) ? "★ " : ""}${esc(seatName(seat))}</th>
      <td>${cell}</td><td class="total">${esc((s.scores || {})[seat] ?? 0)}</td></tr>`;
  }).join("");
  const status = s.over ? T("match_over", { seats: champs.join(", ") })
    : waiting.length === 1 ? T("sb_last", { seat: waiting[0] })
    : waiting.length ? T("waiting_hands", { seats: waiting.join(", ") }) : T("sb_all_in");
  return `<div class="score-board">
    <div class="round-big">${esc(T("round_n", { n: s.round || 1 }))}</div>
    ${opts.noStatus ? "" : `<p class="sb-status ${waiting.length > 1 || s.over ? "" : "all-in"}">${esc(status)}</p>`}
    <table class="sb-table"><thead><tr><th></th><th scope="col">${esc(T("this_round"))}</th><th scope="col">${esc(T("total"))}</th></tr></thead>
    <tbody>${rows}</tbody></table></div>`;
}

function deckFor(state) {
  if (!state || state.game === "grid" || state.game === "classic") return DECKS.classic;
  return state.side === "dark" ? DECKS.dark : DECKS.light;
}

/* The board as the referee understands it. Grid game: the tops and the pawn; cards: top, colour, hands. */
function boardHtml(s, opts) {
  opts = opts || {};
  if (!s || !s.playing) return `<p class="muted">${esc(T("no_match"))} ${esc(T("no_match_hint"))}</p>`;
  if (s.game === "grid") return gridHtml(s, opts);
  if (s.game === "timer") return timerBoardHtml(s);
  if (s.game === "scoreboard") return scoreBoardHtml(s, opts);
  const side = s.side ? `<span class="pill ${s.side}">${esc(T("side_" + s.side))}</span>` : "";
  const hands = Object.entries(s.hands || {}).map(([seat, n]) =>
    `<span class="hand ${seat === s.turn ? "turn" : ""}" data-seat-side="${esc((s.seating || {})[seat] || "")}">${esc(seatName(seat))}<b>${n}</b></span>`).join("");
  const wild = s.top && s.color && !parseCard(s.top).color ? chosenHtml(s.color, true) : "";
  return `<div class="pile-row">${cardHtml(s.top, { cls: "big", side: s.side })}${wild}
    <div class="facts">
      <div>${esc(T("active_color"))}: ${swatch(s.color) || "—"}</div>
      ${side ? `<div>${esc(T("side"))}: ${side}</div>` : ""}
      <div>${esc(T("direction"))}: <b>${esc(T("dir_" + (s.direction || "cw")))}</b></div>
      <div>${esc(T("draw_pile"))}: <b>${s.draw_pile ?? "—"}</b></div>
    </div></div>
    <div class="hands" aria-label="${esc(T("hands"))}">${hands}</div>`;
}

/* The grid game's board: the 25 tops, the pawn, the last cell, the four sides, and row and column
   numbers that match the coordinates of the event sentences ("moved the pawn to (3, 1)": row 3,
   column 1). opts.withExits: the ring of off-board cells around it (the pawn leaves there), each
   arrow pointing off its own edge; opts.buttons: every cell is a button (a joined phone: reachable
   by keyboard, named in words); opts.targets / opts.picked: cells lit as the pawn's moves (a dot,
   as chess sites mark legal moves) / the one tapped; opts.plays: cells a card may be played on (a
   small dot); opts.turn: quarter turns clockwise (a phone that puts its own side at the bottom). */
const EDGE_ARROW = { "-1,-1": "↖", "-1,0": "↑", "-1,1": "↗", "0,-1": "←", "0,1": "→", "1,-1": "↙", "1,0": "↓", "1,1": "↘" };
const GRID_SIDES = ["north", "east", "south", "west"];

/* The board cell [row, col] shown at (R, C) of a size x size grid turned k quarter turns clockwise. */
function turnedCell(size, k, R, C) {
  const n = size - 1;
  return k === 1 ? [n - C, R] : k === 2 ? [n - R, n - C] : k === 3 ? [C, n - R] : [R, C];
}

function gridHtml(s, opts) {
  const seats = s.seats || [];
  const tag = (side) => `<span class="side-tag ${seats.includes(side) ? "seated" : ""} ${s.turn === side ? "turn" : ""}" data-seat-side="${side}">${esc(seatName(side))}</span>`;
  const pawn = s.pawn, last = s.last_cell;
  const targets = opts.targets || {};
  const plays = opts.plays || {};
  const k = ((opts.turn || 0) % 4 + 4) % 4;
  const size = opts.withExits ? 7 : 5;
  const at = (i) => (opts.withExits ? i - 1 : i);
  const edge = (i) => (i === 0 ? -1 : i === size - 1 ? 1 : 0);
  const label = (n, axis) => `<span class="axis ${axis}" aria-hidden="true">${n >= 0 && n <= 4 ? n : ""}</span>`;
  let cells = `<span class="axis corner-label" aria-hidden="true" title="${esc(T("grid_axes"))}"></span>`;
  for (let C = 0; C < size; C++) { const b = turnedCell(size, k, 0, C); cells += label(at(k % 2 ? b[0] : b[1]), "col"); }
  for (let R = 0; R < size; R++) {
    const b0 = turnedCell(size, k, R, 0);
    cells += label(at(k % 2 ? b0[1] : b0[0]), "row");
    for (let C = 0; C < size; C++) {
      const b = turnedCell(size, k, R, C);
      const r = at(b[0]), c = at(b[1]);
      const key = `${r},${c}`;
      const t = targets[key] ? " target" : "";
      const picked = opts.picked === key ? " picked" : "";
      if (r < 0 || r > 4 || c < 0 || c > 4) {
        const arrow = EDGE_ARROW[`${edge(R)},${edge(C)}`] || "";
        cells += opts.buttons && t
          ? `<button type="button" class="cell exit${t}" data-cell="${key}" aria-label="${esc(T("off_board"))}">${arrow}</button>`
          : `<div class="cell exit${t}" data-cell="${key}">${t ? arrow : ""}</div>`;
        continue;
      }
      const name = s.grid && s.grid[r] ? s.grid[r][c] : null;
      const isPawn = pawn && pawn[0] === r && pawn[1] === c;
      const isLast = last && last[0] === r && last[1] === c;
      const cls = `cell${isLast ? " last" : ""}${t}${plays[key] ? " playable" : ""}${picked}${isPawn ? " has-pawn" : ""}`;
      // off-board steps on a board without the ring: arrows on the pawn's cell, off its edges
      const exits = isPawn && opts.exits && opts.exits.length ? opts.exits.map((d) => {
        const dir = rotateStep(d, k).join(",");
        return `<span class="exit-step" data-dir="${dir}" title="${esc(T("exit_step"))}">${EDGE_ARROW[dir] || ""}</span>`;
      }).join("") : "";
      const inside = `${cardHtml(name, { noName: !!opts.compact })}${isPawn ? `<span class="pawn" role="img" aria-label="${esc(T("read_pawn"))}">♟</span>` : ""}${exits}${t ? '<span class="step-dot" aria-hidden="true"></span>' : ""}${plays[key] ? '<span class="play-dot" aria-hidden="true"></span>' : ""}`;
      if (opts.buttons) {
        const words = `${T("where_cell", { cell: cellWords([r, c]) })}: ${cardWords(name)}${isPawn ? ", " + T("read_pawn") : ""}`;
        cells += `<button type="button" class="${cls}" data-cell="${key}" aria-label="${esc(words)}">${inside}</button>`;
      } else {
        cells += `<div class="${cls}" data-cell="${key}">${inside}</div>`;
      }
    }
  }
  const sideAt = (j) => tag(GRID_SIDES[(j - k + 4) % 4]);   // j: 0 top, 1 right, 2 bottom, 3 left
  return `<div class="gridwrap" data-turn="${k}"><div class="side n">${sideAt(0)}</div><div class="side w">${sideAt(3)}</div>
    <div class="${size === 7 ? "grid7" : "grid5"} labelled">${cells}</div><div class="side e">${sideAt(1)}</div><div class="side s">${sideAt(2)}</div>
    <p class="axes-hint">${esc(T("grid_axes"))}</p></div>`;
}

/* A step [dr, dc] as drawn on a board turned k quarter turns clockwise. */
function rotateStep(d, k) {
  let [dr, dc] = d;
  for (let i = 0; i < k; i++) [dr, dc] = [dc, -dr];
  return [dr, dc];
}

// The virtual hardware, as hardware.signals.Signals.snapshot() describes it: a LED per seat
// side (pattern on/blink/off), the Light/Dark side RGB LED, the status RGB LED, the buzzer.
function signalsHtml(sig) {
  if (!sig || !Object.keys(sig).length) return `<span class="muted">—</span>`;
  const out = [];
  const rgbCss = (rgb) => rgb && rgb.some((v) => v > 0)
    ? `rgb(${rgb.map((v) => Math.round(55 + 200 * Math.min(1, v * 1.6))).join(",")})` : null;
  for (const [side, led] of Object.entries(sig.seats || {})) {
    const cls = led.pattern === "blink" ? "on blink" : led.pattern === "on" ? "on" : "";
    const who = (led.seats || []).filter((s) => s !== side).map(seatName).join(", ");
    out.push(`<span class="led ${cls}" style="--c:#37d67a"><i></i>${esc(seatName(side))}${who ? ` (${esc(who)})` : ""}</span>`);
  }
  for (const [key, label] of [["side", T("side")], ["status", T("status_led")]]) {
    const led = sig[key];
    if (!led) continue;
    const css = rgbCss(led.rgb);
    // side: the side shown, else the LED's colour; status: what it signals, its mode, its colour
    let name;
    if (key === "side") name = led.side ? T("side_" + led.side) : ledName(led.color);
    else if (led.showing) name = STR["sig_" + led.showing] !== undefined ? T("sig_" + led.showing) : led.showing;
    else if (led.mode) name = STR["status_" + led.mode] !== undefined ? T("status_" + led.mode) : led.mode;
    else name = ledName(led.color);
    out.push(`<span class="led ${key}-led ${css ? "on" : ""}" style="--c:${css || "#888"}"><i></i>${esc(label)}: ${esc(name || T("led_off"))}</span>`);
  }
  const buzz = sig.buzzer || {};
  const playing = buzz.playing ? `${tuneName(buzz.playing)}${buzz.note ? ` (${buzz.note})` : ""}` : T("silent");
  out.push(`<span class="buzzer">♪ ${esc(T("buzzer"))}: ${esc(playing)}</span>`);
  return out.join("");
}

function followFrame(img, none, everyMs) {
  async function tick() {
    try {
      const res = await fetch("/api/frame.jpg", { cache: "no-store" });
      if (res.status === 200) {
        // what the camera is doing, said in the page's language over the picture
        const caption = img.parentElement.querySelector(".frame-caption");
        const view = res.headers.get("X-Camera-View");
        if (caption) {
          caption.textContent = view ? (STR["view_" + view] !== undefined ? T("view_" + view) : view) : "";
          caption.hidden = !view;
        }
        const blob = await res.blob();
        const url = URL.createObjectURL(blob);
        const old = img.src;
        img.src = url; img.hidden = false; none.hidden = true;
        if (old && old.startsWith("blob:")) URL.revokeObjectURL(old);
      } else {
        img.hidden = true; none.hidden = false;
        const caption = img.parentElement.querySelector(".frame-caption");
        if (caption) caption.hidden = true;
      }
    } catch (e) { /* try again next tick */ }
    setTimeout(tick, everyMs);
  }
  tick();
}
