import { contrastRatio, mixColors, readableColor } from "./contrast";
import { assetPath } from "./asset-url";
import { type Html, html, url } from "./page-shell";
import { BUILTIN_DOCUMENT, documentOf, type Presentation, type ThemeDocument } from "./presentation";
import type { ThemeColors } from "./palette";

// A theme as CSS and as chart colors: every surface draws from these, so the live page, the
// PNG, the PDF and the e-mail's image wear the same colors. Pages name colors only through
// the custom properties below (`var(--cd-…)`); a page's stylesheet starts with the built-in
// values (BUILTIN_THEME_CSS) and a themed view lays its own over them.

/** Black or white text on the accent, whichever reads better (buttons, the subscribe control). */
export function onAccent(accent: string): string {
  return contrastRatio(accent, "#ffffff") >= contrastRatio(accent, "#0f172a") ? "#ffffff" : "#0f172a";
}

/** A font family as CSS writes it in `@font-face` (quoted, quotes inside removed). */
function quotedFamily(family: string): string {
  return `"${family.replace(/["'\\]/g, "")}"`;
}

/**
 * How a theme's font is shown while it loads: `block` (invisible text until it is in) where a
 * capture takes the page, which waits for every face first (src/delivery/run/browser/capture.ts);
 * `swap` on live pages, which show their text in the next font of the family list meanwhile.
 */
export type FontDisplay = "block" | "swap";

/**
 * `@font-face` rules for the theme's fonts and the custom properties of its colors, radius and
 * font. `base` prefixes the font URLs ("" on our own pages: same origin, CSP `'self'`).
 */
export function themeCss(doc: ThemeDocument, base = "", display: FontDisplay = "block"): string {
  const faces = doc.fonts
    .map(
      (font) =>
        `@font-face{font-family:${quotedFamily(font.family)};src:url(${base}${assetPath(font.sha256)}) format("woff2");font-weight:${font.weight};font-style:${font.style};font-display:${display}}`,
    )
    .join("");
  const c = doc.colors;
  const ink = readableInks(c);
  return `${faces}:root{--cd-bg:${c.background};--cd-surface:${c.surface};--cd-text:${c.text};--cd-muted:${ink.muted};--cd-border:${c.border};--cd-accent:${c.accent};--cd-on-accent:${onAccent(c.accent)};--cd-link:${ink.link};--cd-focus:${ink.focus};--cd-radius:${doc.radius}px;--cd-font:${doc.font_family};color-scheme:${doc.mode}}`;
}

/**
 * The grounds our pages draw small text on: the page, a panel, a table's header row
 * (PANEL_STYLE's `th`: 6 % text into the surface) and its striped rows (2 %).
 */
function textGrounds(c: ThemeColors): string[] {
  return [c.background, c.surface, mixColors(c.surface, c.text, 0.06), mixColors(c.surface, c.text, 0.02)];
}

/**
 * The theme's colors as our pages write with them (docs/accessibility.md): muted text and accent-colored
 * text (links, the CSV link) at 4.5:1 on every ground, the focus ring in the accent at 3:1
 * against the page and a panel (docs/accessibility.md). A color that reaches it already is kept as it is.
 */
export function readableInks(c: ThemeColors): { muted: string; link: string; focus: string } {
  const grounds = textGrounds(c);
  return {
    muted: readableColor(c.muted_text, grounds, 4.5, c.text),
    link: readableColor(c.accent, grounds, 4.5, c.text),
    focus: readableColor(c.accent, [c.background, c.surface], 3, c.text),
  };
}

/** The custom properties of the built-in light theme: every page's stylesheet starts with them. */
export const BUILTIN_THEME_CSS = themeCss(BUILTIN_DOCUMENT);

/** The CSS of a view's theme, to follow a page's stylesheet ("" for the built-in theme: already there). */
export function presentationCss(presentation: Presentation, display: FontDisplay = "block"): string {
  return presentation.theme ? themeCss(presentation.theme.document, "", display) : "";
}

/** What a chart is drawn with: series in order, text and grid colors, the font. */
export interface ChartLook {
  series: string[];
  text: string;
  grid: string;
  surface: string;
  font: string;
  /** Series drawn with patterns as well as colors (a theme's `decals`). */
  decals?: boolean;
}

export function chartLook(presentation: Presentation | ThemeDocument, builtin?: ChartLook): ChartLook {
  if (builtin && "locale" in presentation && presentation.theme === null) return builtin;
  const doc = "colors" in presentation ? presentation : documentOf(presentation);
  return {
    series: doc.colors.series,
    // Axis labels are small text on the panel: the muted color as pages write it (4.5:1).
    text: readableInks(doc.colors).muted,
    grid: doc.colors.border,
    surface: doc.colors.surface,
    font: doc.font_family,
    ...(doc.decals ? { decals: true } : {}),
  };
}

/** The logo's `<img>` left of a page title ("" without a logo). `base` as for themeCss. */
export function logoImg(presentation: Presentation, base = "", height = 28): Html | "" {
  const logo = presentation.theme?.document.logo;
  if (!logo) return "";
  return html`<img class="cd-logo" src="${url(`${base}${assetPath(logo.sha256)}`)}" alt="" height="${height}" style="height:${height}px;width:auto">`;
}
