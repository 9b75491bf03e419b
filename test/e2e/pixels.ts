// Looking at captures as a person would, without OCR: decode the PNG (pngjs) and count the
// dark pixels inside the boxes where a page puts its text. Text is #0f172a on white or
// #f4f6fb; charts use the palette's mid-tone colours, so only glyphs (and nothing when the
// browser found no font) come out dark.
import type { Browser } from "puppeteer-core";
import { PNG } from "pngjs";

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function decodePng(bytes: Uint8Array): PNG {
  return PNG.sync.read(Buffer.from(bytes));
}

/** Pixels darker than `threshold` (luma 0–255) inside `box`. */
export function darkPixels(png: PNG, box: Box, threshold = 110): number {
  let count = 0;
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(png.width, Math.ceil(box.x + box.width));
  const y1 = Math.min(png.height, Math.ceil(box.y + box.height));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * png.width + x) * 4;
      const luma = 0.2126 * png.data[i] + 0.7152 * png.data[i + 1] + 0.0722 * png.data[i + 2];
      if (png.data[i + 3] > 0 && luma < threshold) count++;
    }
  }
  return count;
}

/**
 * Where the dashboard title and the first KPI value sit on the page at `width`, measured in
 * a real browser on the embed page made still as a capture renders it (no variable controls).
 */
export async function textBoxes(browser: Browser, url: string, width: number): Promise<{ title: Box; kpi: Box; pageHeight: number }> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width, height: 900, deviceScaleFactor: 1 });
    await page.goto(url);
    await page.waitForSelector('body[data-render-complete="true"]');
    return await page.evaluate(() => {
      const doc = (globalThis as any).document;
      doc.querySelector(".controls")?.remove();
      doc.querySelector("main.dashboard")?.classList.add("still");
      const box = (selector: string) => {
        const r = doc.querySelector(selector).getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      };
      return { title: box(".dashboard-header h1"), kpi: box(".kpi-value"), pageHeight: doc.documentElement.scrollHeight };
    });
  } finally {
    await page.close();
  }
}
