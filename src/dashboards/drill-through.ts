import type { Database } from "../db/client";
import type { Env } from "../env";
import { signEmbedToken, verifyEmbedToken } from "../tokens/embed";
import { readDashboard } from "./customer-dashboard";
import type { Viewer } from "./viewer";
import { HOME_PARAMETER } from "./back-control";

// A click on a panel whose on_click is `open` (docs/embedding.md "Clicks"): the target dashboard for the same
// customer. The target comes from the saved definition, never from the request; the token the
// target page gets is minted here from the current one and is never wider: same customer and
// customer-token fingerprint, the same locked variables, pinned environment, presentation and
// origins, and an expiry no later than the current token's (no user_email: the target page
// offers no Subscribe control). A customer-token page opens the target with its customer token.

/** The clicked row's values the page sends (`row`, JSON): only the columns the action names are read. */
function rowValues(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function variableText(value: unknown): string {
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

/** Where the click goes (path and query of the target page), or why it is refused (the status of its error page). */
export type Drill = { location: string } | { status: 401 | 403 | 404; refused: string };

/**
 * The target page of `panelId`'s `open`. Refused: a panel that opens nothing (404), a
 * `dashboard` other than the one the panel opens (403: a tampered request). The viewer was
 * authorised for `embedId` by the caller.
 */
export async function drillThrough(
  db: Database,
  env: Env,
  input: { embedId: string; panelId: string; viewer: Viewer; query: Record<string, string> },
): Promise<Drill> {
  const { embedId, panelId, viewer, query } = input;
  const loaded = await readDashboard(db, { embedId, ...viewer });
  const panel = loaded.definition.panels.find((p) => p.id === panelId);
  const click = panel?.on_click;
  if (!panel || click?.action !== "open") return { status: 404, refused: "This panel opens no other dashboard." };
  if (query.dashboard !== undefined && query.dashboard !== click.dashboard)
    return { status: 403, refused: "This panel does not open that dashboard." };

  const target = new URLSearchParams();
  if (query.token !== undefined) {
    const claims = await verifyEmbedToken(env, query.token);
    // resolveViewer checked it a moment ago; an expired token between the two is refused the same way.
    if (!claims || claims.dsh !== embedId) return { status: 401, refused: "This embed token is not valid or has expired." };
    const { eml: _viewerEmail, ...kept } = claims;
    const token = await signEmbedToken(env, { ...kept, dsh: click.dashboard, iat: Math.min(claims.exp, Math.floor(Date.now() / 1000)) });
    target.set("token", token);
  } else {
    target.set("customer_token", query.customer_token ?? "");
    if (query.environment) target.set("environment", query.environment);
  }
  if (query.width) target.set("width", query.width);
  // The dashboard the frame was opened on, kept along a chain of drill-throughs: the target shows a Back control (./back-control.ts).
  const home = query[HOME_PARAMETER] || embedId;
  if (home !== click.dashboard) target.set(HOME_PARAMETER, home);
  const row = rowValues(query.row);
  for (const [variable, column] of Object.entries(click.variables)) {
    const value = row[column];
    if (value !== undefined && value !== null) target.set(`var_${variable}`, variableText(value));
  }
  return { location: `/embed/${encodeURIComponent(click.dashboard)}?${target.toString()}` };
}
