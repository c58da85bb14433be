// A metric's or table's page is rendered once per (path, revision, access, banners, clock) and
// kept as bytes; each session's CSRF token goes in at send time. Plain values, no daemon.
import { describe, expect, it } from "vitest";
import { RENDERED_FOR_MS } from "../../src/web/overview-cache.js";
import { createPageCache } from "../../src/web/page-cache.js";
import type { WebSession } from "../../src/web/session.js";
import type { PageContext } from "../../src/web/views/layout.js";

const session = (token: string, access: WebSession["access"] = "write"): WebSession => ({
  access,
  sid: `sid-${token}`,
  csrfToken: token.repeat(64),
  kid: "k",
  expiresAt: 0,
});
const T0 = Date.UTC(2026, 0, 1, 0, 5);
const context = (s: WebSession | null, ms = T0): PageContext => ({ now: new Date(ms), path: "/metric/m", session: s, health: null });

describe("page cache", () => {
  function counting() {
    let renders = 0;
    const render = async (c: PageContext) => {
      renders += 1;
      const token = c.session?.csrfToken ?? "";
      return { html: `<form><input value="${token}"></form><form><input value="${token}"></form>${c.session?.access}`, keep: true };
    };
    return { render, renders: () => renders };
  }

  it("renders once per revision and access level, and puts each session's token in", async () => {
    const cache = createPageCache();
    const { render, renders } = counting();
    const key = { path: "/metric/m", revision: "1.0" };
    const a = (await cache.page(key, context(session("a")), render)).toString();
    const b = (await cache.page(key, context(session("b")), render)).toString();
    expect(renders()).toBe(1);
    expect(a).toBe(`<form><input value="${"a".repeat(64)}"></form><form><input value="${"a".repeat(64)}"></form>write`);
    expect(b).toBe(a.replaceAll("a".repeat(64), "b".repeat(64)));
    // A read-only session, a new revision, the next clock window: rendered again.
    expect((await cache.page(key, context(session("c", "read")), render)).toString()).toContain("read");
    await cache.page({ ...key, revision: "1.1" }, context(session("a")), render);
    await cache.page(key, context(session("a"), T0 + RENDERED_FOR_MS), render);
    expect(renders()).toBe(4);
  });

  it("never keeps a page with a scan notice, or one its renderer says not to keep", async () => {
    const cache = createPageCache();
    let renders = 0;
    const key = { path: "/metric/m", revision: "1" };
    const failing = async () => ({ html: `error ${++renders}`, keep: false });
    expect((await cache.page(key, context(session("a")), failing)).toString()).toBe("error 1");
    expect((await cache.page(key, context(session("a")), failing)).toString()).toBe("error 2");
    const { render, renders: count } = counting();
    const notice = { ...context(session("a")), notice: { scan_id: "s" } as PageContext["notice"] };
    await cache.page(key, notice, render);
    await cache.page(key, notice, render);
    expect(count()).toBe(2);
  });
});
