/* Runs the page's own wording functions (web/static/common.js) under node, without a browser:
   reads {"lang": "en"|"ja", "strings": {...}, "questions": [...]} on stdin and prints, for each
   question, [questionText, ...choiceText of each choice] as JSON. */
"use strict";
const fs = require("fs");
const vm = require("vm");
const path = require("path");

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const el = (text) => ({ textContent: text, content: "" });
const document = {
  getElementById: (id) => el(id === "i18n" ? JSON.stringify(input.strings) : "{}"),
  querySelector: () => el(""), querySelectorAll: () => [], addEventListener() {},
  documentElement: { lang: input.lang },
};
const ctx = { document, console, setTimeout, clearTimeout, setInterval, clearInterval,
              navigator: {}, location: {}, EventSource: function () {}, fetch() {} };
ctx.window = ctx;
vm.createContext(ctx);
const src = fs.readFileSync(path.join(__dirname, "..", "..", "web", "static", "common.js"), "utf8");
vm.runInContext(src + "\n;this.say = (q) => [questionText(q), ...q.choices.map((c) => choiceText(q, c))];", ctx);
process.stdout.write(JSON.stringify(input.questions.map((q) => ctx.say(q))));
