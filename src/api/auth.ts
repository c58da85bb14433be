// Bearer-key auth, the ONE module both transports use. Keys are compared as SHA-256 digests
// with timingSafeEqual: fixed-length inputs, so neither a key's content nor its length leaks
// through timing. Every configured key is compared on every request (no early exit).
import { createHmac, hash, hkdfSync, timingSafeEqual } from "node:crypto";
import { AppError } from "../errors/app-error.js";

export type Access = "read" | "write";

export interface AuthOptions {
  /** read + write */
  keys: readonly string[];
  /** read only: POST routes and tRPC mutations answer 403 */
  readonlyKeys: readonly string[];
}

/** Checks an Authorization header value; returns the granted access or throws AppError 401/403. */
export type Authenticator = (authorization: string | undefined, need: Access) => Access;

// The one-shot hash: half the cost of a Hash object per request (measured on a cached read).
const digest = (value: string): Buffer => hash("sha256", value, "buffer");

/** Constant-time string equality (independent of where or whether the strings differ, and of length). */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

const BEARER = /^Bearer +([^\s]+) *$/i;

export function bearerToken(authorization: string | undefined): string | null {
  if (!authorization) return null;
  return BEARER.exec(authorization)?.[1] ?? null;
}

export function createAuthenticator(options: AuthOptions): Authenticator {
  const entries: { digest: ReturnType<typeof digest>; access: Access }[] = [
    ...options.keys.map((k) => ({ digest: digest(k), access: "write" as const })),
    ...options.readonlyKeys.map((k) => ({ digest: digest(k), access: "read" as const })),
  ];
  return (authorization, need) => {
    const token = bearerToken(authorization);
    if (token === null) throw new AppError("unauthorized", "missing bearer token: send Authorization: Bearer <API key>");
    const presented = digest(token);
    let granted: Access | null = null;
    for (const entry of entries) {
      // `write` wins if a key is (mis)configured in both lists.
      if (timingSafeEqual(presented, entry.digest) && granted !== "write") granted = entry.access;
    }
    if (granted === null) throw new AppError("unauthorized", "invalid API key");
    if (need === "write" && granted !== "write") throw new AppError("forbidden", "this API key is read-only");
    return granted;
  };
}

/** The access a request's key grants, or why it is refused; `need` checked against it. */
export type RequestAuthorizer = (req: { headers: { authorization?: string | undefined } }, need: Access) => Access;

/**
 * `authenticate` asked once a request: the wrong-key throttle, the scan pin and the route each
 * need the answer, and each digest is a SHA-256 (4 % of a cached read's cost, three times over).
 */
export function requestAuthorizer(authenticate: Authenticator): RequestAuthorizer {
  const granted = new WeakMap<object, Access | AppError>();
  return (req, need) => {
    let access = granted.get(req);
    if (access === undefined) {
      try {
        access = authenticate(req.headers.authorization, "read");
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        access = error;
      }
      granted.set(req, access);
    }
    if (access instanceof AppError) throw access;
    if (need === "write" && access !== "write") throw new AppError("forbidden", "this API key is read-only");
    return access;
  };
}

/**
 * A secret derived from every configured key with its role (HKDF): the same on every replica with
 * the same keys, without another variable; changing the keys changes it. The pages seal sessions
 * under it (web/session.ts) and key ids are HMACs under it.
 */
export function keysSecret(auth: AuthOptions): string {
  const material = [...auth.keys.map((k) => `rw:${k}`), ...auth.readonlyKeys.map((k) => `ro:${k}`)].sort().join("\n");
  return Buffer.from(hkdfSync("sha256", material, "metric-reliability", "web session v1", 32)).toString("base64url");
}

/**
 * A key's id: an HMAC of the key (from which it cannot be recovered), the same on every replica.
 * A session holds it instead of the key, and the write budget counts per id, so the pages and the
 * API share one budget per key.
 */
export function keyIds(auth: AuthOptions): (key: string) => string {
  const secret = keysSecret(auth);
  return (key) => createHmac("sha256", secret).update(key, "utf8").digest("base64url").slice(0, 22);
}

/** Whether the header carries a configured key (read or write); never throws. */
export function knownKey(authenticate: Authenticator, authorization: string | undefined): boolean {
  try {
    authenticate(authorization, "read");
    return true;
  } catch {
    return false;
  }
}

/** knownKey for a request, through its once-a-request answer (requestAuthorizer). */
export function knownRequestKey(authorize: RequestAuthorizer, req: Parameters<RequestAuthorizer>[0]): boolean {
  try {
    authorize(req, "read");
    return true;
  } catch {
    return false;
  }
}
