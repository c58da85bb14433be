// What the pages accept in paths, query strings and forms: the API's own schemas for names (and
// for anomaly feedback, the API's whole input schema: see web-app.ts), and the overview's filter and sort. A value of the wrong form is a 400 page naming the parameter.
import { z } from "zod";
import { metricName, reliabilityStatus, scanId, tableName } from "../api/schemas.js";
import { METRIC_SORTS, type MetricSort, type SortDirection } from "../services/metric-table.js";

export const PAGE_SIZE = 50;

/** Each column's first click: worst, newest and most failing first; names A to Z. */
export const DEFAULT_DIRECTION: Record<MetricSort, SortDirection> = { status: "asc", name: "asc", since: "desc", failing: "desc" };
export const DEFAULT_SORT: MetricSort = "status";

/** An empty form field means "not set". */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional()) as unknown as z.ZodOptional<T>;

export const overviewQuery = z.object({
  status: optional(reliabilityStatus),
  q: optional(z.string({ error: "expected text" }).max(128, { error: "expected at most 128 characters" })),
  sort: optional(z.enum(METRIC_SORTS, { error: `expected one of ${METRIC_SORTS.join(", ")}` })),
  dir: optional(z.enum(["asc", "desc"], { error: "expected asc or desc" })),
  page: optional(
    z
      .string({ error: "expected a page number" })
      .max(6, { error: "expected a page number" })
      .regex(/^[1-9]\d*$/, { error: "expected a page number" })
      .transform(Number),
  ),
  scan: optional(scanId),
});
export type OverviewQuery = z.output<typeof overviewQuery>;

/** Pages other than the overview take only the scan notice. */
export const noticeQuery = z.object({ scan: optional(scanId) });

export const metricPath = z.object({ name: metricName });
export const tablePath = z.object({ table: tableName });
export { incidentIdInput as incidentPath } from "../api/schemas.js";

/** Where to go after logging in or posting a form: a path on this site, never another host. */
const LOCAL_PATH = /^\/(?![/\\])[A-Za-z0-9_.~%/?=&+-]*$/;
export const nextPath = (value: unknown): string =>
  typeof value === "string" && value.length <= 512 && LOCAL_PATH.test(value) ? value : "/";

export const loginForm = z.object({
  key: z.string({ error: "enter an API key" }).min(1, { error: "enter an API key" }).max(512, { error: "that is not an API key" }),
  next: z.string().optional(),
});

export const scanForm = z.object({ next: z.string().optional() });
