/**
 * The dashboard a signed embed token is for (its `dsh` claim), read from its payload (the
 * signature is the server's business), or null. A page opened by a click on another
 * dashboard (drill-through) keeps its own token: `<dashboard-embed>`'s fresh tokens are for
 * the dashboard it embeds, and would not open this one.
 */
export function tokenDashboard(token: string): string | null {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    const payload = JSON.parse(atob(part + "===".slice((part.length + 3) % 4)));
    return typeof payload.dsh === "string" ? payload.dsh : null;
  } catch {
    return null;
  }
}

/** The embed id of this page (`/embed/<id>`), or null on any other page. */
export function pageDashboard(): string | null {
  const match = /^\/embed\/([^/]+)$/.exec(window.location.pathname);
  return match ? decodeURIComponent(match[1]) : null;
}

/** Whether a token handed over by the parent is for this page's dashboard (pages other than /embed/<id> take any). */
export function tokenFitsPage(token: string): boolean {
  const page = pageDashboard();
  return page === null || tokenDashboard(token) === page;
}
