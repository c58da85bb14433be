// Control and bidirectional characters never reach a page raw. A right-to-left override in a
// filter, a test message or a table name would make the SQL shown differ from the SQL run or
// copied, and zero-width or control characters make two names look alike. On the pages each is
// shown as its escape, `\u202E`, in a marked span (text) or as the bare escape (attributes, the
// <title>): the text a copy button copies is the text shown. Applied to the whole page, after
// rendering, so no view can forget it; a page without such characters costs one regex scan.
// Pure: a string in, a string out.

/**
 * C0 controls but tab, line feed and carriage return; DEL and the C1 controls; the bidirectional
 * marks, embeddings, overrides and isolates; zero-width characters; line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, "g");

/** `\u202E` for U+202E. */
export const escapeOf = (char: string): string => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/** Elements whose content is text that markup cannot enter (a span there would be shown as text). */
const RAW_TEXT = /^<(title|textarea|script|style)[\s>]/i;

/** `html` (a rendered page) with every such character visibly escaped. */
export function escapeInvisible(html: string): string {
  if (!INVISIBLE.test(html)) return html;
  let out = "";
  let at = 0;
  let raw: string | null = null;
  while (at < html.length) {
    const open = html.indexOf("<", at);
    const textEnd = open === -1 ? html.length : open;
    const text = html.slice(at, textEnd);
    out += raw
      ? text.replace(INVISIBLE_ALL, escapeOf)
      : text.replace(INVISIBLE_ALL, (c) => `<span class="escaped" title="a control or direction character">${escapeOf(c)}</span>`);
    if (open === -1) break;
    const close = html.indexOf(">", open);
    const tagEnd = close === -1 ? html.length : close + 1;
    const tag = html.slice(open, tagEnd);
    // Attribute values (escaped by the renderer: no raw ">" inside) get the bare escape.
    out += tag.replace(INVISIBLE_ALL, escapeOf);
    const rawOpen = RAW_TEXT.exec(tag);
    if (rawOpen) raw = rawOpen[1]!.toLowerCase();
    else if (raw && tag.toLowerCase().startsWith(`</${raw}`)) raw = null;
    at = tagEnd;
  }
  return out;
}
