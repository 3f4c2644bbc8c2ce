/* The table view (TV or tablet): camera, board, turn and timer, lights and buzzer, events, QR. */
"use strict";

function turnText(s) {
  if (!s || !s.playing) return "—";
  if (s.champions && s.champions.length) return "★ " + s.champions.map(seatName).join(", ");
  if (s.over) return T("round_over");
  if (s.game === "scoreboard") return T("round_n", { n: s.round || 1 });
  return s.turn ? seatName(s.turn) : "—";
}

/* The grid game's pawn steps for the seat on turn (GET /api/legal), drawn on the board: on-board
   steps as dots, steps off the board as arrows on the pawn's cell. */
const steps = { key: "", targets: {}, exits: [] };
async function loadSteps(s) {
  const key = s && s.playing && s.game === "grid" && !s.over && s.turn
    ? JSON.stringify([s.turn, s.pawn, s.grid, s.pending]) : "";
  if (key === steps.key) return;
  Object.assign(steps, { key, targets: {}, exits: [] });
  if (!key) return;
  try {
    const res = await fetch(`/api/legal?seat=${encodeURIComponent(s.turn)}`, { cache: "no-store" });
    const data = await res.json();
    if (steps.key !== key || !data.ok) return;
    for (const a of data.actions) {
      if (a.do !== "move") continue;
      const [r, c] = a.to;
      if (r >= 0 && r <= 4 && c >= 0 && c <= 4) steps.targets[a.to.join(",")] = true;
      else steps.exits.push([Math.sign(r - s.pawn[0]), Math.sign(c - s.pawn[1])]);
    }
    renderTable(App.state, "steps");
  } catch (e) { /* the board without its hints */ }
}

function renderTable(s, reason) {
  if (reason === "tick") { renderTimer($("#timer")); renderClocks(); return; }
  const game = s && s.playing ? s.game : null;
  // Timer and scoreboard modes have no camera: the board takes its place.
  $(".table-layout").classList.toggle("no-camera", game === "timer" || game === "scoreboard");
  $(".table-layout").dataset.game = game || "";
  if (reason !== "steps") loadSteps(s);
  $("#board").innerHTML = boardHtml(s, { targets: steps.targets, exits: steps.exits });
  $("#turn").textContent = turnText(s);
  $(".turn-label").textContent = game === "scoreboard" ? T("scoreboard") : T("turn");
  const status = [];
  if (s && s.playing) {
    status.push(`<span class="pill">${esc(T("game_" + s.game))}</span>`);
    if (s.game === "timer") status.push(`<span class="pill">${esc(T("turn_n", { n: (s.turns || 0) + 1 }))}</span>`);
    if (s.side) status.push(`<span class="pill ${s.side}">${esc(T("side_" + s.side))}</span>`);
    if (s.pending && s.pending.what === "forced-plays") status.push(`<span class="pill">${esc(T("forced_plays", s.pending))}</span>`);
    if (s.uno && s.uno.window) status.push(`<span class="pill">${esc(T("catch_window", { seat: s.uno.window }))}</span>`);
  }
  $("#status-line").innerHTML = status.join("");
  $("#signals").innerHTML = signalsHtml(s && s.signals);
  renderEvents(App.recent, $("#events"), true);
  renderTimer($("#timer"));
  renderClocks();
}

App.onChange(renderTable);
App.start();
followFrame($("#frame"), $("#frame-none"), 1000);
setInterval(() => App.refresh(), 3000); // the lights change without bus events of their own

/* The join code follows the network: the server works the address out anew for each page, so
   the panel is read again now and then (Wi-Fi that comes up late, a new DHCP lease). */
async function refreshJoinPanel() {
  try {
    const res = await fetch("/", { credentials: "same-origin", cache: "no-store" });
    if (!res.ok) return;
    const fresh = new DOMParser().parseFromString(await res.text(), "text/html").getElementById("join-panel");
    const now = $("#join-panel");
    if (fresh && now && fresh.innerHTML !== now.innerHTML) {
      now.innerHTML = fresh.innerHTML;
      now.dataset.reach = fresh.dataset.reach;
    }
  } catch (e) { /* the next look will try again */ }
}
setInterval(refreshJoinPanel, 10000);
