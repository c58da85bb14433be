// Answers that are the same for every request (the whole status list of one read-model view,
// the whole test list of one catalogue) are serialised once, in slices, and sent as bytes:
// cached-services.ts remembers them here, and the REST transport asks here before serialising
// an answer itself.
import { setImmediate as yieldToLoop } from "node:timers/promises";

const cache = new WeakMap<object, Buffer>();

export function serializedJson(value: unknown): Buffer | undefined {
  return typeof value === "object" && value !== null ? cache.get(value) : undefined;
}

export function rememberJson<T extends object>(value: T, json: Buffer): T {
  cache.set(value, json);
  return value;
}

const SLICE = 2_000;

/**
 * JSON.stringify of `value`, where `value[arrayField]` may hold tens of thousands of items: that
 * array is stringified a slice at a time with a yield between slices.
 */
export async function serializeInSlices<T extends object>(value: T, arrayField: keyof T & string): Promise<Buffer> {
  const items = value[arrayField] as unknown as readonly unknown[];
  const rest = JSON.stringify({ ...value, [arrayField]: [] });
  const marker = `${JSON.stringify(arrayField)}:[]`;
  const at = rest.indexOf(marker);
  const parts: Buffer[] = [Buffer.from(`${rest.slice(0, at)}${JSON.stringify(arrayField)}:[`, "utf8")];
  for (let start = 0; start < items.length; start += SLICE) {
    if (start > 0) await yieldToLoop();
    const slice = JSON.stringify(items.slice(start, start + SLICE));
    parts.push(Buffer.from(`${start > 0 ? "," : ""}${slice.slice(1, -1)}`, "utf8"));
  }
  parts.push(Buffer.from(`]${rest.slice(at + marker.length)}`, "utf8"));
  return Buffer.concat(parts);
}

/** `value`, once its JSON (sliced over `arrayField`) is remembered for the REST transport. */
export async function preserialized<V extends object>(value: V, arrayField: keyof V & string): Promise<V> {
  return rememberJson(value, await serializeInSlices(value, arrayField));
}

/**
 * The listing for `owner` (a catalogue snapshot, a read-model view): built and serialised once,
 * then shared by every caller; a failed build is forgotten, so the next caller tries again.
 */
export function listingOnce<K extends object, V extends object>(
  cache: WeakMap<K, Promise<V>>,
  owner: K,
  build: () => Promise<V>,
  arrayField: keyof V & string,
): Promise<V> {
  let listing = cache.get(owner);
  if (!listing) {
    const built = build().then((value) => preserialized(value, arrayField));
    void built.catch(() => cache.get(owner) === built && cache.delete(owner));
    cache.set(owner, (listing = built));
  }
  return listing;
}
