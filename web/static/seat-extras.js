/* A player's phone at the table, besides its controls: a nudge when the turn or a camera question
   comes to it (vibration; a short beep too where the player turned the sound on), the screen kept
   awake during a match (the Screen Wake Lock API, asked again when the page is seen again), and
   the grid game's board turned so that the seat's own side is at the bottom. Loaded before
   seat.js, which asks SeatExtras.boardTurn() how to draw the grid. */
"use strict";

const SeatExtras = (() => {
  const root = document.getElementById("seat-app");
  const me = root.dataset.seat;
  const joined = root.dataset.joined === "yes";
  const SOUND_KEY = "uno-companion.sound";
  const TURN_KEY = "uno-companion.board-turn." + me;
  /* Quarter turns clockwise that bring a side to the bottom of the board. */
  const TURN_FOR = { south: 0, east: 1, north: 2, west: 3 };

  function stored(key) {
    try { return localStorage.getItem(key); } catch (e) { return null; }
  }
  function store(key, value) {
    try { localStorage.setItem(key, value); } catch (e) { /* private mode: this page only */ }
  }

  /* --- the nudge: vibration, and a beep where the sound is on ---------------------------- */
  let audio = null;
  function soundOn() { return stored(SOUND_KEY) === "on"; }
  function audioContext() {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!audio) audio = new Ctx();
    return audio;
  }
  function beep() {
    const ctx = audioContext();
    if (!ctx) return;
    if (ctx.state === "suspended" && ctx.resume) ctx.resume();
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = 880;
    gain.gain.value = 0.2;
    osc.connect(gain);
    gain.connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.15);
  }
  function nudge() {
    if (typeof navigator.vibrate === "function") navigator.vibrate([200, 100, 200]);
    if (soundOn()) beep();
  }

  let wasMine = false, lastQuestion = null;
  function watch(s) {
    if (!joined || !s) return;
    const mine = !!(s.playing && s.turn === me && !s.over && s.game !== "scoreboard");
    const q = s.playing && s.confirm && (!s.confirm.seat || s.confirm.seat === me) ? JSON.stringify(s.confirm) : null;
    if ((mine && !wasMine) || (q && q !== lastQuestion)) nudge();
    wasMine = mine;
    lastQuestion = q;
    keepAwake(!!s.playing);
  }

  /* --- the screen kept awake while a match is played --------------------------------------- */
  let lock = null, asking = false, wanted = false;
  function wakeLockApi() { return navigator.wakeLock && typeof navigator.wakeLock.request === "function" ? navigator.wakeLock : null; }
  async function keepAwake(want) {
    wanted = want;
    const api = wakeLockApi();
    const hint = document.getElementById("wake-hint");
    if (hint) hint.hidden = !(want && !api);
    if (!api) return;
    if (!want) {
      if (lock) { const held = lock; lock = null; held.release().catch(() => {}); }
      return;
    }
    if (lock || asking || document.visibilityState !== "visible") return;
    asking = true;
    try {
      const sentinel = await api.request("screen");
      lock = sentinel;
      sentinel.addEventListener("release", () => { if (lock === sentinel) lock = null; });
      if (!wanted) keepAwake(false);
    } catch (e) {
      /* refused (battery saver, a hidden page): asked again when the page is seen again */
    } finally {
      asking = false;
    }
  }
  // the browser lets the lock go when the page is hidden: asked again when it is seen again
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && wanted) keepAwake(true);
  });

  /* --- the grid turned: this seat's side at the bottom ------------------------------------- */
  function canTurn() { return (TURN_FOR[me] || 0) > 0; }   // south sits at the bottom already
  function boardTurn() { return canTurn() && stored(TURN_KEY) === "mine" ? TURN_FOR[me] : 0; }

  function setUp() {
    const sound = document.getElementById("sound-on");
    if (sound) {
      sound.checked = soundOn();
      sound.addEventListener("change", () => {
        store(SOUND_KEY, sound.checked ? "on" : "off");
        if (sound.checked) audioContext();   // made in a tap: browsers let it sound later
      });
    }
    const turn = document.getElementById("turn-board");
    if (turn) {
      const show = () => turn.setAttribute("aria-pressed", String(boardTurn() !== 0));
      show();
      turn.addEventListener("click", () => {
        store(TURN_KEY, stored(TURN_KEY) === "mine" ? "north-up" : "mine");
        show();
        if (typeof App !== "undefined" && App.state) App.emit("turn-board");
      });
    }
    App.onChange((s, reason) => {
      if (reason === "tick") return;
      if (turn) turn.hidden = !(canTurn() && s && s.playing && s.game === "grid");
      watch(s);
    });
  }

  return { boardTurn, setUp };
})();

SeatExtras.setUp();
