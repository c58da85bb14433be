// express 5 parses the query string again on every read of req.query (a getter): a cached read
// read it twice a request (the scan pin, the route's input) for a URL that has none.
const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

/** req.query, or one shared empty object when the URL has no query string. */
export const queryOf = (req: { url: string; query: unknown }): unknown => (req.url.includes("?") ? req.query : NONE);
