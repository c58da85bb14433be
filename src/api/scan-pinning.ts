// Every read says which scan it reflects (X-Scan-Id), and a client may ask for at least a given
// scan (?min_scan=<id> or X-Min-Scan: <id>): behind a load balancer, the replica answering may not
// be the one that ran the scan. Reads only: a POST (a scan, a feedback) answers for itself.
import type { Request, RequestHandler } from "express";
import { badRequest } from "../errors/app-error.js";
import type { Freshness } from "../read-model/freshness.js";
import type { ReadModel } from "../read-model/read-model.js";
import { queryOf } from "./request-query.js";

export const SCAN_ID_HEADER = "X-Scan-Id";
export const MIN_SCAN_HEADER = "X-Min-Scan";
export const MIN_SCAN_PARAM = "min_scan";
/** X-Scan-Id of a view that holds no scan yet */
export const NO_SCAN = "none";

const SCAN_ID = /^[A-Za-z0-9_-]{1,100}$/;

export interface ScanPinning {
  readModel: Pick<ReadModel, "pinned" | "view">;
  freshness: Freshness;
}

/** The scan a request asks for at least, if any (the query parameter wins over the header). */
export function wantedScan(req: Pick<Request, "url" | "query" | "headers">): string | undefined {
  const fromQuery = (queryOf(req) as Record<string, unknown>)[MIN_SCAN_PARAM];
  const fromHeader = req.headers[MIN_SCAN_HEADER.toLowerCase()];
  const value = fromQuery ?? fromHeader;
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !SCAN_ID.test(value)) throw badRequest(`${MIN_SCAN_PARAM}: expected one scan id`);
  return value;
}

/**
 * For GET (and HEAD): waits for the wanted scan (after `authorize`, so an anonymous caller cannot
 * make the replica read the store), then serves the request with the view pinned and its scan in
 * X-Scan-Id. `lenient` names a query parameter that asks for a scan only once it has finished
 * (the pages' ?scan=<id> notice of a scan a form started).
 */
export function pinScan(pinning: ScanPinning, options: { authorize?: (req: Request) => void; lenient?: string } = {}): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const wanted = wantedScan(req);
    const notice = options.lenient ? (queryOf(req) as Record<string, unknown>)[options.lenient] : undefined;
    if (wanted !== undefined || typeof notice === "string") {
      options.authorize?.(req);
      if (wanted !== undefined) await pinning.freshness.atLeast(wanted);
      if (typeof notice === "string" && SCAN_ID.test(notice)) {
        // A notice naming a scan the store no longer has shows none (web-app.ts); it asks for nothing.
        await pinning.freshness.atLeast(notice, { ifFinished: true }).catch((error: unknown) => {
          if ((error as { code?: unknown }).code !== "not_found") throw error;
        });
      }
    }
    pinning.readModel.pinned((view) => {
      res.setHeader(SCAN_ID_HEADER, view.scan?.scan_id ?? NO_SCAN);
      next();
    });
  };
}
