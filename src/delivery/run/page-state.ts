/**
 * What the capture script (browser/capture.ts, run in the station's tab) reports about the page
 * it loaded, and what the station (browser.ts) decides on: only a complete dashboard is captured.
 */
export interface PageState {
  /** A dashboard is on the page (an error page is not). */
  dashboard: boolean;
  /** The body carries `data-render-complete="true"`. */
  complete: boolean;
  /** Data panels (not text panels) on the page. */
  data: number;
  /** Data panels whose data failed to load. */
  failed: number;
}
