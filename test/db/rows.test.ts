import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createDatabase, RoundTripCounter } from "../../src/db/client";
import { jsonOf, jsonText, parsedRows } from "../../src/db/rows";
import { customers } from "../../src/db/schema";

const DB = (env as unknown as { DB: D1Database }).DB;

describe("parsedRows: a raw query's rows parsed, not asserted", () => {
  const Row = z.object({ n: z.number(), tags: jsonText(z.array(z.string())), properties: jsonOf(customers.properties).nullable() });
  const query = sql`SELECT 1 AS n, json_array('a', 'b') AS tags, '{"k":[1,"x"]}' AS properties UNION ALL SELECT 2, '[]', NULL ORDER BY n`;
  const expected = [
    { n: 1, tags: ["a", "b"], properties: { k: [1, "x"] } },
    { n: 2, tags: [], properties: null },
  ];

  it("gives the parsed rows when awaited alone and inside a batch (one round trip each)", async () => {
    const counter = new RoundTripCounter();
    const db = createDatabase(DB, counter);
    expect(await parsedRows(db, query, Row)).toEqual(expected);
    expect(counter.count).toBe(1);
    const [rows, other] = await db.batch([parsedRows(db, query, Row), db.select({ id: customers.id }).from(customers).limit(0)]);
    expect(rows).toEqual(expected);
    expect(other).toEqual([]);
    expect(counter.count).toBe(2);
  });

  it("refuses rows of another shape, alone and inside a batch (control: the right shape passes above)", async () => {
    const db = createDatabase(DB);
    const Wrong = z.object({ n: z.string() });
    await expect(parsedRows(db, query, Wrong)).rejects.toThrow(z.ZodError);
    await expect(db.batch([parsedRows(db, query, Wrong)])).rejects.toThrow(z.ZodError);
    await expect(parsedRows(db, sql`SELECT '[1' AS tags`, z.object({ tags: jsonText(z.array(z.string())) }))).rejects.toThrow();
  });
});
