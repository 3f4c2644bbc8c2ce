/* Runs the page's own wording functions (web/static/common.js) under node, without a browser:
   reads {"lang": "en"|"ja", "strings": {...}, "exprs": ["T('ok')", ...]} on stdin and prints the
   value of each expression as JSON. */
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
vm.runInContext(src, ctx);
process.stdout.write(JSON.stringify(input.exprs.map((e) => vm.runInContext(e, ctx))));
