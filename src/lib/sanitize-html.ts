import { escapeHtml } from "./html";

/**
 * Allow-list sanitiser for the end users' `header`/`footer` HTML in report e-mails: known
 * formatting tags only, no scripts or styles blocks, no event handlers, and links/images
 * only to http(s), mailto and cid (images also data:image). Everything else is dropped or
 * escaped as text.
 */
const ALLOWED_TAGS = new Set([
  "a",
  "b",
  "strong",
  "i",
  "em",
  "u",
  "s",
  "p",
  "br",
  "div",
  "span",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "img",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "td",
  "th",
  "hr",
  "small",
  "sub",
  "sup",
  "blockquote",
  "font",
  "center",
  "caption",
]);
const VOID_TAGS = new Set(["br", "hr", "img"]);
const DROP_WITH_CONTENT = /<(script|style|iframe|object|embed|noscript|template|svg|math)\b[\s\S]*?<\/\1\s*>/gi;
const ALLOWED_ATTRIBUTES = new Set([
  "href",
  "src",
  "alt",
  "title",
  "width",
  "height",
  "align",
  "valign",
  "color",
  "bgcolor",
  "border",
  "cellpadding",
  "cellspacing",
  "colspan",
  "rowspan",
  "style",
  "target",
  "face",
  "size",
]);

function safeUrl(name: string, value: string): boolean {
  // Browsers ignore control characters inside a URL scheme, so they are stripped before it is checked.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: naming control characters is this pattern's job
  const ignoredByBrowsers = /[\u0000-\u001f\s]+/g;
  const url = value.trim().replace(ignoredByBrowsers, "").toLowerCase();
  if (/^(https?:|mailto:|cid:)/.test(url)) return true;
  if (name === "src" && /^data:image\/(png|jpe?g|gif|webp);/.test(url)) return true;
  return !/^[a-z][a-z0-9+.-]*:/.test(url) && !url.startsWith("//"); // relative links are harmless
}

function safeStyle(value: string): boolean {
  return !/(expression|javascript:|vbscript:|url\s*\(|@import|behavior)/i.test(value);
}

function attributes(source: string): string {
  const out: string[] = [];
  const pattern = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (const match of source.matchAll(pattern)) {
    const name = match[1].toLowerCase();
    const value = match[2] ?? match[3] ?? match[4] ?? "";
    if (!ALLOWED_ATTRIBUTES.has(name)) continue; // drops on* handlers and everything unknown
    if ((name === "href" || name === "src") && !safeUrl(name, decodeEntities(value))) continue;
    if (name === "style" && !safeStyle(decodeEntities(value))) continue;
    out.push(` ${name}="${escapeHtml(decodeEntities(value))}"`);
  }
  return out.join("");
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&colon;/gi, ":")
    .replace(/&tab;/gi, "\t")
    .replace(/&newline;/gi, "\n")
    .replace(/&quot;/g, '"')
    .replace(/&apos;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

export function sanitizeHtml(html: string): string {
  const cleaned = html.replace(/<!--[\s\S]*?-->/g, "").replace(DROP_WITH_CONTENT, "");
  let out = "";
  let last = 0;
  for (const match of cleaned.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/g)) {
    out += escapeHtml(decodeEntities(cleaned.slice(last, match.index)));
    last = (match.index ?? 0) + match[0].length;
    const [, closing, rawName, rest] = match;
    const name = rawName.toLowerCase();
    if (!ALLOWED_TAGS.has(name)) continue;
    if (closing) {
      if (!VOID_TAGS.has(name)) out += `</${name}>`;
    } else {
      out += `<${name}${attributes(rest.replace(/\/\s*$/, ""))}${name === "a" ? ' rel="noopener noreferrer"' : ""}>`;
    }
  }
  out += escapeHtml(decodeEntities(cleaned.slice(last)));
  return out;
}
