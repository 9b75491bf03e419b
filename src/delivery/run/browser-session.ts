import puppeteer, { type Browser, type CDPSession, type Page } from "@cloudflare/puppeteer";

// Browser Rendering sessions and tabs for the capture stations: a warm session's tab first,
// a new session only when none gives one.

/** A station's tab, with a DevTools session of its own for the capture itself. */
export interface Tab {
  page: Page;
  devtools: CDPSession;
  /** The viewport last set on `devtools`. */
  viewport?: { width: number; scale: number };
}

/**
 * A tab in a free Browser Rendering session (`preferred`, the station's last, first), in a
 * new one only when no free session gives one. A session counts as free only once a tab is
 * open in it: one going away (closed or timed out) may still accept the connection and then
 * fail to open a tab ("Failed to open a new tab"). Disconnecting later (not closing) leaves
 * the session warm for the next connect. `shunned` sessions stopped answering: skipped.
 */
export async function acquire(
  binding: Fetcher,
  preferred: string | undefined,
  shunned: ReadonlySet<string>,
): Promise<{ browser: Browser; tab: Tab }> {
  if (preferred) {
    const warm = await openedIn(() => puppeteer.connect(binding, preferred));
    if (warm) return warm;
    // taken by another station, or gone: look for another
  }
  try {
    const sessions = await puppeteer.sessions(binding);
    for (const session of sessions.filter((s) => !s.connectionId && s.sessionId !== preferred && !shunned.has(s.sessionId))) {
      const warm = await openedIn(() => puppeteer.connect(binding, session.sessionId));
      if (warm) return warm;
      // taken or gone meanwhile: try the next one
    }
  } catch {
    // listing sessions failed: launch below
  }
  return openTab(await puppeteer.launch(binding, { keep_alive: 600_000 }));
}

/** The tab of a session `connect` reaches, or undefined when it cannot be reached or give one. */
async function openedIn(connect: () => Promise<Browser>): Promise<{ browser: Browser; tab: Tab } | undefined> {
  try {
    return await openTab(await connect());
  } catch {
    return undefined;
  }
}

/** The session's first tab (or a new one) with its DevTools session; disconnects when it cannot. */
async function openTab(browser: Browser): Promise<{ browser: Browser; tab: Tab }> {
  try {
    const page = (await browser.pages())[0] ?? (await browser.newPage());
    return { browser, tab: { page, devtools: await page.createCDPSession() } };
  } catch (error) {
    browser.disconnect();
    throw error;
  }
}
