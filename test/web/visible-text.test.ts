import { describe, expect, it } from "vitest";
import { escapeInvisible, escapeOf } from "../../src/web/visible-text.js";

const SPAN = (c: string) => `<span class="escaped" title="a control or direction character">${escapeOf(c)}</span>`;

describe("control and direction characters on the pages", () => {
  it("leaves a page without them as it is (the same string)", () => {
    const page = "<p>SELECT a\n\tFROM t -- ok: é, 中文, עברית</p>";
    expect(escapeInvisible(page)).toBe(page);
  });

  it("shows each as its escape in a marked span, so the text shown (and copied) is the escape", () => {
    const chars = ["\u202E", "\u200F", "\u2066", "\u061C", "\u200B", "\uFEFF", "\u0000", "\u001B", "\u007F", "\u0085", "\u2028"];
    for (const c of chars) {
      expect(escapeInvisible(`<code>a${c}b</code>`)).toBe(`<code>a${SPAN(c)}b</code>`);
    }
    expect(escapeOf("\u202E")).toBe("\\u202E");
    expect(escapeOf("\u0001")).toBe("\\u0001");
  });

  it("puts the bare escape in attribute values and in the <title>, where markup cannot go", () => {
    expect(escapeInvisible('<html><head><title>x\u202Ey</title></head><body><a title="a\u200Fb">c\u202Ed</a></body></html>')).toBe(
      `<html><head><title>x\\u202Ey</title></head><body><a title="a\\u200Fb">c${SPAN("\u202E")}d</a></body></html>`,
    );
  });
});
