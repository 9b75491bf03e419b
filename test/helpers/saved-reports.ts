import { call, createCustomer } from "./api";
import { bindings } from "./dashboards";

/**
 * Saved reports made as a customer's user makes them: a blueprint through the vendor API, a
 * builder token, then the builder's own save call. The orders of seedOrders() are keyed by
 * provided_id, so a customer named `alpha` or `beta` sees those rows.
 */

export const reportColumns = [
  { name: "day", type: "DATE", display_name: "Day" },
  { name: "month", type: "STRING", display_name: "Month" },
  { name: "product", type: "STRING", display_name: "Product" },
  { name: "amount", type: "FLOAT", display_name: "Amount" },
];

export const reportTables = (schema: number, columns = reportColumns) => [
  {
    table_name: "orders",
    schema_id: schema,
    query: "SELECT * FROM orders WHERE customer_id = {{customer.provided_id}}",
    columns,
    description: "Every order",
  },
];

/** Revenue per day: a DATE group column and a FLOAT sum, drawn as bars. */
export const revenueByDay = {
  query: { dataset: "orders", group_by: [{ column: "day" }], values: [{ aggregate: "sum", column: "amount" }] },
  chart: { type: "bar", x: "day", y: ["sum_amount"] },
};

export interface CustomerWithBlueprint {
  providedId: string;
  customerId: number;
  blueprintId: number;
  blueprintEmbedId: string;
}

/** A customer mapped to the demo data with a "Sales data" blueprint over its orders. */
export async function customerWithBlueprint(
  token: string,
  providedId: string,
  name: string,
  schema: number,
  demo: number,
  extra: Record<string, unknown> = {},
): Promise<CustomerWithBlueprint> {
  await createCustomer(token, { provided_id: providedId, name, mapping: { [schema]: demo }, ...extra });
  const created = await call("POST", "/api/create_blueprint/", {
    token,
    body: { customer_id: providedId, blueprint_name: "Sales data", tables: reportTables(schema) },
  });
  if (created.status !== 200) throw new Error(JSON.stringify(created.body));
  const id = created.body.blueprint_id ?? created.body.blueprint?.id ?? created.body.id;
  const got = await call("POST", "/api/get_blueprint/", { token, body: { blueprint_id: id } });
  const customerId = await bindings.DB.prepare("SELECT id FROM customers WHERE provided_id = ?").bind(providedId).first<number>("id");
  return { providedId, customerId: customerId!, blueprintId: got.body.blueprint.id, blueprintEmbedId: got.body.blueprint.embed_id };
}

/** Saves a report through the builder's API, as the customer's user would. */
export async function saveReport(
  token: string,
  owner: CustomerWithBlueprint,
  report: { name: string; query: unknown; chart: unknown },
): Promise<{ id: string; name: string }> {
  const minted = await call("POST", "/api/generate_embed_token/", {
    token,
    body: { provided_id: owner.providedId, blueprint_id: owner.blueprintId },
  });
  if (minted.status !== 200) throw new Error(JSON.stringify(minted.body));
  const saved = await call("POST", `/report-builder/${owner.blueprintEmbedId}/reports`, {
    body: report,
    headers: { Authorization: `Bearer ${minted.body.token}` },
  });
  if (saved.status !== 200) throw new Error(JSON.stringify(saved.body));
  return saved.body.report;
}

/** What the builder answers for the report's query now, for that customer: the rows a delivery must carry. */
export async function builderRows(
  token: string,
  owner: CustomerWithBlueprint,
  query: unknown,
): Promise<{ columns: { name: string; type: string }[]; rows: Record<string, unknown>[] }> {
  const minted = await call("POST", "/api/generate_embed_token/", {
    token,
    body: { provided_id: owner.providedId, blueprint_id: owner.blueprintId },
  });
  const res = await call("POST", `/report-builder/${owner.blueprintEmbedId}/query`, {
    body: query,
    headers: { Authorization: `Bearer ${minted.body.token}` },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body;
}

/** Removes a column from the customer's blueprint (update_blueprint), which breaks reports that name it. */
export async function dropColumn(token: string, owner: CustomerWithBlueprint, schema: number, column: string): Promise<void> {
  const res = await call("POST", "/api/update_blueprint/", {
    token,
    body: {
      blueprint_id: owner.blueprintId,
      tables: reportTables(
        schema,
        reportColumns.filter((c) => c.name !== column),
      ),
    },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
}

/**
 * An ISO date as an en-US page shows it (the default locale), written by Node's own Intl with
 * the options the pages use for a calendar date — never a hand-typed string.
 */
export function shownDate(iso: string): string {
  const [year, month, day] = iso.split("-").map(Number);
  return new Intl.DateTimeFormat("en-US", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: "UTC" }).format(
    Date.UTC(year, month - 1, day),
  );
}
