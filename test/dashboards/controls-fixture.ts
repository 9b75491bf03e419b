import { call, createCustomer, dashboard, kpi, seedOrders, sources, workspace } from "../helpers/dashboards";

// The dashboard that the filter-control, page-width and CSV tests share (docs/embedding.md,
// "Responsive layout", "Filter controls" and "CSV export").
export interface ControlsDashboard {
  ctx: { write: string; schema: number; demo: number; other: number };
  alpha: { provided_id: string; token: string };
  beta: { provided_id: string; token: string };
  embedId: string;
}

const sinceKpi = (schema: number) =>
  kpi(
    "since",
    schema,
    "SELECT SUM(amount) AS value FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}}",
  );

/**
 * Two customers (alpha, beta) of the demo data and a dashboard with a date control, a select
 * control, a variable without one, a text panel, a KPI and a table, tagged production.
 */
export async function controlsDashboard(): Promise<ControlsDashboard> {
  await seedOrders();
  const { write } = await workspace();
  const ctx = { write, ...(await sources()) };
  const alpha = await createCustomer(write, { provided_id: "alpha", mapping: { [ctx.schema]: ctx.demo } });
  const beta = await createCustomer(write, { provided_id: "beta", mapping: { [ctx.schema]: ctx.demo } });
  const embedId = await dashboard(
    {
      variables: [
        { name: "since", default: "2026-01-01", control: { type: "date", label: "From day" } },
        { name: "product", default: "All", control: { type: "select", options: ["All", "Seats", "Storage"] } },
        { name: "note", default: "x" },
      ],
      panels: [
        { id: "intro", type: "text", title: "Intro", text: "Since {{variables.since}}", layout: { x: 0, y: 0, w: 12, h: 1 } },
        sinceKpi(ctx.schema),
        {
          id: "rows",
          type: "table",
          title: "Rows",
          schema_id: ctx.schema,
          sql: "SELECT day, product, amount FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{variables.since}} AND ({{variables.product}} = 'All' OR product = {{variables.product}}) ORDER BY day",
          layout: { x: 3, y: 0, w: 9, h: 4 },
        },
      ],
    },
    ["production"],
  );
  return { ctx, alpha, beta, embedId };
}

export const embedPage = (embedId: string, query: string) => call("GET", `/embed/${embedId}?${query}`);

export function formFields(html: string): Record<string, string> {
  const form = html.match(/<form class="controls"[\s\S]*?<\/form>/)?.[0] ?? "";
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="(?:hidden|date|text)" name="([^"]+)"(?: id="[^"]+")? value="([^"]*)"/g)) fields[m[1]] = m[2];
  const select = form.match(/<select name="([^"]+)"[\s\S]*?<\/select>/);
  if (select) fields[select[1]] = select[0].match(/<option value="([^"]*)" selected>/)?.[1] ?? "";
  return fields;
}
