import puppeteer, { type Browser, type Page } from "@cloudflare/puppeteer";
import { stage } from "../lib/stages";
import { JobFailure } from "./job-state";

export interface CaptureOptions {
  width: number;
  format: "png" | "jpeg" | "pdf";
}

/** How long a page may take to mark itself rendered before the attempt fails. */
const RENDER_TIMEOUT_MS = 20_000;

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
 * (bounded) for `data-render-complete`, refuses anything that is not a complete dashboard,
 * and captures the full page at `width` CSS pixels (device scale factor 1) as PNG/JPEG,
 * or prints it as a PDF with backgrounds.
 */
export async function capture(binding: Fetcher, html: string, options: CaptureOptions): Promise<Capture> {
  const browser = await acquire(binding);
  stage("browser_connect");
  try {
    // The session keeps its tab between jobs: reusing it saves opening a new one each time.
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    await page.setViewport({ width: options.width, height: 800, deviceScaleFactor: 1 });
    await page.setContent(html, { waitUntil: "load" });
    await assertCompleteDashboard(page);
    if (options.format === "pdf") {
      const pdf = await page.pdf({
        printBackground: true,
        width: `${options.width}px`,
        height: `${Math.round(options.width * 1.414)}px`,
        margin: { top: "16px", bottom: "16px", left: "0", right: "0" },
      });
      stage("capture");
      return { bytes: new Uint8Array(pdf), contentType: "application/pdf" };
    }
    const image = await page.screenshot({ fullPage: true, type: options.format });
    stage("capture");
    return { bytes: new Uint8Array(image as Uint8Array), contentType: options.format === "jpeg" ? "image/jpeg" : "image/png" };
  } finally {
    browser.disconnect();
  }
}

/**
 * Only a finished dashboard is delivered: a dashboard is on the page (an error page is
 * not), the body says it is complete (waited for, bounded), and not every data panel
 * failed to load (an empty report that looks like success is worse than a failed job).
 */
async function assertCompleteDashboard(page: Page): Promise<void> {
  let state = await pageState(page);
  if (!state.dashboard) throw new JobFailure("not_a_dashboard", true, "the page has no dashboard");
  if (!state.complete) {
    try {
      await page.waitForSelector('body[data-render-complete="true"]', { timeout: RENDER_TIMEOUT_MS });
    } catch (error) {
      throw new JobFailure("incomplete_capture", false, error instanceof Error ? error.message : String(error));
    }
    state = await pageState(page);
  }
  if (state.data > 0 && state.failed === state.data) {
    throw new JobFailure("all_panels_failed", false, `${state.failed} of ${state.data} data panels failed`);
  }
}

/** One look at the page; a string so it runs in the page as written (no DOM types here). */
async function pageState(page: Page): Promise<{ dashboard: boolean; complete: boolean; data: number; failed: number }> {
  return (await page.evaluate(`(() => {
    const data = [...document.querySelectorAll("main.dashboard section.panel:not(.panel-text)")];
    return {
      dashboard: document.querySelector("main.dashboard") !== null,
      complete: document.body !== null && document.body.getAttribute("data-render-complete") === "true",
      data: data.length,
      failed: data.filter((panel) => panel.querySelector(".message-failed") !== null).length,
    };
  })()`)) as { dashboard: boolean; complete: boolean; data: number; failed: number };
}
