import { dateTimeFormat, numberFormat } from "./format";
import { translator } from "./messages";
import { MARGIN_MM } from "./paper";
import { documentOf, type Presentation } from "./presentation";

// The footer of every page of a PDF on paper (docs/delivery.md, "PDF pages"): the title, the
// time of rendering in the view's locale and time zone, and "page N of M" in the view's
// language. The page draws it itself, in its @page margin boxes, so the footer is the page's
// own text in the theme's font files (the @font-face the page carries, inlined for the
// capture): a footer template of its own, as Chromium prints one apart from the page, has no
// web fonts and could only name the theme's family for a system font to stand in.
// Margin boxes are placed physically: a right-to-left view puts the title right, the page
// number left.

/** Counter styles of the numbering systems Intl writes a locale's digits in (others count 1, 2, 3). */
const COUNTER_STYLES: Record<string, string> = {
  arab: "arabic-indic",
  arabext: "persian",
  deva: "devanagari",
  beng: "bengali",
  thai: "thai",
};

/** A CSS string literal of `text`: quotes, backslashes and markup characters escaped, so no text can end the string or the style element. */
function cssString(text: string): string {
  return `"${text.replace(/["\\<>&\n\r\f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;
}

/** "Page {page} of {pages}" as CSS content: the words as strings, the numbers as the page counters in the locale's digits. */
function pageContent(template: string, locale: string): string {
  const style = COUNTER_STYLES[numberFormat(locale).resolvedOptions().numberingSystem] ?? "decimal";
  return template
    .split(/(\{pages?\})/)
    .filter((part) => part !== "")
    .map((part) => (part === "{page}" ? `counter(page, ${style})` : part === "{pages}" ? `counter(pages, ${style})` : cssString(part)))
    .join(" ");
}

/** The @page rules of a PDF on paper: its 12 mm margins and, in the bottom one, the footer of every page. */
export function paperFooterCss(footer: { title: string; view: Presentation; renderedAt: Date }): string {
  const { view } = footer;
  const t = translator(view.locale);
  const time = dateTimeFormat(view.locale, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: view.timezone,
    timeZoneName: "short",
  }).format(footer.renderedAt);
  // The theme's family, as the page's own text uses it (its @font-face files), then a system font.
  const box = `font-family:${documentOf(view).font_family},sans-serif;font-size:9px;color:#555;direction:${view.dir}`;
  const [start, end] = view.dir === "rtl" ? ["right", "left"] : ["left", "right"];
  return `@page{margin:${MARGIN_MM}mm;
@bottom-${start}{content:${cssString(footer.title)};${box};text-align:${start}}
@bottom-center{content:${cssString(t("capture.rendered", { time }))};${box}}
@bottom-${end}{content:${pageContent(t("capture.page"), view.locale)};${box};text-align:${end}}
}
`;
}
