// axe-core (the industry's accessibility checker, from the npm registry) run in a page of a
// real browser, with the WCAG 2.0, 2.1 and 2.2 A and AA rules: what it reports as violations.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Frame, Page } from "puppeteer-core";

declare const document: any;
declare const axe: any;

const require = createRequire(import.meta.url);
/** The checker's browser build, evaluated in the page through the DevTools protocol (a page's CSP does not apply there). */
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** The rule sets of docs/accessibility.md: WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

export interface Violation {
  id: string;
  impact: string | null;
  /** Each offending element: its selector, and what axe says is wrong with it. */
  nodes: { target: string; html: string; summary: string }[];
}

/** The violations axe reports for the page (or frame) as it is now. */
export async function axeViolations(page: Page | Frame): Promise<Violation[]> {
  const loaded = await page.evaluate(() => typeof (globalThis as any).axe === "object");
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags: string[]) => {
    const results = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return results.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n: any) => ({ target: n.target.join(" "), html: String(n.html).slice(0, 160), summary: n.failureSummary ?? "" })),
    }));
  }, WCAG_TAGS);
}

/** One line per violation, for an assertion's message. */
export function describeViolations(violations: Violation[]): string {
  return violations
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target} ${n.html} — ${n.summary.replace(/\s+/g, " ")}`).join("; ")}`)
    .join("\n");
}
