import { html as honoHtml, raw } from "hono/html";
import { BUILTIN_THEME, type Presentation } from "./presentation";

// The one page shell: every HTML document the service serves or sends (embed, share and
// preview pages, captures, the report builder, the subscribe control, unsubscribe pages,
// error pages, /docs, the local outbox, e-mail HTML) is assembled here, from Hono's `html`
// tagged template, which escapes every interpolated value (`& < > " '`) by default. Markup
// that is already markup — a fragment made by `html` itself — passes through; anything else
// that must not be escaped is marked with `raw()` where it is made, with a comment saying
// why it is safe. URL slots (`href`, `src`, `action`) take `url()`; a page's CSS takes the
// shell's `style` slot.

/** Markup: what `html` made (escaped), or a `raw()` someone vouched for. */
export type Html = ReturnType<typeof raw>;

/** What a slot of `html` takes: text (escaped), a number, nothing (`false`, null, undefined: left out), markup, lists of them. */
export type Slot = string | number | boolean | null | undefined | Html | readonly Slot[];

/**
 * Hono's `html` template, synchronous: with no promise inside, it answers markup at once
 * (a `String` object), and a page is rendered synchronously where callers expect a string.
 * Slots are typed so that no promise can get in.
 */
export function html(strings: TemplateStringsArray, ...values: Slot[]): Html {
  const markup = honoHtml(strings, ...values);
  if (markup instanceof Promise) throw new TypeError("a page is rendered synchronously: no promise in a template");
  return markup;
}

/** The schemes a URL slot may name; anything else (`javascript:`, `data:`, `vbscript:` …) is no link. */
const URL_SCHEMES = new Set(["http", "https", "mailto", "cid"]);
/** What a refused URL becomes: the page itself, no script. */
export const REFUSED_URL = "#";

/**
 * A value for a URL attribute (`href`, `src`, `action`): a relative URL or one of URL_SCHEMES
 * as given (the template escapes it), else REFUSED_URL. The scheme is read as a browser reads
 * it: leading spaces and control characters, and tabs and newlines anywhere, do not count.
 */
export function url(value: string): string {
  let start = 0;
  while (start < value.length && value.charCodeAt(start) <= 0x20) start++;
  const seen = value.slice(start).replace(/[\t\n\r]/g, "");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(seen);
  if (scheme === null) return value;
  return URL_SCHEMES.has(scheme[1].toLowerCase()) ? value : REFUSED_URL;
}

/**
 * CSS for a `<style>` element, which HTML does not unescape: no `<` may reach it (a `</style>`
 * would end it), so `<` becomes CSS's own escape `\3c ` — our stylesheets have none, and in a
 * theme's values (a font family) it stays text.
 */
function styleText(css: string): Html {
  // Safe: after the replacement nothing in `css` can end the element or start a tag.
  return raw(css.replace(/</g, "\\3c "));
}

/**
 * JSON inside `<script type="application/json">`: `<` escaped so no text can close the
 * element, and the two line separators JavaScript once refused.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** A script of a page, in the order given, at the end of `<body>`. */
export type Script =
  /** A built script of ours (a bundle of a `browser/` folder), inline: the CSP allows it by the hash of exactly this text. */
  | { inline: string }
  /** A script this service serves (CSP `script-src` names its URL). */
  | { src: string }
  /** Data for a script: `<script type="application/json" id="…">`. */
  | { json: unknown; id: string };

function scriptTag(script: Script): Html {
  if ("src" in script) return html`<script src="${url(script.src)}"></script>`;
  if ("json" in script) {
    // Safe: scriptJson leaves no `<` in the text, so nothing in it can close the element.
    return html`<script type="application/json" id="${script.id}">${raw(scriptJson(script.json))}</script>`;
  }
  if (/<\/script/i.test(script.inline)) throw new Error("an inline script must not contain </script");
  // Safe: a bundle built from our own browser/ code (checked above not to close its element),
  // inserted exactly as built: the page's CSP hash is over this text.
  return html`<script>${raw(script.inline)}</script>`;
}

/** `<html>`'s attributes: the resolved view's (its theme by name), or a language (and its direction) alone (a page in no view: /docs, an e-mail). */
export type PageRoot =
  | (Pick<Presentation, "locale" | "dir" | "timezone"> & { theme: { name: string } | null })
  | { lang: string; dir?: "ltr" | "rtl" };

function rootAttributes(root: PageRoot | undefined): Html {
  if (root === undefined) return html``;
  if ("lang" in root) return html` lang="${root.lang}"${root.dir ? html` dir="${root.dir}"` : ""}`;
  return html` lang="${root.locale}" dir="${root.dir}" data-theme="${root.theme?.name ?? BUILTIN_THEME}" data-timezone="${root.timezone}"`;
}

/** Attribute names the shell writes as they are (the values are escaped): letters, digits and `-`. */
const ATTRIBUTE_NAME = /^[a-z][a-z0-9-]*$/;

function bodyAttributes(attributes: Record<string, string | number>): Html {
  return html`${Object.entries(attributes).map(([name, value]) => {
    if (!ATTRIBUTE_NAME.test(name)) throw new Error(`not an attribute name: ${name}`);
    // Safe: the name is checked above; the value is escaped by the template.
    return html` ${raw(name)}="${value}"`;
  })}`;
}

export interface Page {
  /** `<html>`'s attributes: the view the page is drawn in (an e-mail: its language and direction). */
  root?: PageRoot;
  /** `<title>`; none for an e-mail. */
  title?: string;
  /** A page for a screen says how to fit it (`<meta name="viewport">`); an e-mail does not. Default true. */
  viewport?: boolean;
  /** The page's CSS: our stylesheets and the theme's custom properties (see styleText). */
  style?: string;
  /** `<body>`'s attributes (`data-status`, `data-render-complete`, an e-mail's `style`). */
  bodyAttributes?: Record<string, string | number>;
  body: Html;
  /** Scripts after the body's content (an e-mail has none: no CSP, no script). */
  scripts?: readonly Script[];
}

/** One HTML document, as the string a response or an e-mail carries. */
export function renderPage(page: Page): string {
  const viewport = page.viewport ?? true;
  const head = html`<meta charset="utf-8">${viewport ? html`<meta name="viewport" content="width=device-width,initial-scale=1">` : ""}${
    page.title !== undefined ? html`<title>${page.title}</title>` : ""
  }${page.style !== undefined ? html`<style>${styleText(page.style)}</style>` : ""}`;
  return html`<!doctype html>
<html${rootAttributes(page.root)}><head>${head}</head>
<body${bodyAttributes(page.bodyAttributes ?? {})}>${page.body}${(page.scripts ?? []).map(scriptTag)}</body></html>`.toString();
}

/** A fragment as the string a caller keeps (a panel's markup sent as JSON, a control placed into a page). */
export function htmlString(markup: Html): string {
  return markup.toString();
}

/**
 * `value` escaped as the template escapes a slot, for markup another library writes without
 * escaping (ECharts' SVG renderer writes its attribute values as given): read back from a
 * double-quoted attribute, it is `value` again.
 */
export function attributeText(value: string): string {
  return html`${value}`.toString();
}

/**
 * Our words with markup in their slots: each `{name}` of `values` replaced by its value (text
 * escaped, markup as it is), the words around them escaped (`Stop sending {rule} to {email}?`
 * with `email` in `<strong>`). Slots not in `values` stay as written.
 */
export function fillMarkup(text: string, values: Record<string, Slot>): Html {
  const parts: Slot[] = [];
  let last = 0;
  for (const match of text.matchAll(/\{([a-z_]+)\}/g)) {
    if (!(match[1] in values)) continue;
    parts.push(text.slice(last, match.index), values[match[1]]);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return html`${parts}`;
}
