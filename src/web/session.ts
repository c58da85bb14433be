// Sessions for people: a login turns an API key into a sealed cookie (iron-session: encrypted and
// signed, with its expiry inside the seal) that holds the access level, never the key.
//
// The sealing secret is derived from the configured keys (HKDF over every key with its role), so
// every replica with the same keys shares it without another variable, and adding, removing or
// demoting a key ends every session at once. Logout clears the cookie and revokes the session's
// id in the store, so a copy of the cookie is refused on every replica (session-revocations.ts).
import { randomBytes } from "node:crypto";
import { parse as parseCookies } from "cookie";
import type { Request, Response } from "express";
import { sealData, unsealData } from "iron-session";
import { keyIds, keysSecret, type Access, type AuthOptions } from "../api/auth.js";
import type { SessionRevocations } from "./session-revocations.js";

export const SESSION_COOKIE = "mr_session";
/** A working day: long enough not to nag, short enough that a forgotten browser logs itself out. */
export const SESSION_TTL_SECONDS = 8 * 60 * 60;
/** Unsealed sessions kept per replica: unsealing costs about a millisecond, a lookup nothing. */
const CACHED_SESSIONS = 2_000;

export interface WebSession {
  /** random; what a logout revokes */
  sid: string;
  access: Access;
  /** the synchroniser token every form POST carries (csrf.ts) */
  csrfToken: string;
  /** the key's id (api/auth.ts keyIds, not the key): the write budget counts per key, with the API's */
  kid: string;
  /** ms since the epoch; also enforced by the seal */
  expiresAt: number;
}

export interface Sessions {
  /** The request's valid session, or null (none, tampered with, expired, or sealed under other keys). */
  read(req: Request): Promise<WebSession | null>;
  /** Seals a new session for a key that authenticated with `access`, and sets its cookie. */
  start(req: Request, res: Response, key: string, access: Access): Promise<WebSession>;
  /** Clears the cookie and revokes the session on every replica. */
  end(req: Request, res: Response, session: WebSession): Promise<void>;
}

export const sessionSecret = keysSecret;

function isSession(value: unknown): value is WebSession {
  const s = value as Partial<WebSession> | null;
  return (
    typeof s === "object" &&
    s !== null &&
    typeof s.sid === "string" &&
    (s.access === "read" || s.access === "write") &&
    typeof s.csrfToken === "string" &&
    s.csrfToken.length >= 32 &&
    typeof s.kid === "string" &&
    typeof s.expiresAt === "number"
  );
}

/** HTTPS as the browser saw it: directly, or through a proxy that says so (only makes the cookie stricter). */
const secureRequest = (req: Request) => req.secure || req.headers["x-forwarded-proto"] === "https";

export function createSessions(
  auth: AuthOptions,
  options: { ttlSeconds?: number; now?: () => number; revocations?: SessionRevocations } = {},
): Sessions {
  const password = sessionSecret(auth);
  const keyIdOf = keyIds(auth);
  const ttl = options.ttlSeconds ?? SESSION_TTL_SECONDS;
  const now = options.now ?? Date.now;
  const cache = new Map<string, WebSession>();
  const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: "strict" as const, secure: secureRequest(req), path: "/" });

  return {
    async read(req) {
      const header = req.headers.cookie;
      if (!header) return null;
      const seal = parseCookies(header)[SESSION_COOKIE];
      if (!seal || seal.length > 4096) return null;
      let session: WebSession | undefined = cache.get(seal);
      if (!session) {
        // unsealData answers {} for a seal it cannot open (tampered, expired, other keys).
        const data: unknown = await unsealData(seal, { password, ttl }).catch(() => null);
        if (!isSession(data)) return null;
        session = data;
        if (cache.size >= CACHED_SESSIONS) cache.delete(cache.keys().next().value!);
        cache.set(seal, session);
      }
      if (session.expiresAt <= now() || (await options.revocations?.isRevoked(session.sid))) {
        cache.delete(seal);
        return null;
      }
      return session;
    },

    async start(req, res, key, access) {
      const session: WebSession = {
        sid: randomBytes(16).toString("base64url"),
        access,
        csrfToken: randomBytes(32).toString("hex"),
        kid: keyIdOf(key),
        expiresAt: now() + ttl * 1000,
      };
      const seal = await sealData(session, { password, ttl });
      res.cookie(SESSION_COOKIE, seal, { ...cookieOptions(req), maxAge: ttl * 1000 });
      return session;
    },

    async end(req, res, session) {
      const seal = req.headers.cookie ? parseCookies(req.headers.cookie)[SESSION_COOKIE] : undefined;
      if (seal) cache.delete(seal);
      res.clearCookie(SESSION_COOKIE, cookieOptions(req));
      await options.revocations?.revoke(session.sid, session.expiresAt);
    },
  };
}
