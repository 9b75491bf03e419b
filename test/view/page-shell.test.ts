import { describe, expect, it } from "vitest";
import { raw } from "hono/html";
import { html, REFUSED_URL, renderPage, type Slot, url } from "../../src/view/page-shell";
import { attribute, attributeNames, decodeEntities, type StartTag, startTags } from "../helpers/html-tags";

// The page shell escapes every slot by default (src/view/page-shell.ts): a hostile value in
// each kind of slot — text, attribute, URL, style, script data — adds no element and no
// attribute, and reads back as the text it was; a benign value appears exactly as given.

const HOSTILE_TEXT = `</p><img src=x onerror="alert(1)">&amp;'"<script>alert(2)</script>`;
const HOSTILE_ATTRIBUTE = `x" onmouseover="alert(1)" y='z' <b>`;

const tagNames = (tags: StartTag[]) => tags.map((t) => t.name);
const only = (tags: StartTag[], name: string) => {
  const found = tags.filter((t) => t.name === name);
  expect(found).toHaveLength(1);
  return found[0];
};
/** The text between `<p id="slot">` and its `</p>`, decoded as a browser reads it. */
const slotText = (page: string) => decodeEntities(page.slice(page.indexOf('<p id="slot">') + 13, page.indexOf("</p>")));

function page(body: Slot, extra: Partial<Parameters<typeof renderPage>[0]> = {}): string {
  return renderPage({ root: { lang: "en" }, title: "Page", body: html`<main>${body}</main>`, ...extra });
}

describe("the page shell: text slots", () => {
  it("a hostile text adds no element and reads back as itself", () => {
    const out = page(html`<p id="slot">${HOSTILE_TEXT}</p>`);
    expect(tagNames(startTags(out))).toEqual(["html", "head", "meta", "meta", "title", "body", "main", "p"]);
    expect(slotText(out)).toBe(HOSTILE_TEXT);
  });

  it("a hostile title stays the title's text", () => {
    const title = "</title><script>alert(1)</script>";
    const tags = startTags(page("", { title }));
    expect(tagNames(tags)).not.toContain("script");
    expect(decodeEntities(only(tags, "title").text ?? "")).toBe(title);
  });

  it("lists and nested templates are escaped the same; nothing (null, undefined, false) is left out", () => {
    const items = [HOSTILE_TEXT, html`<b>${HOSTILE_TEXT}</b>`, null, undefined, false, 7];
    const out = page(html`<p id="slot">${items}</p>`);
    expect(tagNames(startTags(out))).toEqual(["html", "head", "meta", "meta", "title", "body", "main", "p", "b"]);
    expect(out).toContain(
      `<b>${HOSTILE_TEXT.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")}</b>7`,
    );
  });

  it("control: benign text appears exactly, and raw() markup passes as marked", () => {
    const out = page(html`<p id="slot">Umsatz je Region – 2026 ${raw("<em>neu</em>")}</p>`);
    expect(out).toContain('<p id="slot">Umsatz je Region – 2026 <em>neu</em></p>');
    expect(typeof out).toBe("string");
  });

  it("a promise cannot get into a page (rendering stays synchronous)", () => {
    expect(() => html`<p>${Promise.resolve("later") as unknown as string}</p>`).toThrow(/synchronously/);
  });
});

describe("the page shell: attribute slots", () => {
  it("the view's values on <html> and the body's attributes add no attribute", () => {
    const out = renderPage({
      root: { locale: HOSTILE_ATTRIBUTE, dir: "rtl", timezone: HOSTILE_ATTRIBUTE, theme: { name: HOSTILE_ATTRIBUTE } },
      title: "t",
      bodyAttributes: { "data-status": HOSTILE_ATTRIBUTE },
      body: html`<p id="slot" title="${HOSTILE_ATTRIBUTE}" style="${`color:red" onclick="alert(1)`}">x</p>`,
    });
    const tags = startTags(out);
    const root = only(tags, "html");
    expect(root.attributes).toEqual([
      ["lang", HOSTILE_ATTRIBUTE],
      ["dir", "rtl"],
      ["data-theme", HOSTILE_ATTRIBUTE],
      ["data-timezone", HOSTILE_ATTRIBUTE],
    ]);
    expect(only(tags, "body").attributes).toEqual([["data-status", HOSTILE_ATTRIBUTE]]);
    const p = only(tags, "p");
    expect(attributeNames(p)).toEqual(["id", "title", "style"]);
    expect(attribute(p, "title")).toBe(HOSTILE_ATTRIBUTE);
    expect(attribute(p, "style")).toBe(`color:red" onclick="alert(1)`);
    expect(tagNames(tags)).not.toContain("b");
  });

  it("an attribute name the shell writes as it is must be a name", () => {
    expect(() => renderPage({ body: html``, bodyAttributes: { "onload=alert(1) x": "1" } })).toThrow(/attribute name/);
  });

  it("control: a view's <html> and a body attribute appear exactly", () => {
    const out = renderPage({
      root: { locale: "de-DE", dir: "ltr", timezone: "Europe/Berlin", theme: { name: "Acme dark" } },
      title: "Sales",
      bodyAttributes: { "data-status": 200 },
      body: html`<p>x</p>`,
    });
    expect(out).toBe(`<!doctype html>
<html lang="de-DE" dir="ltr" data-theme="Acme dark" data-timezone="Europe/Berlin"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Sales</title></head>
<body data-status="200"><p>x</p></body></html>`);
    expect(renderPage({ root: { locale: "en-US", dir: "ltr", timezone: "UTC", theme: null }, body: html`` })).toContain(
      '<html lang="en-US" dir="ltr" data-theme="builtin" data-timezone="UTC">',
    );
  });
});

describe("the page shell: URL slots", () => {
  const refused = [
    "javascript:alert(1)",
    " JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "\u0001javascript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html,<script>alert(1)</script>",
  ];
  for (const value of refused) {
    it(`${JSON.stringify(value)} is no link`, () => {
      expect(url(value)).toBe(REFUSED_URL);
      const tags = startTags(page(html`<a href="${url(value)}">x</a>`, { scripts: [{ src: value }] }));
      expect(attribute(only(tags, "a"), "href")).toBe(REFUSED_URL);
      expect(attribute(only(tags, "script"), "src")).toBe(REFUSED_URL);
    });
  }

  it("a hostile URL of an allowed scheme stays one attribute", () => {
    const value = `https://example.com/" onclick="alert(1)`;
    const a = only(startTags(page(html`<a href="${url(value)}">x</a>`)), "a");
    expect(a.attributes).toEqual([["href", value]]);
  });

  it("control: relative, https, mailto and cid URLs appear exactly", () => {
    for (const value of [
      "/embed/x/panels/p.csv?token=a&var_region=eu",
      "https://example.com/a?b=1",
      "mailto:a@example.com",
      "cid:dashboard",
      "#Dashboards",
    ]) {
      expect(url(value)).toBe(value);
      expect(attribute(only(startTags(page(html`<a href="${url(value)}">x</a>`)), "a"), "href")).toBe(value);
    }
    expect(page(html`<a href="${url("/a?b=1&c=2")}">x</a>`)).toContain('<a href="/a?b=1&amp;c=2">x</a>');
  });
});

describe("the page shell: the style slot", () => {
  it("a hostile stylesheet cannot end its <style> element", () => {
    const css = "body{font-family:x}</style><script>alert(1)</script><style>";
    const tags = startTags(page("", { style: css }));
    expect(tagNames(tags)).toEqual(["html", "head", "meta", "meta", "title", "style", "body", "main"]);
    expect(only(tags, "style").text).toBe("body{font-family:x}\\3c /style>\\3c script>alert(1)\\3c /script>\\3c style>");
  });

  it("control: our CSS (quotes, child combinators, custom properties) appears exactly", () => {
    const css = `:root{--cd-font:"Acme Sans", system-ui, sans-serif}.a>b{content:'x'}`;
    expect(page("", { style: css })).toContain(`<style>${css}</style>`);
  });
});

describe("the page shell: scripts", () => {
  it("script data cannot end its element; it reads back as the value", () => {
    const value = { name: "</script><script>alert(1)</script>", line: "a\u2028b" };
    const tags = startTags(page("", { scripts: [{ json: value, id: "boot" }] }));
    const script = only(tags, "script");
    expect(script.attributes).toEqual([
      ["type", "application/json"],
      ["id", "boot"],
    ]);
    expect(JSON.parse(script.text ?? "")).toEqual(value);
  });

  it("an inline script must be a script of ours: one that closes its element is refused", () => {
    expect(() => page("", { scripts: [{ inline: "x='</script><script>alert(1)'" }] })).toThrow(/<\/script/);
  });

  it("control: a built script appears exactly as given (its CSP hash is over this text), scripts in order", () => {
    const script = 'addEventListener("load",()=>{document.body.dataset.x="a&b<c"})';
    const out = page("", { scripts: [{ json: [1], id: "d" }, { inline: script }, { src: "/report-builder.js" }] });
    expect(out).toContain(
      `<script type="application/json" id="d">[1]</script><script>${script}</script><script src="/report-builder.js"></script></body></html>`,
    );
  });

  it("an e-mail: no head but its charset, no title, no viewport, no script", () => {
    const out = renderPage({ viewport: false, bodyAttributes: { style: "margin:0" }, body: html`<div>x</div>` });
    expect(out).toBe('<!doctype html>\n<html><head><meta charset="utf-8"></head>\n<body style="margin:0"><div>x</div></body></html>');
  });
});
