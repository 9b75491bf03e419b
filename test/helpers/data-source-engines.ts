import { expect, vi } from "vitest";
import { createCustomer, dashboard, embed, kpi, panelText } from "./dashboards";

// What the tests of the data source engines (PostgreSQL, MySQL, ClickHouse: test/data/sources/)
// and of dashboard checks on them (test/dashboards-as-code/checks-*.test.ts) do alike: customers
// mapped to the engine's source, panels run straight through the engine's runner, the page whose
// slow panel is stopped, and the two-panel dashboard file a check prepares.

/** A customer `providedId` whose `schema` maps to `source`, with `extra` fields. */
export function mappedCustomer(
  ctx: { write: string; schema: number },
  source: number,
  providedId: string,
  extra: Record<string, unknown> = {},
) {
  return createCustomer(ctx.write, { provided_id: providedId, mapping: { [ctx.schema]: source }, ...extra });
}

/** The queries as panels p0, p1, … for an engine's runner, their values bound as given. */
export function panelsOf<P>(queries: { sql: string; params?: P[] }[]) {
  return queries.map((q, i) => ({ panelId: `p${i}`, sql: q.sql, params: q.params ?? [] }));
}

/**
 * A dashboard of a panel `slowSql` that outlasts QUERY_TIMEOUT_MS and a fast one, viewed by
 * `customerToken`: the slow panel says it was stopped within `timeoutMs` (+ `slackMs`), the
 * fast one answers, the page completes. Answers the page.
 */
export async function expectSlowPanelStopped(schema: number, customerToken: string, slowSql: string, timeoutMs: number, slackMs: number) {
  const embedId = await dashboard({ panels: [kpi("slow", schema, slowSql, 0), kpi("fast", schema, "SELECT 41 + 1 AS value", 3)] });
  const started = Date.now();
  const page = await embed(embedId, customerToken);
  expect(Date.now() - started).toBeLessThan(timeoutMs + slackMs);
  expect(panelText(page.body, "slow")).toBe(`slow The query took longer than ${timeoutMs / 1000} s and was stopped.`);
  expect(panelText(page.body, "fast")).toBe("fast 42");
  expect(page.body).toContain('data-render-complete="true"');
  return page;
}

/** A dashboard file to check: a KPI "total" of `table`'s amounts for the customer, and a line chart "by_month" of `sql`. */
export function checkedFile(file: { embedId: string; name: string; schema: number; table: string }, sql: string, y_columns = ["revenue"]) {
  return {
    embed_id: file.embedId,
    name: file.name,
    definition: {
      panels: [
        {
          id: "total",
          type: "kpi",
          schema_id: file.schema,
          sql: `SELECT SUM(amount) AS value FROM ${file.table} WHERE customer_id = {{customer.provided_id}}`,
          layout: { x: 0, y: 0, w: 4, h: 2 },
        },
        { id: "by_month", type: "line", schema_id: file.schema, sql, x_column: "month", y_columns, layout: { x: 4, y: 0, w: 8, h: 4 } },
      ],
    },
  };
}

/** A check's problem with the chart "by_month" of `checkedFile` (its `field` below the panel: `sql`, `y_columns.0`, …). */
export const byMonthProblem = (field: string, message: unknown) => ({
  field: `definition.panels.1.${field}`,
  panel_index: 1,
  panel_id: "by_month",
  message,
});

/** What a check answers for `checkedFile` when both panels prepare: their result columns. */
export const bothPanelsPrepared = {
  valid: true,
  problems: [],
  panels: [
    { id: "total", columns: ["value"] },
    { id: "by_month", columns: ["month", "revenue"] },
  ],
};

/** Every line the console is given from now on (until the test's `vi.restoreAllMocks()`), kept instead of printed. */
export function consoleLines(): string[] {
  const logged: string[] = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
  }
  return logged;
}

/**
 * A dashboard of two panels over `table` viewed by `customerToken` whose data source cannot
 * answer: both panels say `says`, the page is not a 500 and completes, the log has `logLine`, and
 * none of `secrets` is in the page or the log.
 */
export async function expectUnreachableSourcePage(
  page: { schema: number; customerToken: string; table: string },
  expected: { says: string; logged: string[]; logLine: string; secrets: string[] },
) {
  const embedId = await dashboard({
    panels: [
      kpi("revenue", page.schema, `SELECT SUM(amount) AS value FROM ${page.table}`, 0),
      kpi("count", page.schema, `SELECT COUNT(*) AS value FROM ${page.table}`, 3),
    ],
  });
  const viewed = await embed(embedId, page.customerToken);
  expect(viewed.status).toBe(200);
  expect(panelText(viewed.body, "revenue")).toContain(expected.says);
  expect(panelText(viewed.body, "count")).toContain(expected.says);
  expect(viewed.body).toContain('data-render-complete="true"');
  expect(expected.logged.join("\n")).toContain(expected.logLine);
  for (const secret of expected.secrets) {
    expect(viewed.body).not.toContain(secret);
    expect(expected.logged.join("\n")).not.toContain(secret);
  }
}
