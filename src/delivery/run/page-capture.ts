import { Buffer } from "node:buffer";
import CAPTURE_SCRIPT from "#browser/capture.js";
import { JobFailure } from "../job-state";
import type { Tab } from "./browser-session";
import { beforeDeadline } from "./deadline";
import { exactPageSize } from "./exact-pages";
import type { PaperPrint } from "../../view/paper";

// One capture in a tab: the page loaded by the capture script (browser/capture.ts), checked
// to be a complete dashboard, then its screenshot or PDF.

export interface CaptureOptions {
  width: number;
  /** Device pixels per CSS pixel (1: the image is exactly `width` pixels wide). */
  scale: number;
  format: "png" | "jpeg" | "pdf";
  /** How long each wait for the page may take (default RENDER_TIMEOUT_MS), never past `deadline`. */
  timeoutMs?: number;
  /**
   * When (epoch ms) the capture must have answered, its turn at the station included
   * (default: CAPTURE_BUDGET_MS from the call). Past it the station gives up and says so,
   * and the caller stops waiting for the station: the attempt records its failure itself.
   */
  deadline?: number;
  /** A PDF on paper (a page size: docs/delivery.md "PDF pages"): its pages and margins (the page draws its footer). Absent: one page from the width. */
  paper?: PaperPrint;
}

/** How long a page may take to load and mark itself rendered before the attempt fails. */
const RENDER_TIMEOUT_MS = 20_000;
/** What a page's wait leaves of the deadline for the screenshot or PDF itself. */
const SHOT_RESERVE_MS = 1_500;
export interface Capture {
  bytes: Uint8Array<ArrayBuffer>;
  contentType: "image/png" | "image/jpeg" | "application/pdf";
  /** Where the capture's time went inside the station (for the stage clock, run/timing.ts). */
  timing?: StationTiming;
}

/** Where a capture's time went inside the station. */
export interface StationTiming {
  /** Loading the page and waiting for it to be complete. */
  loadMs: number;
  /** The screenshot or PDF itself. */
  shotMs: number;
}

/**
 * Loads the rendered dashboard, waits (bounded) for it to be complete, refuses anything that
 * is not a complete dashboard, and captures the full page at `width` CSS pixels (`scale`
 * device pixels each) as PNG/JPEG, or prints it as a PDF with backgrounds. Every DevTools
 * message crosses the Browser Rendering proxy, so the whole load is one message (the capture
 * script, browser/capture.ts, called with its arguments) and the capture another, both sent
 * straight to the tab's DevTools session: what puppeteer's setContent + waitForSelector +
 * screenshot do in six to eight. No message is waited for past
 * `deadline`: a browser that vanished without closing the connection fails the capture then.
 */
export async function captureOn(
  tab: Tab,
  html: string,
  options: CaptureOptions,
  deadline: number,
  timing: StationTiming,
): Promise<Capture> {
  const started = Date.now();
  // The tab keeps its viewport between jobs; setting an unchanged one would cost a relayout.
  // Set on the session that captures: the capture takes its scale from its own session.
  if (tab.viewport?.width !== options.width || tab.viewport.scale !== options.scale) {
    const metrics = { width: options.width, height: 800, deviceScaleFactor: options.scale, mobile: false };
    await beforeDeadline(tab.devtools.send("Emulation.setDeviceMetricsOverride", metrics), deadline, "the viewport");
    tab.viewport = { width: options.width, scale: options.scale };
  }
  // The page may wait for itself as long as the deadline leaves time for the shot.
  const timeoutMs = Math.max(0, Math.min(options.timeoutMs ?? RENDER_TIMEOUT_MS, deadline - Date.now() - SHOT_RESERVE_MS));
  const load = `(${CAPTURE_SCRIPT})(${JSON.stringify(html)}, ${timeoutMs})`; // the built function expression, called
  const state = await beforeDeadline(loadIn(tab, load), deadline, "the page");
  const loaded = Date.now();
  timing.loadMs = loaded - started;
  assertCompleteDashboard(state, timeoutMs);
  if (options.format === "pdf") {
    const printed = tab.devtools.send("Page.printToPDF", {
      printBackground: true,
      ...(options.paper ? onPaper(options.paper) : widthPage(options.width)),
      generateTaggedPDF: true, // accessible PDFs (headings, tables), as puppeteer prints them by default
      transferMode: "ReturnAsBase64",
    });
    const { data } = await beforeDeadline(printed, deadline, "the PDF");
    const bytes = options.paper ? exactPageSize(fromBase64(data), options.paper.widthPt, options.paper.heightPt) : fromBase64(data);
    timing.shotMs = Date.now() - loaded;
    return { bytes, contentType: "application/pdf" };
  }
  const shot = tab.devtools.send("Page.captureScreenshot", { format: options.format, captureBeyondViewport: true });
  const { data } = await beforeDeadline(shot, deadline, "the screenshot");
  timing.shotMs = Date.now() - loaded;
  return { bytes: fromBase64(data), contentType: options.format === "jpeg" ? "image/jpeg" : "image/png" };
}

/** Today's PDF page: as wide as the capture, √2 times as high, no footer. */
function widthPage(width: number) {
  return {
    paperWidth: width / 96,
    paperHeight: Math.round(width * Math.SQRT2) / 96,
    marginTop: 16 / 96,
    marginBottom: 16 / 96,
    marginLeft: 0,
    marginRight: 0,
  };
}

/**
 * Pages of the paper's size with its margins. The footer is the page's own (its @page margin
 * boxes, src/view/paper-footer.ts): Chromium's header and footer templates stay off, else they
 * would be printed over it.
 */
function onPaper(paper: PaperPrint) {
  const { paperWidth, paperHeight, margin } = paper;
  return { paperWidth, paperHeight, marginTop: margin, marginBottom: margin, marginLeft: margin, marginRight: margin };
}

/**
 * Runs the load expression in the tab's page and answers its PageState: one Runtime.evaluate
 * on the capture's own DevTools session. Sent straight, not through puppeteer's
 * `page.evaluate`, whose bookkeeping per call (execution contexts, an error object for a stack
 * trace, the source URL) cost the station's isolate more CPU than the message itself.
 */
async function loadIn(tab: Tab, expression: string): Promise<PageState> {
  const { result, exceptionDetails } = await tab.devtools.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
  if (exceptionDetails) throw new Error(`the capture script failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value as PageState;
}

/** DevTools sends files as base64; Buffer decodes natively, where a byte-by-byte loop in JavaScript would spend CPU on every byte. */
function fromBase64(data: string): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.from(data, "base64");
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);
}

/** What the capture script (browser/capture.ts) answers about the page it loaded. */
interface PageState {
  dashboard: boolean;
  complete: boolean;
  data: number;
  failed: number;
}

/**
 * Only a finished dashboard is delivered: a dashboard is on the page (an error page is
 * not), the body says it is complete, and not every data panel failed to load (an empty
 * report that looks like success is worse than a failed job).
 */
function assertCompleteDashboard(state: PageState, timeoutMs: number): void {
  if (!state.dashboard) throw new JobFailure("not_a_dashboard", true, "the page has no dashboard");
  if (!state.complete) throw new JobFailure("incomplete_capture", false, `not marked complete within ${timeoutMs} ms`);
  if (state.data > 0 && state.failed === state.data) {
    throw new JobFailure("all_panels_failed", false, `${state.failed} of ${state.data} data panels failed`);
  }
}
