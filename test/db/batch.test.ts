import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { batchLists } from "../../src/db/batch";
import { createDatabase, RoundTripCounter } from "../../src/db/client";
import { parsedRows } from "../../src/db/rows";

const DB = (env as unknown as { DB: D1Database }).DB;
const N = z.object({ n: z.number() });

describe("batchLists: lists of statements in one D1 round trip", () => {
  it("answers list by list, in order, whatever the lists' lengths (an empty list included)", async () => {
    const counter = new RoundTripCounter();
    const db = createDatabase(DB, counter);
    const numbers = [1, 2, 3].map((n) => parsedRows(db, sql`SELECT ${n} AS n`, N));
    const [none, each, [word]] = await batchLists(db, [[], numbers, [parsedRows(db, sql`SELECT 'w' AS s`, z.object({ s: z.string() }))]]);
    expect(none).toEqual([]);
    expect(each).toEqual([[{ n: 1 }], [{ n: 2 }], [{ n: 3 }]]);
    expect(word).toEqual([{ s: "w" }]);
    expect(counter.count).toBe(1);
  });

  it("makes no round trip when there is no statement at all (control: one statement makes one)", async () => {
    const counter = new RoundTripCounter();
    const db = createDatabase(DB, counter);
    expect(await batchLists(db, [[], []])).toEqual([[], []]);
    expect(counter.count).toBe(0);
    await batchLists(db, [[parsedRows(db, sql`SELECT 1 AS n`, N)]]);
    expect(counter.count).toBe(1);
  });
});
