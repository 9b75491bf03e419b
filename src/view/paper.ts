import { z } from "@hono/zod-openapi";

// Paper (docs/delivery.md, "PDF pages"): a PDF with a page size is printed on pages of exactly
// that size with 12 mm margins, the dashboard laid out at the page's printable width. Without
// a page size (neither the request nor the definition names one) the PDF is today's: one page
// size derived from the capture's width.

export const PAGE_SIZES = ["A4", "Letter", "Legal", "A3"] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const ORIENTATIONS = ["portrait", "landscape"] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

/** Each size in points (1/72 in), portrait: width, height. */
const POINTS: Record<PageSize, readonly [number, number]> = { A4: [595, 842], Letter: [612, 792], Legal: [612, 1008], A3: [842, 1191] };
export const MARGIN_MM = 12;
const PX_PER_PT = 96 / 72;
const PX_PER_MM = 96 / 25.4;

/** `pdf` of a request, a rule or a definition: a page size and an orientation, each optional. */
export const PdfPageFields = z
  .object({
    page_size: z
      .enum(PAGE_SIZES)
      .optional()
      .openapi({ description: "A4 (595×842 pt), Letter (612×792), Legal (612×1008) or A3 (842×1191)." }),
    orientation: z.enum(ORIENTATIONS).optional().openapi({ description: "portrait (default) or landscape (width and height swapped)." }),
  })
  .openapi("PdfPage", {
    description:
      "PDF pages: with a page size, pages of exactly that size with 12 mm margins, no panel cut by a page break, tables with all their rows, a footer with page N of M. Without one (here or in the dashboard's definition), one page derived from the width.",
  });
export type PdfPage = z.infer<typeof PdfPageFields>;

/** The pages a PDF is printed on. */
export interface Paper {
  size: PageSize;
  orientation: Orientation;
  /** The page in points, as the PDF's MediaBox says it. */
  widthPt: number;
  heightPt: number;
  /** The margin on every side, in CSS px. */
  marginPx: number;
  /** What is left inside the margins, in CSS px: the width the dashboard is laid out at, and a page's height. */
  printableWidthPx: number;
  printableHeightPx: number;
}

/**
 * The paper of a PDF from its `pdf` settings, the later ones over the earlier (a definition's
 * default, then the request's); none when no page size is named anywhere.
 */
export function paperOf(...settings: (PdfPage | null | undefined)[]): Paper | undefined {
  const merged: PdfPage = Object.assign({}, ...settings.map((s) => s ?? {}));
  if (merged.page_size === undefined) return undefined;
  const orientation = merged.orientation ?? "portrait";
  const [short, long] = POINTS[merged.page_size];
  const [widthPt, heightPt] = orientation === "landscape" ? [long, short] : [short, long];
  const marginPx = MARGIN_MM * PX_PER_MM;
  return {
    size: merged.page_size,
    orientation,
    widthPt,
    heightPt,
    marginPx,
    printableWidthPx: Math.floor(widthPt * PX_PER_PT - 2 * marginPx),
    printableHeightPx: Math.floor(heightPt * PX_PER_PT - 2 * marginPx),
  };
}

/** What the capture needs to print on `paper`: the page in points, exactly, and what DevTools' Page.printToPDF takes (inches). */
export interface PaperPrint {
  /** The page in points, exactly (Chromium's own is rounded to 1/300 inch). */
  widthPt: number;
  heightPt: number;
  paperWidth: number;
  paperHeight: number;
  margin: number;
}

/** The print of a PDF on `paper` (its footer is the page's own: paper-footer.ts). */
export function paperPrint(paper: Paper): PaperPrint {
  return {
    widthPt: paper.widthPt,
    heightPt: paper.heightPt,
    paperWidth: paper.widthPt / 72,
    paperHeight: paper.heightPt / 72,
    margin: MARGIN_MM / 25.4,
  };
}
