// The pages' stylesheet, script and icon, served by the daemon itself (no CDN: the pages work
// offline and under a CSP of 'self'). They are real files in ./assets/ beside this module: the
// build copies them next to the compiled module (scripts/copy-assets.mjs), so the same relative
// path serves from src/ under tsx and from dist/ in production. Each is read once, when the module
// loads, and its URL carries a hash of its content, so browsers may cache it forever and a new
// release is fetched at once.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

export interface Asset {
  url: string;
  type: string;
  body: Buffer;
}

const DIRECTORY = new URL("./assets/", import.meta.url);

function asset(file: string, type: string): Asset {
  const body = readFileSync(new URL(file, DIRECTORY));
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
  const dot = file.lastIndexOf(".");
  return { url: `/assets/${file.slice(0, dot)}.${hash}${file.slice(dot)}`, type, body };
}

export const STYLESHEET = asset("style.css", "text/css; charset=utf-8");
/** Copy buttons for the SQL; without it the buttons stay hidden. */
export const SCRIPT_FILE = asset("app.js", "text/javascript; charset=utf-8");
/** A tick in a circle: the tab's icon, so browsers do not ask for /favicon.ico. */
export const ICON = asset("icon.svg", "image/svg+xml");
export const ASSETS: ReadonlyMap<string, Asset> = new Map([STYLESHEET, SCRIPT_FILE, ICON].map((a) => [a.url, a]));
