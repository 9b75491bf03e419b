// Reading captured PDFs back as a PDF reader does (pdfjs-dist, Mozilla's PDF engine): each
// page's size in points, its text runs with where they stand, the document's language and
// structure tree (tagged PDF), the font of each text run, and a page drawn as a PNG (its canvas, @napi-rs/canvas) to be
// looked at.
import { getDocument, type PDFDocumentProxy } from "pdfjs-dist/legacy/build/pdf.mjs";

export interface PdfText {
  text: string;
  x: number;
  /** From the page's bottom, as PDF coordinates go. */
  y: number;
  /** The embedded font the run is drawn in, as the PDF names it ("AAAAAA+OpenSans": a subset of Open Sans). */
  font: string;
}

export interface PdfPageRead {
  /** The MediaBox in points: [width, height]. */
  size: [number, number];
  texts: PdfText[];
  /** Every text run of the page joined by spaces (what a search finds). */
  joined: string;
}

export interface PdfRead {
  doc: PDFDocumentProxy;
  pages: PdfPageRead[];
}

export async function readPdf(bytes: Uint8Array): Promise<PdfRead> {
  // pdfjs takes the buffer over: it is given a copy.
  // fontExtraProperties: each loaded font keeps its name, which the text runs point at.
  const doc = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, verbosity: 0, fontExtraProperties: true }).promise;
  const pages: PdfPageRead[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const [x0, y0, x1, y1] = page.view;
    // The operator list loads the page's fonts into commonObjs, where each run's fontName is found.
    await page.getOperatorList();
    const content = await page.getTextContent();
    const fontOf = (name: string) => (page.commonObjs.has(name) ? String((page.commonObjs.get(name) as { name?: string }).name) : "");
    const texts = content.items.flatMap((item) =>
      "str" in item && item.str.trim() !== ""
        ? [{ text: item.str.trim(), x: item.transform[4], y: item.transform[5], font: fontOf(item.fontName) }]
        : [],
    );
    pages.push({
      size: [Math.round((x1 - x0) * 100) / 100, Math.round((y1 - y0) * 100) / 100],
      texts,
      joined: texts.map((t) => t.text).join(" "),
    });
  }
  return { doc, pages };
}

/** The page numbers (1-based) whose text runs include `text` exactly. */
export function pagesWith(read: PdfRead, text: string): number[] {
  return read.pages.flatMap((page, i) => (page.texts.some((t) => t.text === text) ? [i + 1] : []));
}

/** Page `n` (1-based) drawn as a PNG at `scale` (1: one pixel per point). */
export async function pagePng(read: PdfRead, n: number, scale = 1): Promise<Buffer> {
  const page = await read.doc.getPage(n);
  const viewport = page.getViewport({ scale });
  const { createCanvas } = await import("@napi-rs/canvas");
  const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
  await page.render({ canvas: canvas as never, canvasContext: canvas.getContext("2d") as never, viewport }).promise;
  return canvas.toBuffer("image/png");
}
