import { beforeAll, describe, expect, it } from "vitest";
import type { ApiResponse } from "../helpers/api";
import { call, createCustomer, seedOrders, sources, unique, workspace } from "../helpers/dashboards";

// A blueprint table's `translations`: checked when the blueprint is saved, and what the report
// builder shows in the view's locale — exact locale, then language, then the table's own words;
// the names queries use never change.

const columns = [
  { name: "product", type: "STRING", display_name: "Product" },
  { name: "amount", type: "FLOAT", display_name: "Amount" },
];
const translations = {
  de: { dataset_name: "Bestellungen", description: "Alle Bestellungen", columns: { product: "Produkt", amount: "Betrag" } },
  "de-ch": { columns: { amount: "Betrag (CHF)" } },
};
const table = (schema: number, extra: Record<string, unknown> = {}) => ({
  table_name: "orders",
  schema_id: schema,
  query: "SELECT * FROM orders WHERE customer_id = {{customer.provided_id}}",
  columns,
  description: "Every order",
  ...extra,
});

let ctx: { write: string; schema: number; customer: string; blueprint: number; embedId: string };

function expectError(res: ApiResponse, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({ status, code, field });
}

const create = (tables: unknown[]) =>
  call("POST", "/api/create_blueprint/", { token: ctx.write, body: { customer_id: ctx.customer, blueprint_name: "Sales", tables } });

beforeAll(async () => {
  await seedOrders();
  const { write } = await workspace();
  const { schema, demo } = await sources();
  const customer = unique("alpha");
  await createCustomer(write, { provided_id: customer, name: "Alpha", mapping: { [schema]: demo } });
  ctx = { write, schema, customer, blueprint: 0, embedId: "" };
  const created = await create([table(schema, { translations })]);
  expect(created.status).toBe(200);
  const got = await call("POST", "/api/get_blueprint/", { token: write, body: { blueprint_id: created.body.blueprint_id } });
  ctx.blueprint = got.body.blueprint.id;
  ctx.embedId = got.body.blueprint.embed_id;
});

async function builderAs(locale?: string) {
  const minted = await call("POST", "/api/generate_embed_token/", {
    token: ctx.write,
    body: { provided_id: ctx.customer, blueprint_id: ctx.blueprint, ...(locale ? { locale } : {}) },
  });
  expect(minted.status).toBe(200);
  const token = minted.body.token as string;
  return (method: string, path: string, body?: unknown) =>
    call(method, `/report-builder/${ctx.embedId}${path}`, { body, headers: { Authorization: `Bearer ${token}` } });
}

describe("blueprint table translations", () => {
  it("stores them with canonical locale keys", async () => {
    const got = await call("POST", "/api/get_blueprint/", { token: ctx.write, body: { blueprint_id: ctx.blueprint } });
    expect(got.body.blueprint.tables[0].translations).toEqual({ de: translations.de, "de-CH": translations["de-ch"] });
  });

  it("refuses a column that does not exist and a key that is no locale, with the field (control: the same table without them saves)", async () => {
    const unknownColumn = await create([table(ctx.schema, { translations: { fr: { columns: { prix: "Prix" } } } })]);
    expectError(unknownColumn, 400, "validation_error", "tables.0.translations.fr.columns.prix");
    const badLocale = await create([table(ctx.schema, { translations: { "not a locale!": { description: "x" } } })]);
    expectError(badLocale, 400, "validation_error", "tables.0.translations.not a locale!");
    const unknownKey = await create([table(ctx.schema, { translations: { fr: { title: "x" } } })]);
    expect(unknownKey.status).toBe(400);
    expect((await create([table(ctx.schema, { translations: { fr: { columns: { amount: "Montant" } } } })])).status).toBe(200);
  });

  it("shows the exact locale's words, then the language's, then the table's own; names never change", async () => {
    const shown = async (locale?: string) => (await (await builderAs(locale))("GET", "/datasets")).body.datasets[0];
    const swiss = await shown("de-CH");
    expect(swiss.name).toBe("orders");
    expect(swiss.description).toBe("Alle Bestellungen");
    expect(swiss.columns.map((c: { name: string; display_name: string }) => [c.name, c.display_name])).toEqual([
      ["product", "Produkt"],
      ["amount", "Betrag (CHF)"],
    ]);
    const german = await shown("de-DE");
    expect(german.columns.map((c: { display_name: string }) => c.display_name)).toEqual(["Produkt", "Betrag"]);
    const japanese = await shown("ja-JP");
    expect(japanese).toEqual({
      name: "orders",
      description: "Every order",
      columns: columns.map((c) => ({ ...c, can_be_grouped: true })),
    });
  });

  it("names a query's result columns in the view's locale, the query and its rows as in any other", async () => {
    const query = { dataset: "orders", group_by: [{ column: "product" }], values: [{ aggregate: "sum", column: "amount" }] };
    const [german, english] = await Promise.all([
      (await builderAs("de-DE"))("POST", "/query", query),
      (await builderAs("en-US"))("POST", "/query", query),
    ]);
    expect(german.status).toBe(200);
    expect(german.body.columns.map((c: { name: string }) => c.name)).toEqual(["product", "sum_amount"]);
    expect(german.body.columns[0].display_name).toBe("Produkt");
    expect(german.body.columns[1].display_name).toContain("Betrag");
    expect(english.body.columns[0].display_name).toBe("Product");
    expect(german.body.rows).toEqual(english.body.rows);
  });

  it("puts the dataset's translated name on the builder page, the name queries use beside it", async () => {
    const minted = await call("POST", "/api/generate_embed_token/", {
      token: ctx.write,
      body: { provided_id: ctx.customer, blueprint_id: ctx.blueprint, locale: "de-AT" },
    });
    const page = await call("GET", `/report-builder/${ctx.embedId}?token=${encodeURIComponent(minted.body.token)}`);
    const text = String(page.body);
    const boot = JSON.parse(/<script type="application\/json" id="rb-boot">(.*?)<\/script>/s.exec(text)?.[1] ?? "{}");
    expect(boot.datasets[0]).toMatchObject({ name: "orders", display_name: "Bestellungen", description: "Alle Bestellungen" });
  });
});
