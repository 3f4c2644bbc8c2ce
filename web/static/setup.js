/* The set-up page: game, seats, docs/rules.md flags, the 5x5 grid, start and end a match. */
"use strict";

const form = $("#setup-form");
const OPTIONS = JSON.parse($("#options-data").textContent);
const result = $("#setup-result");

function game() { return form.querySelector('input[name="game"]:checked').value; }

function seats() {
  if (game() === "grid") return Array.from(form.querySelectorAll('input[name="side"]:checked')).map((i) => i.value);
  return form.seats.value.split(/\n|,/).map((x) => x.trim()).filter(Boolean);
}

/* Show only the fields of the chosen game: each is marked data-games="grid timer ...". */
function showFields(g) {
  for (const el of document.querySelectorAll("[data-games]")) {
    const on = el.dataset.games.split(" ").includes(g);
    el.hidden = !on;
    for (const input of el.querySelectorAll("input, select, textarea")) input.disabled = !on;
  }
}

function renderOptions() {
  const g = game();
  document.body.dataset.game = g;
  showFields(g);
  $("#options").innerHTML = (OPTIONS[g] || []).map((o) => {
    const label = esc(T("opt_" + o.name));
    if (o.kind === "bool") return `<label><span>${label}</span><input type="checkbox" name="opt-${o.name}" ${o.default ? "checked" : ""}></label>`;
    if (o.choices) return `<label class="choice"><span>${label}</span><select name="opt-${o.name}">${o.choices.map((c) =>
      `<option value="${esc(c)}" ${c === o.default ? "selected" : ""}>${esc(T("choice_" + c))}</option>`).join("")}</select></label>`;
    return `<label><span>${label}</span><input type="number" name="opt-${o.name}" value="${o.default}" min="${o.min ?? 0}" inputmode="numeric"></label>`;
  }).join("");
  renderFirst();
  renderSeating();
  renderStartCard();
}

function renderFirst() {
  const sel = form.first;
  const old = sel.value;
  sel.innerHTML = seats().map((s) => `<option value="${esc(s)}" ${s === old ? "selected" : ""}>${esc(seatName(s))}</option>`).join("");
}

/* Where each seat sits (the side of the mat its arms come from): the default is
   companion.seating's Seating.around, play order round the table from the south side. */
const SIDES = ["north", "east", "south", "west"];
const CLOCKWISE = ["south", "west", "north", "east"];

function defaultSides(list) {
  if (list.length === 2) return { [list[0]]: "south", [list[1]]: "north" };
  const per = Math.ceil(list.length / CLOCKWISE.length);
  return Object.fromEntries(list.map((s, i) => [s, CLOCKWISE[Math.floor(i / per)] || "east"]));
}

function chosenSides() {
  const out = {};
  for (const el of form.querySelectorAll('select[name="seat-side"]')) out[el.dataset.seat] = el.value;
  return out;
}

function renderSeating() {
  const box = $("#seating");
  const old = chosenSides();
  const list = seats();
  const def = defaultSides(list);
  box.innerHTML = list.map((s) => `<label class="row"><span>${esc(seatName(s))}</span><select name="seat-side" data-seat="${esc(s)}">` +
    `<option value="">${esc(T("seating_default", { side: T("side_name_" + def[s]) }))}</option>` +
    SIDES.map((side) => `<option value="${side}" ${old[s] === side ? "selected" : ""}>${esc(T("side_name_" + side))}</option>`).join("") +
    `</select></label>`).join("");
}

/* {seat: side} for every seat when the organiser changed one; null for the default. */
function readSeating() {
  const chosen = chosenSides();
  if (!Object.values(chosen).some(Boolean)) return null;
  const def = defaultSides(seats());
  return Object.fromEntries(seats().map((s) => [s, chosen[s] || def[s]]));
}

/* The opening card (Flip and classic): picked from the deck's faces, colour first, as a phone
   picks a card; kept in the hidden "start" field as the engine's card name. */
function startDeck() { return game() === "flip" ? DECKS.light : DECKS.classic; }

function inDeck(name, deck) {
  const c = parseCard(name);
  return deck.wilds.includes(name) || (deck.colors.includes(c.color) && deck.faces.includes(c.face));
}

function renderStartCard() {
  const deck = startDeck();
  if (!inDeck(form.start.value, deck)) form.start.value = `${deck.colors[0]}-5`;
  $("#start-card").innerHTML = `${cardHtml(form.start.value, { noName: true })}<span>${esc(cardWords(form.start.value))}</span>`;
}

function pickStartCard() {
  const deck = startDeck();
  const now = parseCard(form.start.value);
  let color = now.color && deck.colors.includes(now.color) ? now.color : "*";
  const faces = () => (color === "*" ? deck.wilds : deck.faces.map((f) => `${color}-${f}`));
  return openDialog({
    label: T("pick_start_card"),
    draw: () => `<h3>${esc(T("pick_start_card"))}</h3><div class="picker-colors">${deck.colors.concat(["*"]).map((c) =>
      c === "*" ? `<button type="button" class="btn ${color === c ? "sel" : ""}" data-color="*" style="--c:var(--wild)"><span>W</span><span>${esc(T("wilds"))}</span></button>`
        : `<button type="button" class="btn c-${c} ${color === c ? "sel" : ""}" data-color="${c}" style="--c:var(--${c})"><span>${COLOR_SYMBOL[c]}</span><span>${esc(colorName(c))}</span></button>`).join("")}</div>
      <div class="picker-faces">${faces().map((name) => `<button type="button" data-card="${esc(name)}" aria-label="${esc(cardWords(name))}">${cardHtml(name)}</button>`).join("")}</div>
      <div class="button-row"><button type="button" class="btn ghost" data-cancel>${esc(T("cancel"))}</button></div>`,
    onClick: (b, done, redraw) => {
      if (b.dataset.color) { color = b.dataset.color; redraw(); return; }
      if (b.dataset.card) done(b.dataset.card);
    },
  }).then((card) => {
    if (card) { form.start.value = card; renderStartCard(); }
  });
}

function readOptions() {
  const out = {};
  for (const o of OPTIONS[game()] || []) {
    const el = form.elements["opt-" + o.name];
    if (!el) continue;
    const v = o.kind === "bool" ? el.checked : o.choices ? el.value : Number(el.value);
    if (v !== o.default) out[o.name] = v;
  }
  return out;
}

function readGrid() {
  const words = form.grid.value.split(/\s+/).filter(Boolean);
  if (words.length !== 25) return null;
  return [0, 1, 2, 3, 4].map((r) => words.slice(r * 5, r * 5 + 5));
}

function showGrid(grid) {
  form.grid.value = grid.map((row) => row.join(" ")).join("\n");
  previewGrid();
}

function previewGrid() {
  const grid = readGrid();
  $("#grid-preview").innerHTML = grid ? `<div class="grid5">${grid.flat().map((n, i) =>
    `<div class="cell">${cardHtml(n, { noName: true })}${i === 12 ? '<span class="pawn">♟</span>' : ""}</div>`).join("")}</div>` : "";
}

async function getGrid(url) {
  const res = await fetch(url, { cache: "no-store" });
  const data = await res.json();
  if (data.ok) showGrid(data.grid); else toast(reasonText(data.error, data.params, data.message), true);
  return data.ok ? data.grid : null;
}

form.addEventListener("change", (e) => {
  if (e.target.name === "game") renderOptions();
  if (e.target.name === "side") renderFirst();
});
form.seats.addEventListener("input", () => { renderFirst(); renderSeating(); });
form.grid.addEventListener("input", previewGrid);
$("#start-card").addEventListener("click", pickStartCard);
$("#deal-random").addEventListener("click", () => getGrid("/api/deal-grid"));
$("#deal-camera").addEventListener("click", () => getGrid("/api/camera-grid"));

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  // a new match ends the one being played: asked first, as "End the match" is
  if (App.state && App.state.playing
      && !(await confirmDialog(T("start_confirm"), { yes: T("start_match") }))) return;
  const g = game();
  const setup = { game: g, seats: seats(), options: readOptions() };
  if (g === "grid") {
    setup.first = form.first.value;
    setup.grid = readGrid() || (await getGrid("/api/deal-grid"));
  } else if (g === "timer") {
    setup.first = form.first.value;           // no dealer, no card: just whose turn it is first
  } else if (g !== "scoreboard") {            // the scoreboard has no turns at all
    setup.dealer = form.first.value;
    setup.start = form.start.value.trim();
  }
  const body = { setup, phones_per_seat: Number(form.phones_per_seat.value) || 1 };
  const seating = g === "flip" || g === "classic" ? readSeating() : null;
  if (seating) body.seating = seating;        // beside the replay set-up: the engines never see it
  const r = await post("/api/match", body);
  result.textContent = r.ok ? T("started_ok") : `${T("err")}: ${r.message || r.error}`;
  result.className = "result " + (r.ok ? "ok" : "bad");
  if (r.ok) setTimeout(() => { location.href = "/"; }, 700);
});

// Phones per seat also applies at once, to the match being played (a player changed phones).
form.phones_per_seat.addEventListener("change", async () => {
  const r = await post("/api/settings", { phones_per_seat: Number(form.phones_per_seat.value) || 1 });
  if (r.ok) toast("✓ " + T("phones_per_seat") + ": " + r.phones_per_seat);
});

$("#end-match").addEventListener("click", async () => {
  if (!(await confirmDialog(T("end_confirm"), { yes: T("end_match"), danger: true }))) return;
  const r = await post("/api/match/end", {});
  if (r.ok) toast("✓ " + T("end_match"));
});

$("#next-round").addEventListener("click", async () => {
  const s = App.state;
  if (!s || !s.pending) return;
  const body = { by: s.pending.seat, do: "round" };
  if (s.game === "grid") body.grid = readGrid() || (await getGrid("/api/deal-grid"));
  else { body.start = form.start.value.trim(); body.dealer = s.pending.seat; }
  const r = await post("/api/action", body);
  if (r.ok) toast("✓ " + T("next_round"));
});

App.onChange((s) => {
  const waiting = s && s.playing && s.pending && s.pending.what === "round";
  $("#round-box").hidden = !waiting;
  $("#end-match").disabled = !(s && s.playing);
  $("#match-now").hidden = !(s && s.playing);   // apart from "Start the match", while one plays
});

/* The organiser's list of joined phones, each with a button to remove it (GET /api/phones). */
async function renderPhones() {
  const list = $("#phones");
  if (!list) return;
  let data;
  try {
    data = await (await fetch("/api/phones", { credentials: "same-origin", cache: "no-store" })).json();
  } catch (e) { return; }
  if (!data.ok) return;
  const seated = data.phones.filter((p) => p.seat !== null).length;
  $("#phones-count").textContent = T("phones_count", { n: seated, max: data.max_phones });
  list.innerHTML = data.phones.map((p) => {
    const who = p.seat === null ? T("phones_organiser") : seatName(p.seat);
    const when = new Date(p.joined_at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    const me = p.you ? ` (${esc(T("phones_you"))})` : "";
    return `<li class="phone-row" data-id="${esc(p.id)}"><span><strong>${esc(who)}</strong>${me}
      <span class="muted small">${esc(when)} · ${esc(T("phones_from"))} ${esc(p.address || "?")}</span></span>
      ${p.you ? "" : `<button type="button" class="btn small danger" data-remove="${esc(p.id)}">${esc(T("phones_remove"))}</button>`}</li>`;
  }).join("");
}
const phonesList = $("#phones");
if (phonesList) {
  phonesList.addEventListener("click", async (e) => {
    const btn = e.target.closest("[data-remove]");
    if (!btn) return;
    if (!(await confirmDialog(T("phones_remove_confirm"), { yes: T("phones_remove"), danger: true }))) return;
    const r = await post("/api/phones/remove", { id: btn.dataset.remove });
    if (r.ok) toast("✓ " + T("phones_removed"));
    renderPhones();
  });
  renderPhones();
  setInterval(renderPhones, 5000);
}

renderOptions();
App.start();
followFrame($("#frame"), $("#frame-none"), 1000);
