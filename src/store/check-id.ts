// A check's id is derived from its key (the first 8 bytes of its sha-256, as a signed BIGINT),
// so every replica computes the same id without reading it back from the store.
import { createHash } from "node:crypto";

const cache = new Map<string, string>();
/** Keys of a few catalogue versions; past this the cache starts over rather than growing. */
const CACHE_LIMIT = 250_000;

/** The id as a decimal string, the form a bigint[] parameter takes. */
export function checkId(key: string): string {
  let id = cache.get(key);
  if (id === undefined) {
    id = createHash("sha256").update(key, "utf8").digest().readBigInt64BE(0).toString();
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, id);
  }
  return id;
}
