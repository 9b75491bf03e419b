import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createCustomer, createTag, unique, workspace } from "../helpers/api";

const DB = (env as unknown as { DB: D1Database }).DB;

/** Rows that a refused request must leave as they were. */
async function snapshot(): Promise<string> {
  const tables = ["customers", "group_tags", "customer_group_tags"];
  const rows = await Promise.all(tables.map((t) => DB.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()));
  return JSON.stringify(rows.map((r) => r.results));
}

// JSON.stringify writes a lone surrogate as the escape "\ud800": valid JSON, not valid Unicode.
const LONE = ["\ud800", "\udfff", "a\ud83d", "\ude00b"];

describe("strings must be valid Unicode: a lone UTF-16 surrogate is refused, not turned into U+FFFD", () => {
  it.each(LONE.map((s) => [JSON.stringify(s), s]))(
    "refuses %s in provided_id, name, properties (value and key), tags (400 validation_error, nothing stored)",
    async (_label, lone) => {
      const { write } = await workspace();
      const tag = unique("vip");
      await createTag(write, tag);
      const existing = await createCustomer(write, { provided_id: unique("uni") });
      const cases: [string, string, Record<string, unknown>, string][] = [
        ["POST", "/api/create_customer/", { provided_id: `x${lone}` }, "provided_id"],
        ["POST", "/api/create_customer/", { provided_id: unique("ok"), name: `n${lone}` }, "name"],
        ["POST", "/api/create_customer/", { provided_id: unique("ok"), properties: { region: `eu${lone}` } }, "properties.region"],
        [
          "POST",
          "/api/create_customer/",
          { provided_id: unique("ok"), properties: { nested: { deep: [1, lone] } } },
          "properties.nested.deep.1",
        ],
        ["POST", "/api/create_customer/", { provided_id: unique("ok"), properties: { [`k${lone}`]: 1 } }, `properties.k${lone}`],
        ["POST", "/api/create_customer/", { provided_id: unique("ok"), group_tags: [`vip${lone}`] }, "group_tags.0"],
        ["POST", "/api/update_customer/", { provided_id: existing.provided_id, name: lone }, "name"],
        ["POST", "/api/update_customer/", { provided_id: existing.provided_id, new_provided_id: `y${lone}` }, "new_provided_id"],
        ["POST", "/api/update_customer/", { provided_id: existing.provided_id, properties: { a: lone } }, "properties.a"],
        ["POST", "/api/create_group_tag/", { name: `t${lone}` }, "name"],
        ["POST", "/api/rename_group_tag/", { name: tag, new_name: `t${lone}` }, "new_name"],
      ];
      for (const [method, path, body, field] of cases) {
        const before = await snapshot();
        const res = await call(method, path, { token: write, body });
        expect(res.status, `${path} ${field}`).toBe(400);
        expect(res.body.error).toMatchObject({ code: "validation_error", field });
        expect(await snapshot()).toBe(before);
      }
    },
  );

  it("accepts proper surrogate pairs (emoji) and keeps them exactly", async () => {
    const { write } = await workspace();
    const providedId = unique("emoji-😀");
    const created = await createCustomer(write, { provided_id: providedId, name: "Café 😀", properties: { "k😀": "v😀" } });
    expect(created).toMatchObject({ provided_id: providedId, name: "Café 😀", properties: { "k😀": "v😀" } });
  });

  it("ignores a lone surrogate in an unknown field (unknown fields are ignored)", async () => {
    const { write } = await workspace();
    const res = await call("POST", "/api/create_customer/", {
      token: write,
      body: { provided_id: unique("unknown-field"), whatever: "\ud800" },
    });
    expect(res.status).toBe(200);
  });
});

describe("provided_id has no control characters, C1 included", () => {
  it.each(["\u0080", "\u0085", "\u009b", "\u009f"].map((c) => [`U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`, c]))(
    "refuses %s in provided_id and new_provided_id (400, nothing stored)",
    async (_label, c1) => {
      const { write } = await workspace();
      const existing = await createCustomer(write, { provided_id: unique("c1") });
      for (const [path, body, field] of [
        ["/api/create_customer/", { provided_id: `a${c1}b` }, "provided_id"],
        ["/api/update_customer/", { provided_id: existing.provided_id, new_provided_id: `a${c1}b` }, "new_provided_id"],
      ] as const) {
        const before = await snapshot();
        const res = await call("POST", path, { token: write, body });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: "validation_error", field });
        expect(await snapshot()).toBe(before);
      }
    },
  );

  it("accepts the first printable characters after C1 (U+00A0, U+00E9)", async () => {
    const { write } = await workspace();
    await createCustomer(write, { provided_id: unique("nbsp\u00a0\u00e9") });
  });
});
