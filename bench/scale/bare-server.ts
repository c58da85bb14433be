// The baseline: a bare Express server returning the same bodies from memory (parsed once,
// serialised by res.json per request, as a plain handler would; pages as the same HTML string).
// Run as its own process.
// usage: tsx bench/scale/bare-server.ts <bodies.json> <port>
import { readFile } from "node:fs/promises";
import express from "express";

const [file, port] = process.argv.slice(2);
const bodies = JSON.parse(await readFile(file!, "utf8")) as Record<string, { type: "json" | "text" | "html"; body: unknown }>;
const app = express();
for (const [urlPath, { type, body }] of Object.entries(bodies)) {
  const route = urlPath.split("?")[0]!;
  app.get(route, (_req, res) => {
    if (type === "json") res.json(body);
    else if (type === "html") res.type("html").send(body);
    else res.type("text/plain").send(body);
  });
}
app.listen(Number(port), "127.0.0.1", () => process.stdout.write("ready\n"));
