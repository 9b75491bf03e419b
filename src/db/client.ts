import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Database = DrizzleD1Database<typeof schema>;

/**
 * Counts D1 round trips: every statement executed on its own and every `batch` is one
 * trip to the database. Each request gets its own counter; the count is logged and
 * reported in the `X-D1-Round-Trips` header outside production, so tests and benchmarks
 * measure it instead of guessing.
 */
export class RoundTripCounter {
  count = 0;
}

const native = new WeakMap<object, D1PreparedStatement>();

function countedStatement(statement: D1PreparedStatement, counter: RoundTripCounter): D1PreparedStatement {
  const wrapped = {
    bind: (...values: unknown[]) => countedStatement(statement.bind(...values), counter),
    first: (column?: string) => {
      counter.count++;
      return column === undefined ? statement.first() : statement.first(column);
    },
    all: () => {
      counter.count++;
      return statement.all();
    },
    run: () => {
      counter.count++;
      return statement.run();
    },
    raw: (options?: { columnNames?: boolean }) => {
      counter.count++;
      return statement.raw(options as { columnNames: true });
    },
  } as unknown as D1PreparedStatement;
  native.set(wrapped, statement);
  return wrapped;
}

export function countedD1(db: D1Database, counter: RoundTripCounter): D1Database {
  return {
    prepare: (query: string) => countedStatement(db.prepare(query), counter),
    batch: (statements: D1PreparedStatement[]) => {
      counter.count++;
      return db.batch(statements.map((s) => native.get(s) ?? s));
    },
    exec: (query: string) => {
      counter.count++;
      return db.exec(query);
    },
    dump: () => db.dump(),
    withSession: (constraint?: string) => db.withSession(constraint),
  } as unknown as D1Database;
}

export function createDatabase(d1: D1Database, counter?: RoundTripCounter): Database {
  const client = counter ? countedD1(d1, counter) : d1;
  const db = drizzle(client, { schema });
  // drizzle's own D1 batch cannot bind parameters of raw `sql` queries (db.all/db.run);
  // this one prepares every item the same way and keeps drizzle's result mapping.
  db.batch = (async (items: BatchItem[]) => {
    const prepared = items.map((item) => item._prepare());
    const statements = prepared.map((p) => {
      const query = p.getQuery();
      return client.prepare(query.sql).bind(...query.params);
    });
    const results = await client.batch(statements);
    return results.map((result, i) => prepared[i].mapResult(result, true));
  }) as unknown as Database["batch"];
  return db;
}

interface BatchItem {
  _prepare(): { getQuery(): { sql: string; params: unknown[] }; mapResult(result: unknown, isFromBatch: boolean): unknown };
}
