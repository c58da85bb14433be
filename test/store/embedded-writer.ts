// A process that uses the embedded store the way the daemon does, for embedded-store.test.ts:
//   embedded-writer.ts DIR close      opens the store, completes scan "committed", closes it, and
//                                     ends on its own (prints "closed")
//   embedded-writer.ts DIR kill       completes scan "committed", then writes a large scan
//                                     "inflight" (prints "writing" once its transaction has begun
//                                     writing) until the test kills it
import { createStore } from "../../src/store/prisma-store.js";
import { finished, observation, status, test } from "./fixtures.js";

const [dataDir, mode] = process.argv.slice(2);
let armed = false;
// completeScan reads the clock inside its transaction, just before it writes the catalogue: the
// moment to say "writing".
const now = () => {
  if (armed) process.stdout.write("writing\n");
  armed = false;
  return new Date();
};
const store = await createStore({ dataDir: dataDir!, now });
await store.createScan({ scan_id: "committed", trigger: "manual", started_at: new Date() });
await store.completeScan(finished("committed", [test("m", "k")], { k: observation(1) }, [status("m", "unreliable")]));
if (mode === "close") {
  await store.close();
  process.stdout.write("closed\n");
} else {
  await store.createScan({ scan_id: "inflight", trigger: "manual", started_at: new Date() });
  const tests = Array.from({ length: 200_000 }, (_, i) => test(`metric_${i % 20_000}`, `check_${i}`));
  const observations = Object.fromEntries(tests.map((t) => [t.key, observation(0)]));
  const statuses = Array.from({ length: 20_000 }, (_, i) => status(`metric_${i}`, "healthy"));
  armed = true;
  await store.completeScan(finished("inflight", tests, observations, statuses, "v2"));
  process.stdout.write("written\n");
}
