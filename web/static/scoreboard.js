/* The scoreboard is drawn by the server; reload it when a round or the match ends. */
"use strict";

App.onChange((s, reason) => {
  if (["round-over", "game-over", "match-over", "match-started", "match-ended", "undone", "hand-shown"].includes(reason)) {
    setTimeout(() => location.reload(), 300);
  }
});
App.start();
