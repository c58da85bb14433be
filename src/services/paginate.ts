// Cursor pagination over an in-memory listing in catalogue order. The cursor names the catalogue
// version and the position after the last item sent, so it is O(1) to resume and a cursor from
// another catalogue (a reload changed the list) is refused rather than silently skipping items.
import { badRequest } from "../errors/app-error.js";

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** how many items match the filters, on every page */
  matched: number;
  next_cursor: string | null;
}

const VERSION_CHARS = 16;

/** No page and no filter asked for: the whole list, in the seed's shape (no next_cursor). */
export const isWholeListing = (query: object): boolean => Object.values(query).every((value) => value === undefined);

export function encodeCursor(version: string, position: number): string {
  return Buffer.from(`${version.slice(0, VERSION_CHARS)}:${position}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string, version: string): number {
  const [prefix, position] = Buffer.from(cursor, "base64url").toString("utf8").split(":");
  const index = Number(position);
  if (!prefix || !Number.isSafeInteger(index) || index < 0) throw badRequest('invalid parameter "cursor": not a cursor this API returned');
  if (prefix !== version.slice(0, VERSION_CHARS)) {
    throw badRequest('invalid parameter "cursor": the catalogue was reloaded since this cursor was issued; start again without a cursor');
  }
  return index;
}

/**
 * Without a limit, every matching item (the first page is the whole list). `match` null means
 * every item matches: a page then costs its own length, not a pass over the whole list.
 */
export function paginate<T>(items: readonly T[], match: ((item: T) => boolean) | null, request: PageRequest, version: string): Page<T> {
  const start = request.cursor === undefined ? 0 : decodeCursor(request.cursor, version);
  if (match === null) {
    const end = request.limit === undefined ? items.length : Math.min(items.length, start + request.limit);
    return { items: items.slice(start, end), matched: items.length, next_cursor: end < items.length ? encodeCursor(version, end) : null };
  }
  const limit = request.limit ?? Number.POSITIVE_INFINITY;
  const page: T[] = [];
  let matched = 0;
  let next: number | null = null;
  items.forEach((item, index) => {
    if (!match(item)) return;
    matched += 1;
    if (index < start) return;
    if (page.length < limit) page.push(item);
    else next ??= index;
  });
  return { items: page, matched, next_cursor: next === null ? null : encodeCursor(version, next) };
}
