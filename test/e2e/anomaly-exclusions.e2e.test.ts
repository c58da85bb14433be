// Holidays and planned exclusions through the real daemon, on both deployments: one table with a
// weekly cycle and two planted drops, one on a public holiday (H) and one on a day declared in
// `anomalies.exclude` (M). Three metrics read it: without exclusions both drops are flagged;
// with `holidays:` the holiday's drop is marked `excluded: "holiday: <name>"` and not flagged;
// with `exclude:` the planned day's is marked with its reason and not flagged.
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { publicHolidays } from "../../src/anomaly/holidays.js";
import { RW_KEY, describeCombinations, launch, type Backend, type RunningDaemon } from "./daemon-harness.js";
import { webClient } from "../web/web-client.js";
import { tearDownLoaded, warehouseAdmin } from "./warehouse-admin.js";

const DAY = 86_400;
const HISTORY_DAYS = 70;
const REGIONS = ["US", "GB", "DE", "FR", "JP", "BR", "IN", "CN", "AU", "CA", "IT", "ES", "MX", "KR", "ZA", "SE", "NL", "PL"];

interface Bucket {
  start: string;
  value: number | null;
  anomalous: boolean;
  excluded: string | null;
}

/** The newest day 3 to 28 days back that is a public holiday somewhere, with its region and name. */
function recentHoliday(today: number): { region: string; day: number; name: string } {
  for (let back = 3; back <= 28; back++) {
    const day = today - back;
    const year = new Date(day * DAY * 1000).getUTCFullYear();
    for (const region of REGIONS) {
      const holiday = publicHolidays(region, year).find((h) => h.day === day);
      if (holiday) return { region, day, name: holiday.name };
    }
  }
  throw new Error("no public holiday in the last four weeks in any of the regions tried");
}

const isoDay = (day: number) => new Date(day * DAY * 1000).toISOString().slice(0, 10);

describeCombinations("holidays and planned exclusions", (combination) => {
  const db = `mr_excl_${process.pid}_${Date.now().toString(36)}`;
  const today = Math.floor(Date.now() / 1000 / DAY);
  const holiday = recentHoliday(today);
  // The planned day: a week away from the holiday, inside the detection span, not a holiday there.
  const holidayDays = new Set(
    [0, 1].flatMap((k) => publicHolidays(holiday.region, new Date((today - k * 365) * DAY * 1000).getUTCFullYear()).map((h) => h.day)),
  );
  const planned = [holiday.day - 7, holiday.day - 8, holiday.day + 7, holiday.day - 9].find(
    (d) => d < today - 1 && d > today - 29 && !holidayDays.has(d),
  )!;
  let backend: Backend | undefined;
  let d: RunningDaemon | undefined;
  let dir: string | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-e2e-excl-"));
    const metric = (name: string, anomalies: string) =>
      `  - { name: ${name}, table: ${db}.events, timestamp: ts, measures: [{ alias: n, function: Count }], anomalies: ${anomalies} }`;
    await writeFile(
      path.join(dir, "metrics.yaml"),
      [
        "metrics:",
        metric("plain_rows", "{ detection_buckets: 30 }"),
        metric("holiday_rows", `{ detection_buckets: 30, holidays: ${holiday.region.toLowerCase()} }`),
        metric(
          "planned_rows",
          `{ detection_buckets: 30, exclude: [{ from: ${isoDay(planned)}, to: ${isoDay(planned + 1)}, reason: warehouse migration }] }`,
        ),
        "",
      ].join("\n"),
    );
    backend = await combination.prepare();
    d = await launch(backend, { METRICS_DIR: dir, SCAN_ON_START: "false" });
    const admin = await warehouseAdmin(combination, backend);
    try {
      // Days 1..70 back: 200 rows a weekday, 120 on weekends, a little noise; 20 on the planted days.
      const days = Array.from({ length: HISTORY_DAYS }, (_, i) => today - HISTORY_DAYS + i);
      const tuples = days.map((day) => {
        const weekend = (day + 3) % 7 >= 5;
        const rows = day === holiday.day || day === planned ? 20 : (weekend ? 120 : 200) + ((day * 37) % 11) - 5;
        return `(${day * DAY}, ${rows})`;
      });
      await admin.exec(`CREATE DATABASE IF NOT EXISTS ${db}`);
      await admin.exec(`CREATE TABLE ${db}.events (ts DateTime) ENGINE = MergeTree() ORDER BY ts`);
      await admin.exec(
        `INSERT INTO ${db}.events SELECT toDateTime(tupleElement(x, 1) + r * 400) AS ts
         FROM (SELECT x, arrayJoin(range(tupleElement(x, 2))) AS r FROM (SELECT arrayJoin([${tuples.join(",")}]) AS x))`,
      );
    } finally {
      await admin.close();
    }
    const scan = await d.request("POST", "/v1/reliability/scan?wait=true", { key: RW_KEY });
    expect(scan.status).toBe(200);
  }, 120_000);

  afterAll(() => tearDownLoaded({ combination, backend, daemon: d, db, dir }));

  const buckets = async (metric: string): Promise<Bucket[]> => {
    const body = await d!.get(`/v1/reliability/anomalies/${metric}`);
    expect(body.series).toHaveLength(1);
    return body.series[0].buckets as Bucket[];
  };
  const at = (all: Bucket[], day: number) => all.find((b) => b.start === `${isoDay(day)}T00:00:00.000Z`)!;

  it("without exclusions both planted drops are flagged", async () => {
    const all = await buckets("plain_rows");
    expect(at(all, holiday.day)).toMatchObject({ value: 20, anomalous: true, excluded: null });
    expect(at(all, planned)).toMatchObject({ value: 20, anomalous: true, excluded: null });
    expect(all.every((b) => b.excluded === null)).toBe(true);
  });

  it("anomalies.holidays: the drop on the holiday is marked excluded, never flagged; the other is still flagged", async () => {
    const all = await buckets("holiday_rows");
    expect(at(all, holiday.day)).toMatchObject({ value: 20, anomalous: false, excluded: `holiday: ${holiday.name}` });
    expect(at(all, planned)).toMatchObject({ value: 20, anomalous: true, excluded: null });
    for (const b of all.filter((x) => x.excluded !== null)) expect(b.excluded).toMatch(/^holiday: /);
    const ir = await d!.get("/v1/compiler/ir/holiday_rows");
    expect(ir.anomalies).toMatchObject({ holidays: holiday.region, exclude: [] });
  });

  it("anomalies.exclude: the planned day is marked with its reason, never flagged; the holiday's drop is flagged", async () => {
    const all = await buckets("planned_rows");
    expect(all.filter((b) => b.excluded !== null).map((b) => [b.start, b.excluded])).toEqual([
      [`${isoDay(planned)}T00:00:00.000Z`, "warehouse migration"],
    ]);
    expect(at(all, planned)).toMatchObject({ value: 20, anomalous: false });
    expect(at(all, holiday.day)).toMatchObject({ value: 20, anomalous: true, excluded: null });
  });

  it("the metric page draws the excluded buckets and does not list them as flagged", async () => {
    const web = webClient(d!.daemon.port);
    const res = await web.get("/metric/planned_rows", await web.login(RW_KEY));
    expect(res.status).toBe(200);
    expect(res.text).toContain('<rect class="excluded"');
    expect(res.text).toContain(`${isoDay(planned)} 00:00 UTC: excluded (warehouse migration)`);
    expect(res.text).not.toMatch(new RegExp(`<th scope="row">${isoDay(planned)} 00:00 UTC</th>`));
    expect(res.text).toMatch(new RegExp(`<th scope="row">${isoDay(holiday.day)} 00:00 UTC</th>`));
  });
});
