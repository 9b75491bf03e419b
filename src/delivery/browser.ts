import puppeteer, { type Browser } from "@cloudflare/puppeteer";

export interface Capture {
  bytes: Uint8Array;
  contentType: "image/png" | "image/jpeg" | "application/pdf";
}

/**
 * A live Browser Rendering session is reused across jobs: connect to a free one, launch
 * only when none is free, and disconnect (not close) afterwards so the next job finds it.
 */
let lastSessionId: string | undefined;

async function acquire(binding: Fetcher): Promise<Browser> {
  // The session this isolate used last is usually free again: connect to it directly.
  if (lastSessionId) {
    try {
      return await puppeteer.connect(binding, lastSessionId);
    } catch {
      lastSessionId = undefined;
    }
  }
  try {
    const sessions = await puppeteer.sessions(binding);
    for (const session of sessions.filter((s) => !s.connectionId)) {
      try {
        const browser = await puppeteer.connect(binding, session.sessionId);
        lastSessionId = session.sessionId;
        return browser;
      } catch {
        // taken or gone meanwhile: try the next one
      }
    }
  } catch {
    // listing sessions failed: launch below
  }
  const browser = await puppeteer.launch(binding, { keep_alive: 600_000 });
  lastSessionId = browser.sessionId();
  return browser;
}

/**
 * Loads the rendered dashboard with setContent (no round trip back to the Worker), waits
 * for `data-render-complete`, and captures the full page at `width` CSS pixels (device
 * scale factor 1) as PNG/JPEG, or prints it as a PDF with backgrounds.
 */
export async function capture(binding: Fetcher, html: string, options: { width: number; format: "png" | "jpeg" | "pdf" }): Promise<Capture> {
  const browser = await acquire(binding);
  try {
    // The session keeps its tab between jobs: reusing it saves opening a new one each time.
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    {
      await page.setViewport({ width: options.width, height: 800, deviceScaleFactor: 1 });
      await page.setContent(html, { waitUntil: "load" });
      await page.waitForSelector('body[data-render-complete="true"]', { timeout: 30_000 });
      if (options.format === "pdf") {
        const pdf = await page.pdf({
          printBackground: true,
          width: `${options.width}px`,
          height: `${Math.round(options.width * 1.414)}px`,
          margin: { top: "16px", bottom: "16px", left: "0", right: "0" },
        });
        return { bytes: new Uint8Array(pdf), contentType: "application/pdf" };
      }
      const image = await page.screenshot({ fullPage: true, type: options.format });
      return { bytes: new Uint8Array(image as Uint8Array), contentType: options.format === "jpeg" ? "image/jpeg" : "image/png" };
    }
  } finally {
    browser.disconnect();
  }
}
