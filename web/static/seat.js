/* A player's phone: whose turn, the time left, and big controls for what the camera cannot see. */
"use strict";

const root = $("#seat-app");
const ME = root.dataset.seat;
const JOINED = root.dataset.joined === "yes";
let legal = { key: "", actions: [] };
let gridPick = null; // the grid cell tapped last
/* The cards a hand zone holds a finger apart (docs/vision.md, Hands laid open: 10, 12 beside the mat). */
const HAND_ZONE_HOLDS = 10;

function act(body) {
  return post("/api/action", Object.assign({ by: ME }, body)).then((r) => {
    if (r.ok) toast("✓ " + T("ok"));
    return r;
  });
}

/* --- the card picker (a bottom sheet) ------------------------------------------------------ */

function pickCard(opts) {
  // opts: {title, deck, legalCards:Set|null, multi:bool, faces:[names]|null}
  const deck = opts.deck;
  let color = deck.colors[0];
  const hand = (opts.start || []).slice();   // a hand read by the camera, to correct
  function faces() {
    if (opts.faces) return opts.faces;
    return color === "*" ? deck.wilds : deck.faces.map((f) => `${color}-${f}`);
  }
  function draw() {
    const colorBtns = opts.faces ? "" : deck.colors.concat(["*"]).map((c) =>
      c === "*" ? `<button type="button" class="btn ${color === c ? "sel" : ""}" data-color="*" style="--c:var(--wild)"><span>W</span><span>${esc(T("wilds"))}</span></button>`
        : `<button type="button" class="btn c-${c} ${color === c ? "sel" : ""}" data-color="${c}" style="--c:var(--${c})"><span>${COLOR_SYMBOL[c]}</span><span>${esc(colorName(c))}</span></button>`).join("");
    const faceBtns = faces().map((name) => {
      const dim = opts.legalCards && opts.legalCards.size && !opts.legalCards.has(name) ? "dim" : "";
      const lit = opts.legalCards && opts.legalCards.has(name) ? "legal" : "";
      return `<button type="button" data-card="${esc(name)}">${cardHtml(name, { cls: dim + " " + lit, side: deck === DECKS.dark ? "dark" : "light" })}</button>`;
    }).join("");
    const total = opts.multi && deck.points ? `<p class="hand-total">${esc(T("hand_total", { points: handPoints(hand, deck) }))}</p>` : "";
    const handList = opts.multi ? `<div><b>${esc(T("hand_so_far"))}</b> <div class="hand-list">${hand.map((n, i) =>
      `<button type="button" data-remove="${i}" aria-label="${esc(T("cancel"))} ${esc(cardWords(n))}">${cardHtml(n)}</button>`).join("")}</div>${total}</div>` : "";
    return `<h3>${esc(opts.title)}</h3>
      ${opts.legalCards && opts.legalCards.size ? `<p class="muted small">${esc(T("legal_hint"))}</p>` : ""}
      ${colorBtns ? `<div class="picker-colors">${colorBtns}</div>` : ""}
      <div class="picker-faces">${faceBtns}</div>${handList}
      <div class="button-row">
        ${opts.multi ? `<button type="button" class="btn primary big" data-send>${esc(T("send"))}</button><button type="button" class="btn" data-clear>${esc(T("clear"))}</button>` : ""}
        <button type="button" class="btn ghost" data-cancel>${esc(T("cancel"))}</button></div>`;
  }
  return openDialog({
    label: opts.title,
    draw,
    onClick: (b, done, redraw) => {
      if (b.dataset.color) { color = b.dataset.color; redraw(); return; }
      if (b.dataset.remove !== undefined) { hand.splice(Number(b.dataset.remove), 1); redraw(); return; }
      if (b.dataset.card) {
        if (opts.multi) { hand.push(b.dataset.card); redraw(); return; }
        done(b.dataset.card); return;
      }
      if (b.hasAttribute("data-send")) { done(hand.slice()); return; }
      if (b.hasAttribute("data-clear")) { hand.length = 0; redraw(); }
    },
  });
}

/* docs/rules.md points of a hand: a number card its number, the others from the deck's table. */
function handPoints(hand, deck) {
  return hand.reduce((sum, name) => {
    const c = parseCard(name);
    return sum + (/^\d$/.test(c.face) ? Number(c.face) : (deck.points[c.face] || 0));
  }, 0);
}

/* A number pad in the bottom sheet: the points of a hand, typed. */
function pickPoints(title, start) {
  let digits = start ? String(start) : "";
  return openDialog({
    label: title,
    draw: () => {
      const keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "C", "0", "⌫"].map((k) =>
        `<button type="button" class="btn key ${k === "C" || k === "⌫" ? "ghost" : ""}" data-key="${k}" aria-label="${k === "⌫" ? "backspace" : k === "C" ? esc(T("clear")) : k}">${k}</button>`).join("");
      return `<h3>${esc(title)}</h3>
        <output class="pad-display" aria-live="polite">${esc(digits || "0")}</output>
        <div class="numpad">${keys}</div>
        <div class="button-row"><button type="button" class="btn primary big" data-send>${esc(T("send"))}</button>
        <button type="button" class="btn ghost" data-cancel>${esc(T("cancel"))}</button></div>`;
    },
    onClick: (b, done, redraw) => {
      const k = b.dataset.key;
      if (k) {
        if (k === "C") digits = "";
        else if (k === "⌫") digits = digits.slice(0, -1);
        else if (digits.length < 4) digits = (digits === "0" ? "" : digits) + k;
        redraw();
        return;
      }
      if (b.hasAttribute("data-send")) done(Number(digits || "0"));
    },
  });
}

function pickColor(colors, title) {
  return openDialog({
    label: title || T("declare_q"),
    draw: () => `<h3>${esc(title || T("declare_q"))}</h3><div class="color-choices">${colors.map((c) =>
      `<button type="button" class="btn c-${c}" data-color="${c}" style="--c:var(--${c})">${esc(colorWords(c))}</button>`).join("")}</div>
      <button type="button" class="btn ghost" data-cancel>${esc(T("cancel"))}</button>`,
    onClick: (b, done) => { if (b.dataset.color) done(b.dataset.color); },
  });
}

function pickCount(title, most) {
  let n = 1;
  const max = Math.max(1, most || 60);
  return openDialog({
    label: title,
    draw: () => `<h3>${esc(title)}</h3><div class="stepper">
        <button type="button" class="btn" data-d="-1">−</button><output>${n}</output><button type="button" class="btn" data-d="1">+</button></div>
        <div class="button-row"><button type="button" class="btn primary big" data-send>${esc(T("send"))}</button>
        <button type="button" class="btn ghost" data-cancel>${esc(T("cancel"))}</button></div>`,
    onClick: (b, done, redraw) => {
      if (b.dataset.d) { n = Math.min(max, Math.max(1, n + Number(b.dataset.d))); redraw(); return; }
      if (b.hasAttribute("data-send")) done(n);
    },
  });
}

/* --- what the rules allow this seat now ---------------------------------------------------- */

async function loadLegal(s) {
  const key = JSON.stringify([s.turn, s.top, s.color, s.pending, s.pawn, s.grid, s.over, s.side]);
  if (legal.key === key) return;
  legal = { key, actions: [] };
  try {
    const res = await fetch(`/api/legal?seat=${encodeURIComponent(ME)}`, { cache: "no-store" });
    const data = await res.json();
    if (legal.key === key && data.ok) { legal.actions = data.actions; render(App.state, "legal"); }
  } catch (e) { /* the controls still work without hints */ }
}

function legalDos() { return new Set(legal.actions.map((a) => a.do)); }
function legalPlayCards(cellKey) {
  return new Set(legal.actions.filter((a) => a.do === "play" && (!cellKey || (a.cell && a.cell.join(",") === cellKey))).map((a) => a.card));
}

/* --- rendering ------------------------------------------------------------------------------- */

function render(s, reason) {
  if (reason === "tick") { renderTimer($("#timer")); renderClocks(); return; }
  $("#timer").hidden = false;
  renderEvents(App.recent, $("#events"), true);
  const banner = $("#banner"), text = $("#banner-text");
  if (!s || !s.playing) {
    banner.dataset.mine = "no";
    announceTurn(false);
    text.textContent = T("no_match");
    $("#pile").innerHTML = boardHtml(s);
    $("#controls").innerHTML = ""; $("#prompt").hidden = true; $("#undo-box").innerHTML = "";
    renderTimer($("#timer"));
    return;
  }
  if (s.game === "scoreboard") { renderScoreboard(s); renderUndo(s); return; }
  const mine = s.turn === ME && !s.over;
  banner.dataset.mine = mine ? "yes" : "no";
  if (s.champions && s.champions.length) text.textContent = T("match_over", { seats: s.champions.join(", ") });
  else if (s.over) text.textContent = s.game === "grid" ? T("game_over") : T("round_over");
  else text.textContent = mine ? T("your_turn") : T("waiting_for", { seat: s.turn });
  announceTurn(mine);
  $("#timer").hidden = s.game === "timer";   // the timer game shows its own big clock
  renderTimer($("#timer"));
  if (s.game === "timer") { renderTimerGame(s, mine); renderClocks(); renderPrompt(s); renderUndo(s); return; }
  if (JOINED && (mine || (s.pending && (s.pending.seat === ME || s.pending.seat === null)))) loadLegal(s);

  if (s.game === "grid") renderGrid(s, mine); else renderCards(s, mine);
  renderPrompt(s);
  renderUndo(s);
}

/* The live region says "your turn" once, when the turn arrives (a screen reader hears it
   without looking; the banner's colour and pulse are for the eyes). */
let wasMine = false;
function announceTurn(mine) {
  const live = $("#turn-live");
  if (mine && !wasMine) live.textContent = T("your_turn_live", { seat: ME });
  else if (!mine) live.textContent = "";
  wasMine = mine;
}

function renderCards(s, mine) {
  $("#pile").innerHTML = boardHtml(s);
  if (!JOINED) { $("#controls").innerHTML = ""; return; }
  const p = s.pending || {};
  const dos = legalDos();
  const canPass = p.what === "play-or-pass" && p.seat === ME;
  const free = mine && (!s.pending || canPass);
  const uno = s.uno || {};
  const catchable = uno.window && uno.window !== ME && !(uno.called || []).includes(uno.window);
  $("#controls").innerHTML = `
    <button class="btn primary wide" data-do="play" ${free ? "" : "disabled"}>${esc(canPass ? T("play_drawn") : T("play_card"))}</button>
    <button class="btn" data-do="draw" ${free && !canPass ? "" : "disabled"}>${esc(T("draw"))}</button>
    <button class="btn" data-do="pass" ${canPass || dos.has("pass") ? "" : "disabled"}>${esc(T("pass"))}</button>
    <button class="btn uno wide" data-do="uno" ${s.over ? "disabled" : ""}>${esc(T("uno"))}</button>
    ${catchable ? `<button class="btn danger wide" data-do="catch" data-target="${esc(uno.window)}">${esc(T("catch", { seat: uno.window }))}</button>` : ""}`;
}

/* Timer only: the big clock and one huge button. */
function renderTimerGame(s, mine) {
  $("#pile").innerHTML = timerBoardHtml(s);
  $("#controls").innerHTML = JOINED
    ? `<button class="btn endturn wide" data-do="end-turn" ${mine ? "" : "disabled"}>${esc(T("end_turn"))}</button>` : "";
}

/* Scoreboard only: enter my hand (typed or picked), close the round when I won, who is missing. */
function renderScoreboard(s) {
  const waiting = (s.pending && s.pending.seats) || [];
  const entered = s.entered || {};
  const mineMissing = waiting.includes(ME);
  const others = waiting.filter((x) => x !== ME);
  // The banner says what this phone should do now; green while that is something to do.
  let say, act = false;
  if (s.over) say = T("match_over", { seats: (s.champions || []).join(", ") });
  else if (!JOINED) say = T("round_n", { n: s.round || 1 });
  else if (mineMissing && others.length) { say = T("sb_banner_enter"); act = true; }
  else if (mineMissing) { say = T("sb_banner_close"); act = true; }
  else if (!waiting.length) { say = T("sb_all_in"); act = true; }   // whoever won closes it
  else say = T("sb_banner_wait", { seats: waiting.join(", ") });
  $("#banner").dataset.mine = act ? "yes" : "no";
  $("#banner-text").textContent = say;
  $("#timer").hidden = true;
  $("#pile").innerHTML = scoreBoardHtml(s, { me: ME, noStatus: JOINED });
  const box = $("#prompt");
  if (!JOINED || s.over) {
    box.hidden = true;
    $("#controls").innerHTML = "";
    return;
  }
  const has = Object.prototype.hasOwnProperty.call(entered, ME);
  const title = has ? T("sb_entered", { points: entered[ME] }) : others.length ? T("sb_enter_q") : T("sb_all_in");
  const line = others.length ? T("sb_missing", { seats: others.join(", ") }) : has ? T("sb_all_in") : "";
  box.innerHTML = `<h3>${esc(title)}</h3>${line ? `<p class="small">${esc(line)}</p>` : ""}
    ${others.length && !has ? `<p class="muted small">${esc(T("sb_winner_hint"))}</p>` : ""}`;
  promptDrawn = null;   // (drawn here, not by renderPrompt)
  box.hidden = false;
  $("#controls").innerHTML = `
    <button class="btn primary" data-do="score">${esc(T("enter_points"))}</button>
    <button class="btn" data-do="show-cards">${esc(T("enter_cards"))}</button>
    ${has ? "" : handReadHtml(s, DECKS[s.deck] || DECKS.classic, false)}
    <button class="btn go wide big" data-do="won" ${others.length ? "disabled" : ""}>★ ${esc(T("i_won"))}</button>`;
}

function renderGrid(s, mine) {
  const targets = {}, plays = {};
  if (JOINED && mine) {
    for (const a of legal.actions) {
      if (a.do === "move") targets[a.to.join(",")] = true;
      if (a.do === "play" && a.cell) plays[a.cell.join(",")] = true;
    }
  }
  $("#pile").innerHTML = gridHtml(s, { withExits: true, targets, plays, picked: gridPick, compact: true, buttons: JOINED, turn: SeatExtras.boardTurn() });
  if (!JOINED) { $("#controls").innerHTML = ""; return; }
  const forced = s.pending && s.pending.what === "forced-plays" ? `<p class="wide muted">${esc(T("forced_plays", s.pending))}</p>` : "";
  $("#controls").innerHTML = `${forced}<p class="wide muted small">${esc(T("pick_cell"))}</p>
    <button class="btn wide" data-do="discard" ${mine ? "" : "disabled"}>${esc(T("discard"))}</button>`;
}

let promptDrawn = null;   // the prompt's HTML as last drawn
function renderPrompt(s) {
  const box = $("#prompt");
  const p = s.pending || {};
  let html = "";
  if (JOINED && s.confirm && (!s.confirm.seat || s.confirm.seat === ME)) {
    html = `<h3>${esc(T("confirm_q"))} ${esc(questionText(s.confirm))}</h3><div class="controls">${(s.confirm.choices || []).map((c, i) =>
      `<button class="btn big" data-confirm="${i}">${esc(choiceText(s.confirm, c))}</button>`).join("")}${s.confirm.other
      ? `<button class="btn ghost big" data-do="other-card">${esc(T("other_card"))}</button>` : ""}</div>`;
  } else if (JOINED && p.what === "challenge" && p.seat === ME) {
    html = `<h3>${esc(T("challenge_q", { accused: p.accused, card: cardWords(p.card, p.color) }))}</h3>
      <div class="controls"><button class="btn go big" data-do="accept">${esc(T("accept"))}</button>
      <button class="btn danger big" data-do="challenge">${esc(T("challenge"))}</button></div>`;
  } else if (JOINED && p.what === "declare" && p.seat === ME) {
    html = `<h3>${esc(T("declare_q"))}</h3><div class="color-choices">${(p.colors || deckFor(s).colors).map((c) =>
      `<button class="btn c-${c}" data-declare="${c}" style="--c:var(--${c})">${esc(colorWords(c))}</button>`).join("")}</div>`;
  } else if (JOINED && p.what === "reveal" && (p.seat === ME || p.seat === null)) {
    html = `<h3>${esc(T("reveal_q"))}</h3><button class="btn primary big" data-do="reveal">${esc(T("reveal_q"))}</button>`;
  } else if (JOINED && p.what === "draw" && p.seat === ME) {
    html = `<h3>${esc(T("draw_count_q", { color: colorWords(p.color) }))}</h3><button class="btn primary big" data-do="draw-count">${esc(T("draw"))}</button>`;
  } else if (JOINED && p.what === "show" && (p.seats || []).includes(ME)) {
    // a zone reads about 10 cards laid a finger apart: a larger hand is read in parts
    const held = (s.hands || {})[ME] || 0;
    const inParts = held > HAND_ZONE_HOLDS ? `<p class="note" data-in-parts>${esc(T("hand_in_parts", { held, holds: HAND_ZONE_HOLDS }))}</p>` : "";
    html = `<h3>${esc(T("round_over"))}</h3><p class="small">${esc(T("lay_hand_hint"))}</p>${inParts}${handReadHtml(s, deckFor(s), true)}
      <button class="btn ${myHandRead(s) ? "" : "primary big"}" data-do="show">${esc(T("show_hand"))}</button>`;
  } else if (s.over && !(s.champions && s.champions.length)) {
    html = `<h3>${esc(s.game === "grid" ? T("game_over") : T("round_over"))}</h3><p>${esc(T("winners", { seats: (s.winners || []).join(", ") }))}</p><p class="muted small">${esc(T("next_round_hint"))}</p>`;
  }
  // Drawn again only when it changed: a state that leaves the prompt as it was (another seat
  // confirming its hand) would otherwise swap the buttons under a finger mid-tap, and the tap is lost.
  if (html !== promptDrawn) { box.innerHTML = html; promptDrawn = html; }
  box.hidden = !html;
}

/* --- a hand read by the camera or a photo: card by card, with the points, to confirm ----------- */

function myHandRead(s) {
  return (s.hand_reads || {})[ME] || null;
}

function handReadHtml(s, deck, camera) {
  const r = myHandRead(s);
  const photo = `<label class="btn photo-btn">${esc(T("hand_photo"))}<input type="file" accept="image/jpeg,image/png" capture="environment" data-hand-photo hidden></label>`;
  const kept = r ? r.kept || 0 : 0;
  const between = r && kept > 0 && kept === r.cards.length;       // a part kept, the next not read yet
  const again = camera ? `<button class="btn ${between ? "primary" : "ghost"}" data-do="hand-rescan">${esc(T(between ? "hand_read_next" : "hand_read_again"))}</button>` : "";
  if (!r) return `<div class="hand-read">${photo}${again}</div>`;
  const side = deck === DECKS.dark ? "dark" : "light";
  const rows = r.cards.map((c, i) => `<li class="hand-card ${c.visible === "partial" ? "partial" : ""} ${i < kept ? "kept" : ""}" data-label="${esc(c.label)}">${cardHtml(c.label, { side })}<span class="card-words">${esc(cardWords(c.label))}</span><b class="card-points">${c.points}</b></li>`).join("");
  const known = r.expected !== null && r.expected !== undefined;
  const short = known && r.cards.length < r.expected;
  const count = known && r.expected !== r.cards.length
    ? `<p class="note">${esc(between ? T("hand_kept", { kept, held: r.expected }) : T("hand_read_count", { read: r.cards.length, held: r.expected }))}</p>` : "";
  // a hand larger than its zone is read in parts: keep what reads right, lay the next cards
  const keep = !between && (short || !known)
    ? `<button class="btn" data-do="hand-keep">${esc(T("hand_keep", { n: r.cards.length - kept }))}</button>` : "";
  const drop = kept ? `<button class="btn ghost" data-do="hand-drop">${esc(T("hand_drop"))}</button>` : "";
  return `<div class="hand-read" data-source="${esc(r.source)}" data-kept="${kept}">
    <h4>${esc(r.source === "photo" ? T("hand_read_photo") : T("hand_read_camera"))}</h4>
    <ol class="hand-cards">${rows}</ol>
    <p class="hand-total" data-total="${r.total}">${esc(T("hand_total", { points: r.total }))}</p>${count}
    <div class="button-row"><button class="btn go big" data-do="hand-confirm" ${count ? "disabled" : ""}>✓ ${esc(T("hand_confirm"))}</button>
    <button class="btn" data-do="hand-correct">${esc(T("hand_correct"))}</button></div>${keep}${photo}${again}${drop}</div>`;
}

async function sendHandPhoto(file) {
  // Sent smaller (1600 px on its longer side) where the browser can: the table reads no finer.
  let body = file, type = file.type;
  try {
    const bitmap = await createImageBitmap(file);
    const k = Math.min(1, 1600 / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * k); canvas.height = Math.round(bitmap.height * k);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    body = await new Promise((ok) => canvas.toBlob(ok, "image/jpeg", 0.9)) || file;
    type = body.type || type;
  } catch (e) { /* the file as it is */ }
  toast(T("hand_reading"));
  let data = {};
  try {
    const res = await sendTap(`/api/hand-photo?seat=${encodeURIComponent(ME)}`, {
      headers: { "Content-Type": type, "X-CSRF-Token": CSRF }, body });
    data = await res.json();
  } catch (e) { data = { ok: false, error: "network" }; }
  if (!data.ok) toast(`${T("refused")}: ${reasonText(data.error, data.params, data.message)}`, true);
  App.refreshSoon();
}

root.addEventListener("change", (e) => {
  const input = e.target.closest("[data-hand-photo]");
  if (input && input.files && input.files[0]) sendHandPhoto(input.files[0]);
});

function renderUndo(s) {
  const box = $("#undo-box");
  if (!JOINED) { box.innerHTML = ""; return; }
  const u = s.undo_request;
  if (u && u.by === ME) box.innerHTML = `<p class="note">${esc(T("undo_waiting"))}</p><button class="btn" data-undo="cancel">${esc(T("cancel"))}</button>`;
  else if (u) box.innerHTML = `<p class="note">${esc(T("undo_asked", { seat: u.by }))}</p><button class="btn primary big" data-undo="agree">${esc(T("agree"))}</button>`;
  else if (s.undo_seq == null) box.innerHTML = "";   // nothing to take back yet
  else box.innerHTML = `<button class="btn ghost" data-undo="ask">↶ ${esc(T("undo"))}</button>`;
}

/* --- taps ------------------------------------------------------------------------------------- */

/* "Another card...": the camera's question did not offer the card put down; the player names
   it with the card picker (a wild on the pile: its colour too). A card the rules refuse there
   is asked about once more: put down all the same, it is called illegal. */
async function answerOtherCard(s) {
  const q = s.confirm;
  if (!q || !q.other) return;
  const card = await pickCard({ title: T("other_card_q", { where: whereWords(q.region) }), deck: deckFor(s), legalCards: null });
  if (!card) return;
  const body = { card };
  if (!parseCard(card).color && q.region === "discard" && q.other === "play") {
    const color = await pickColor(deckFor(s).colors);
    if (!color) return;
    body.color = color;
  }
  const r = await post("/api/confirm-card", body);
  if (r.ok || !r.illegal) return;
  const sure = await confirmDialog(T("other_card_illegal_q", { card: cardWords(card, body.color) }), { yes: T("other_card_illegal_yes"), danger: true });
  if (sure) post("/api/confirm-card", Object.assign(body, { illegal: true }));
}

async function playCard(s) {
  const canPass = s.pending && s.pending.what === "play-or-pass";
  const card = await pickCard({ title: canPass ? T("play_drawn") : T("play_card"), deck: deckFor(s), legalCards: legalPlayCards() });
  if (!card) return;
  const body = { do: "play", card };
  if (!parseCard(card).color) {
    const color = await pickColor(deckFor(s).colors);
    if (!color) return;
    body.color = color;
  }
  act(body);
}

root.addEventListener("click", async (e) => {
  const s = App.state;
  if (!s) return;
  const cell = e.target.closest("[data-cell]");
  if (cell && JOINED && s.game === "grid" && s.turn === ME) return tapCell(s, cell.dataset.cell);
  const b = e.target.closest("button");
  if (!b) return;
  if (b.dataset.confirm !== undefined) return post("/api/confirm", { choice: Number(b.dataset.confirm) });
  if (b.dataset.declare) return act({ do: "declare", color: b.dataset.declare });
  // an undo names the action meant: the last one (asking), the one asked about (agreeing)
  if (b.dataset.undo === "ask") return post("/api/undo", { seq: s.undo_seq });
  if (b.dataset.undo === "agree") return post("/api/undo", { seq: (s.undo_request || {}).seq });
  if (b.dataset.undo === "cancel") return post("/api/undo", { cancel: true });
  switch (b.dataset.do) {
    case "play": return playCard(s);
    case "draw": return act({ do: "draw" });
    case "pass": return act({ do: "pass" });
    case "end-turn": return act({ do: "pass" });
    case "score": {
      const n = await pickPoints(T("points_q"), (s.entered || {})[ME]);
      if (n !== null) act({ do: "score", points: n });
      return;
    }
    case "show-cards": {
      const cards = await pickCard({ title: T("show_hand_q"), deck: DECKS[s.deck] || DECKS.classic, multi: true });
      if (cards) act({ do: "show", cards });
      return;
    }
    case "hand-confirm": {
      const r = myHandRead(s);
      if (r) act({ do: "show", cards: r.cards.map((c) => c.label) });
      return;
    }
    case "hand-correct": {
      const r = myHandRead(s);
      const deck = s.game === "scoreboard" ? (DECKS[s.deck] || DECKS.classic) : deckFor(s);
      const cards = await pickCard({ title: T("show_hand_q"), deck, multi: true, start: r ? r.cards.map((c) => c.label) : [] });
      if (cards) act({ do: "show", cards });
      return;
    }
    case "hand-rescan": return post("/api/hand-read", {});
    case "hand-keep": return post("/api/hand-keep", {});
    case "hand-drop": {
      if (await confirmDialog(T("hand_drop_q"), { yes: T("hand_drop"), danger: true })) post("/api/hand-keep", { drop: true });
      return;
    }
    case "other-card": return answerOtherCard(s);
    case "won": return act({ do: "round" });
    case "uno": return act({ do: "uno" });
    case "catch": return act({ do: "catch", target: b.dataset.target });
    case "accept": return act({ do: "accept" });
    case "challenge": {
      const p = s.pending;
      const question = T("verdict_q", { accused: p.accused });
      const verdict = await openDialog({
        label: question,
        draw: () => `<h3>${esc(question)}</h3><div class="controls">
          <button type="button" class="btn danger big" data-v="guilty">${esc(T("guilty"))}</button>
          <button type="button" class="btn go big" data-v="innocent">${esc(T("innocent"))}</button></div>
          <button type="button" class="btn ghost" data-cancel>${esc(T("cancel"))}</button>`,
        onClick: (v, done) => { if (v.dataset.v) done(v.dataset.v); },
      });
      if (verdict) act({ do: "challenge", verdict });
      return;
    }
    case "reveal": {
      const p = s.pending;
      const card = await pickCard({ title: T("reveal_q"), deck: deckFor(s), faces: p.faces || null });
      if (!card) return;
      const body = { do: "reveal", card };
      if (!parseCard(card).color && p.reason !== "flip") {
        const color = await pickColor(deckFor(s).colors);
        if (!color) return;
        body.color = color;
      }
      return act(body);
    }
    case "draw-count": {
      const n = await pickCount(T("draw_count_q", { color: colorWords(s.pending.color) }), s.pending.most);
      if (n) act({ do: "draw", count: n });
      return;
    }
    case "show": {
      const cards = await pickCard({ title: T("show_hand_q"), deck: deckFor(s), multi: true });
      if (cards) act({ do: "show", cards });
      return;
    }
    case "discard": {
      const card = await pickCard({ title: T("discard"), deck: DECKS.classic, legalCards: null });
      if (card) act({ do: "discard", card });
      return;
    }
  }
});

async function tapCell(s, key) {
  const [r, c] = key.split(",").map(Number);
  const offBoard = r < 0 || r > 4 || c < 0 || c > 4;
  const canMove = legal.actions.some((a) => a.do === "move" && a.to.join(",") === key);
  gridPick = key;
  render(s, "pick");
  if (offBoard) {
    // leaving the board ends the game: asked first (a slip of the finger would be final)
    if (canMove && await confirmDialog(T("leave_board_q"), { yes: T("leave_board") })) act({ do: "move", to: [r, c] });
    gridPick = null;
    render(App.state, "pick");
    return;
  }
  const what = await openDialog({
    label: cellWords([r, c]),
    draw: () => `<h3>${esc(cellWords([r, c]))}</h3><div class="controls">
      <button type="button" class="btn primary big wide" data-g="move" ${canMove ? "" : "disabled"}>♟ ${esc(T("move_pawn"))}</button>
      <button type="button" class="btn big wide" data-g="play">${esc(T("play_here"))}</button></div>
      <button type="button" class="btn ghost" data-cancel>${esc(T("cancel"))}</button>`,
    onClick: (b, done) => { if (b.dataset.g) done(b.dataset.g); },
  });
  if (what === "move") act({ do: "move", to: [r, c] });
  if (what === "play") {
    const card = await pickCard({ title: T("play_here") + " " + cellWords([r, c]), deck: DECKS.classic, legalCards: legalPlayCards(key) });
    if (card) act({ do: "play", card, cell: [r, c] });
  }
  gridPick = null;
  render(App.state, "pick");
}

App.onChange(render);
App.start();
