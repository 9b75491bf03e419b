import { Buffer } from "node:buffer";

// Chromium prints a page size in whole 1/300 inches: A4 (595 × 842 pt) comes out 594.96 ×
// 841.92 pt, A3 841.92 × 1190.88. A PDF on paper has pages of exactly the size it names
// (docs/delivery.md, "PDF pages"), so each page's MediaBox, which Chromium writes as plain
// text, is rewritten to the exact points — padded with blanks to its old length, so that no
// byte offset of the file's cross-reference table moves. The drawing is untouched: the box
// grows by at most 1/300 inch.

const MEDIA_BOX = /\/MediaBox \[0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)\]/g;
/** Chromium's rounding is below half a point; a box further off is not the paper's and stays. */
const TOLERANCE_PT = 0.5;

/** `pdf` with each page's MediaBox exactly `widthPt` × `heightPt` (in place; the same bytes when already exact). */
export function exactPageSize(pdf: Uint8Array<ArrayBuffer>, widthPt: number, heightPt: number): Uint8Array<ArrayBuffer> {
  const buffer = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const text = buffer.toString("latin1");
  for (const match of text.matchAll(MEDIA_BOX)) {
    const [box, width, height] = match;
    if (Math.abs(Number(width) - widthPt) > TOLERANCE_PT || Math.abs(Number(height) - heightPt) > TOLERANCE_PT) continue;
    const exact = `/MediaBox [0 0 ${widthPt} ${heightPt}]`;
    if (exact.length > box.length) continue;
    buffer.write(exact.padEnd(box.length, " "), match.index, "latin1");
  }
  return pdf;
}
