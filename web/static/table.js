/* The table view (TV or tablet): camera, board, turn and timer, lights and buzzer, events, QR. */
"use strict";

function renderTable(s, reason) {
  if (reason === "tick") { renderTimer($("#timer")); return; }
  $("#board").innerHTML = boardHtml(s);
  $("#turn").textContent = s && s.playing ? (s.over ? (s.champions && s.champions.length ? "★ " + s.champions.join(", ") : T("round_over")) : (s.turn || "—")) : "—";
  const status = [];
  if (s && s.playing) {
    status.push(`<span class="pill">${esc(T("game_" + s.game))}</span>`);
    if (s.side) status.push(`<span class="pill ${s.side}">${esc(T("side_" + s.side))}</span>`);
    if (s.pending && s.pending.what === "forced-plays") status.push(`<span class="pill">${esc(T("forced_plays", s.pending))}</span>`);
    if (s.uno && s.uno.window) status.push(`<span class="pill">${esc(T("catch_window", { seat: s.uno.window }))}</span>`);
  }
  $("#status-line").innerHTML = status.join("");
  $("#signals").innerHTML = signalsHtml(s && s.signals);
  renderEvents(App.recent, $("#events"), true);
  renderTimer($("#timer"));
}

App.onChange(renderTable);
App.start();
followFrame($("#frame"), $("#frame-none"), 1000);
setInterval(() => App.refresh(), 3000); // the lights change without bus events of their own
