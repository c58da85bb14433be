// The pages' stylesheet and their one small script, served by the daemon itself (no CDN: the
// pages work offline and under a CSP of 'self'). Kept as strings in a module so `tsc` ships
// them in dist/ with no copy step; their URLs carry a content hash, so browsers may cache
// them forever and a new release is fetched at once.
import { createHash } from "node:crypto";

const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --panel: #f6f8fa;
  --link: #0550ae; --focus: #0969da;
  --healthy-bg: #dafbe1; --healthy: #116329; --degraded-bg: #fff8c5; --degraded: #7d4e00;
  --unreliable-bg: #ffebe9; --unreliable: #a40e26; --unknown-bg: #eaeef2; --unknown: #424a53; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -10000px; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 10; }
header.top { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: center; padding: 10px 24px; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header.top .age { color: var(--muted); margin-right: auto; }
header.top form { margin: 0; }
main { padding: 16px 24px 48px; max-width: 1280px; }
h1 { font-size: 1.6rem; margin: 8px 0 12px; word-break: break-word; }
h2 { font-size: 1.2rem; margin: 28px 0 10px; }
h3 { font-size: 1rem; margin: 18px 0 8px; }
.banner { margin: 0; padding: 10px 24px; border-bottom: 1px solid var(--line); }
.banner.error { background: var(--unreliable-bg); color: var(--unreliable); }
.banner.warn { background: var(--degraded-bg); color: var(--degraded); }
.banner.info { background: #ddf4ff; color: #0a3069; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 0.85rem; font-weight: 600; border: 1px solid currentColor; white-space: nowrap; }
.s-healthy, .s-passing, .s-succeeded { background: var(--healthy-bg); color: var(--healthy); }
.s-degraded, .s-warning, .s-running { background: var(--degraded-bg); color: var(--degraded); }
.s-unreliable, .s-failing, .s-failed, .s-aborted { background: var(--unreliable-bg); color: var(--unreliable); }
.s-unknown, .s-none { background: var(--unknown-bg); color: var(--unknown); }
.counts { display: flex; flex-wrap: wrap; gap: 12px; list-style: none; padding: 0; margin: 0 0 16px; }
.counts a { display: block; min-width: 120px; padding: 10px 14px; border: 1px solid var(--line); border-radius: 8px; text-decoration: none; color: inherit; }
.counts a[aria-current="true"] { outline: 2px solid var(--focus); }
.counts .n { display: block; font-size: 1.6rem; font-weight: 700; }
.panel { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; background: var(--panel); margin: 0 0 16px; }
.panel p { margin: 4px 0; }
table.incidents { margin: 0 0 24px; }
.row { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; margin: 0 0 12px; }
form.filters .field { display: flex; flex-direction: column; }
form.filters label { font-size: 0.9rem; color: var(--muted); }
input, select, button { font: inherit; }
input, select { padding: 5px 8px; border: 1px solid #8c959f; border-radius: 6px; background: var(--bg); color: var(--fg); }
button { padding: 5px 12px; border: 1px solid #8c959f; border-radius: 6px; background: #f6f8fa; color: var(--fg); cursor: pointer; }
button.primary { background: #1f883d; border-color: #1a7f37; color: #fff; }
button.small { padding: 1px 8px; font-size: 0.85rem; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; color: var(--muted); padding: 4px 0; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; white-space: nowrap; }
th a { color: inherit; }
td.num, th.num { text-align: right; }

nav.pager { display: flex; gap: 16px; align-items: center; margin: 12px 0; }
nav.crumbs { color: var(--muted); margin-top: 4px; }
.reason { font-size: 1.05rem; margin: 0 0 12px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0 0 8px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.muted { color: var(--muted); }
.test { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin: 0 0 10px; }
.test h3 { margin: 0 0 4px; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.test p { margin: 4px 0; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; overflow-x: auto; margin: 6px 0; white-space: pre-wrap; word-break: break-word; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
.escaped { color: #b42318; background: #fef3f2; border: 1px solid #fda29b; border-radius: 3px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85em; padding: 0 2px; }
details > summary { cursor: pointer; color: var(--link); }
svg.chart { width: 100%; height: auto; max-width: 760px; display: block; }
svg .band { fill: #54aeff; fill-opacity: 0.25; stroke: none; }
svg .value { fill: none; stroke: #1f2328; stroke-width: 1.5; }
svg .expected { fill: none; stroke: #0969da; stroke-width: 1; stroke-dasharray: 4 3; }
svg .flag { fill: #cf222e; stroke: #fff; stroke-width: 1; }
svg .flag.ok { fill: #1a7f37; }
svg .excluded { fill: #8c959f; fill-opacity: 0.2; stroke: none; }
svg .axis { stroke: #8c959f; stroke-width: 1; }
svg .grid { stroke: #d0d7de; stroke-width: 1; }
svg text { fill: #57606a; font-size: 11px; font-family: system-ui, sans-serif; }
svg .t-healthy { fill: #2da44e; } svg .t-degraded { fill: #d4a72c; } svg .t-unreliable { fill: #cf222e; }
svg .t-unknown { fill: #8c959f; } svg .t-none { fill: #eaeef2; }
.legend { display: flex; flex-wrap: wrap; gap: 12px; list-style: none; padding: 0; margin: 6px 0; font-size: 0.9rem; }
.legend .key { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
.key.t-healthy { background: #2da44e; } .key.t-degraded { background: #d4a72c; } .key.t-unreliable { background: #cf222e; }
.key.t-unknown { background: #8c959f; } .key.t-none { background: #eaeef2; border: 1px solid #8c959f; }
.key.band { background: #54aeff; opacity: 0.5; } .key.line { background: #1f2328; height: 3px; vertical-align: 3px; }
.key.flag { background: #cf222e; border-radius: 50%; } .key.flag-ok { background: #1a7f37; border-radius: 50%; }
.key.excluded { background: #8c959f; opacity: 0.4; }
.login { max-width: 420px; margin: 64px auto; padding: 24px; border: 1px solid var(--line); border-radius: 8px; }
.login label { display: block; margin: 12px 0 4px; font-weight: 600; }
.login input { width: 100%; }
.login .error { color: var(--unreliable); }
.login button { margin-top: 16px; }
`;

const SCRIPT = `"use strict";
// Copy buttons (<button data-copy="ID">) copy the text of element ID. Without this script the
// buttons stay hidden and the SQL is still plain, selectable text.
(function () {
  function fallbackCopy(source) {
    var range = document.createRange();
    range.selectNodeContents(source);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    selection.removeAllRanges();
    return ok;
  }
  function announce(button, ok) {
    var status = document.getElementById(button.getAttribute("data-copy") + "-status");
    if (status) status.textContent = ok ? "Copied to the clipboard" : "Copy failed: select the text and copy it";
    button.textContent = ok ? "Copied" : "Copy failed";
    setTimeout(function () { button.textContent = "Copy"; }, 2000);
  }
  document.addEventListener("DOMContentLoaded", function () {
    var buttons = document.querySelectorAll("button[data-copy]");
    for (var i = 0; i < buttons.length; i++) buttons[i].hidden = false;
  });
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest ? event.target.closest("button[data-copy]") : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.textContent || "";
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { announce(button, true); },
        function () { announce(button, fallbackCopy(source)); }
      );
    } else {
      announce(button, fallbackCopy(source));
    }
  });
})();
`;

export interface Asset {
  url: string;
  type: string;
  body: Buffer;
}

function asset(name: string, extension: string, type: string, text: string): Asset {
  const body = Buffer.from(text, "utf8");
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { url: `/assets/${name}.${hash}.${extension}`, type, body };
}

export const STYLESHEET = asset("style", "css", "text/css; charset=utf-8", STYLE);
export const SCRIPT_FILE = asset("app", "js", "text/javascript; charset=utf-8", SCRIPT);
/** A tick in a circle: the tab's icon, so browsers do not ask for /favicon.ico. */
export const ICON = asset(
  "icon",
  "svg",
  "image/svg+xml",
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#1a7f37"/><path d="M4.5 8.2l2.2 2.2 4.8-4.8" fill="none" stroke="#fff" stroke-width="1.8"/></svg>`,
);
export const ASSETS: ReadonlyMap<string, Asset> = new Map([STYLESHEET, SCRIPT_FILE, ICON].map((a) => [a.url, a]));
