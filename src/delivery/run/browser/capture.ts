/**
 * Runs in the capture station's tab (src/delivery/run/page-capture.ts sends it with its arguments
 * in one DevTools message): replaces the document with `html` the way puppeteer's setContent
 * does, waits for `load` and its fonts, then for the body's `data-render-complete` mark (all
 * of it within `timeoutMs`, so no page holds the station's line for long), and reports what
 * is on the page. Built as a function expression: its default export.
 */

/** What is on the page (../page-capture.ts captures only a complete dashboard). */
interface PageState {
  /** A dashboard is on the page (an error page is not). */
  dashboard: boolean;
  /** The body carries `data-render-complete="true"`. */
  complete: boolean;
  /** Data panels (not text panels) on the page. */
  data: number;
  /** Data panels whose data failed to load. */
  failed: number;
}

export default async function loadPage(html: string, timeoutMs: number): Promise<PageState> {
  const end = Date.now() + timeoutMs;
  const left = () => Math.max(0, end - Date.now());
  document.open();
  document.write(html);
  document.close();
  const bounded = (promise: Promise<unknown>) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, left()))]);
  if (document.readyState !== "complete") await bounded(new Promise((resolve) => window.addEventListener("load", resolve, { once: true })));
  // A theme's fonts (inlined as data: URLs) are loaded before the shot, each declared face
  // explicitly: `fonts.ready` alone covers only faces the layout has asked for so far.
  const faces: Promise<unknown>[] = [];
  document.fonts.forEach((face) => {
    faces.push(face.load().catch(() => undefined));
  });
  await bounded(Promise.all(faces));
  await bounded(document.fonts.ready);
  const marked = () => document.body !== null && document.body.getAttribute("data-render-complete") === "true";
  const isDashboard = document.querySelector("main.dashboard") !== null;
  if (isDashboard && !marked()) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        observer.disconnect();
        resolve();
      };
      const timer = setTimeout(done, left());
      const observer = new MutationObserver(() => marked() && done());
      observer.observe(document.documentElement, { attributes: true, subtree: true });
    });
  }
  const data = [...document.querySelectorAll("main.dashboard section.panel:not(.panel-text)")];
  return {
    dashboard: isDashboard,
    complete: marked(),
    data: data.length,
    failed: data.filter((panel) => panel.querySelector(".message-failed") !== null).length,
  };
}
