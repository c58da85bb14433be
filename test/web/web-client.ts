// A person's HTTP conversation with the pages, without a browser: cookies, forms, redirects.
// Raw node:http, so the test decides every header (no fetch adding Sec-Fetch-* of its own).
import http from "node:http";

export interface WebResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface WebClient {
  request(method: string, path: string, options?: { headers?: Record<string, string>; body?: string }): Promise<WebResponse>;
  get(path: string, cookie?: string): Promise<WebResponse>;
  post(path: string, cookie: string | null, fields: Record<string, string>, headers?: Record<string, string>): Promise<WebResponse>;
  /** logs in with `key` and returns the Cookie header value of the session */
  login(key: string): Promise<string>;
}

export const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();

/** The session cookie a response sets, as a Cookie header value ("mr_session=..."), or null. */
export function sessionCookie(res: WebResponse): string | null {
  const line = (res.headers["set-cookie"] ?? []).find((c) => c.startsWith("mr_session="));
  return line ? line.split(";")[0]! : null;
}

export function csrfToken(html: string): string {
  const match = /name="_csrf" value="([0-9a-f]+)"/.exec(html);
  if (!match) throw new Error("no CSRF field on the page");
  return match[1]!;
}

export function webClient(port: number): WebClient {
  const request: WebClient["request"] = (method, path, options = {}) =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...options.headers };
      if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
      const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      });
      req.on("error", reject);
      req.end(options.body);
    });
  const post: WebClient["post"] = (path, cookie, fields, headers = {}) =>
    request("POST", path, {
      headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}), ...headers },
      body: form(fields),
    });
  return {
    request,
    get: (path, cookie) => request("GET", path, { headers: cookie ? { cookie } : {} }),
    post,
    async login(key) {
      const res = await post("/login", null, { key, next: "/" });
      const cookie = sessionCookie(res);
      if (res.status !== 303 || !cookie) throw new Error(`login failed: ${res.status} ${res.text.slice(0, 200)}`);
      return cookie;
    },
  };
}
