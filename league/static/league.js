// The league page: asks /api/league once a second and redraws the tables, the standings and
// the matches. Everything the tables sent is shown as text (textContent), never as HTML.
"use strict";
const T = JSON.parse(document.getElementById("i18n").textContent);

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// Append what is there (a line with no value is null and is left out).
function add(node, ...children) {
  node.append(...children.filter(child => child !== null && child !== undefined));
}

function line(label, value) {
  return value === null || value === undefined || value === "" ? null
    : el("div", {className: "small"}, el("span", {className: "muted"}, label + ": "), value);
}

function scoresText(scores) {
  return Object.entries(scores || {}).map(([seat, n]) => `${seat} ${n}`).join(" · ");
}

function tableCard(table) {
  const s = table.state || {};
  const status = table.online === null ? T.unknown : table.online ? T.online : T.offline;
  const card = el("article", {className: "card", id: "table-" + table.name},
    el("h3", {}, table.name, el("span", {className: "dot " + (table.online ? "on" : "off")}, status)));
  if (!s.game) {
    card.append(el("div", {className: "muted small"}, T.no_match));
  } else {
    add(card, line(T.match, `${T["game_" + s.game] || s.game} #${s.match ?? ""}`),
        line(T.turn, s.champions && s.champions.length ? null : s.turn),
        line(T.champions, (s.champions || []).join(", ")),
        line(T.top, s.top), line(T.color, s.color), line(T.side, s.side));
    if (Array.isArray(s.grid)) {
      const grid = el("div", {className: "grid"});
      s.grid.forEach((row, r) => row.forEach((cell, c) => {
        const pawn = Array.isArray(s.pawn) && s.pawn[0] === r && s.pawn[1] === c;
        grid.append(el("span", {className: pawn ? "pawn" : ""}, cell || ""));
      }));
      card.append(grid);
    }
    add(card, line(T.scores, scoresText(s.scores)));
  }
  add(card, line(T.last_seq, table.last_seq || null));
  return card;
}

function standingsTables(standings) {
  const games = Object.keys(standings || {});
  if (!games.length) return [el("p", {className: "muted"}, T.no_standings)];
  return games.map(game => {
    const head = el("tr", {}, ...[T.player, T.played, T.won, T.points].map(h => el("th", {}, h)));
    const rows = standings[game].map(r => el("tr", {}, el("td", {}, r.player), el("td", {}, r.played),
                                              el("td", {}, r.won), el("td", {}, r.points)));
    const table = el("table", {className: "standings"},
                     el("caption", {}, T["game_" + game] || game), el("thead", {}, head), el("tbody", {}, ...rows));
    table.dataset.game = game;
    return table;
  });
}

function matchRow(m) {
  const how = m.over ? T.finished : m.abandoned ? T.abandoned : T.playing;
  const open = el("button", {className: "link", type: "button"}, T.history);
  open.addEventListener("click", () => showHistory(m));
  return el("tr", {}, el("td", {}, m.table), el("td", {}, `${T["game_" + m.game] || m.game || ""} #${m.match}`),
            el("td", {}, how), el("td", {}, (m.champions || []).join(", ")), el("td", {}, scoresText(m.scores)),
            el("td", {}, m.entries), el("td", {}, open));
}

async function showHistory(m) {
  const dialog = document.getElementById("history");
  document.getElementById("history-title").textContent = `${m.table} · ${T.match} #${m.match}`;
  const list = document.getElementById("history-list");
  list.replaceChildren();
  dialog.showModal();
  const reply = await fetch(`api/match/${encodeURIComponent(m.table)}/${m.match}?epoch=${encodeURIComponent(m.epoch)}`);
  if (!reply.ok) return;
  for (const entry of (await reply.json()).entries) {
    const said = entry.events.map(e => e.type).join(", ");
    list.append(el("li", {}, `#${entry.seq} ${entry.source}: ${JSON.stringify(entry.action)} → ${said}`));
  }
}

async function refresh() {
  try {
    const reply = await fetch("api/league", {cache: "no-store"});
    const league = await reply.json();
    // the broker's state in the page's language; the log has the sentence with the details
    document.getElementById("broker").textContent = T["broker_" + league.broker_state] || "";
    if (league.tables.length) document.getElementById("tables").replaceChildren(...league.tables.map(tableCard));
    document.getElementById("standings").replaceChildren(...standingsTables(league.standings));
    const head = el("tr", {}, ...["", T.match, "", T.champions, T.scores, T.entries, ""].map(h => el("th", {}, h)));
    document.getElementById("matches").replaceChildren(
      el("table", {}, el("thead", {}, head), el("tbody", {}, ...league.matches.slice(0, 100).map(matchRow))));
  } catch (err) {
    console.error(err);  // the next refresh tries again
    document.getElementById("broker").textContent = T.offline;
  }
}

refresh();
setInterval(refresh, 1000);
