import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { notePrimarySession } from "./write-clock";

/**
 * Queries use the builder with the tables of `./schema`; drizzle's relational API
 * (`db.query.*`) is not used, so no schema is passed: with one, `drizzle()` rebuilds the
 * relational config on every request, work that no query here needs.
 */
export type Database = DrizzleD1Database;

/**
 * Counts D1 round trips: every statement executed on its own and every `batch` is one
 * trip to the database. Each request gets its own counter; the count is logged and
 * reported in the `X-D1-Round-Trips` header outside production, so tests and benchmarks
 * measure it instead of guessing. `primary` counts the trips that must reach the primary
 * (writes, and every trip of a request that reads from the primary); the others may be
 * served by a nearby read replica.
 */
export class RoundTripCounter {
  count = 0;
  primary = 0;
}

const native = new WeakMap<object, D1PreparedStatement>();
const writes = new WeakSet<object>();
const readStatement = /^\s*(select|with)\b/i;

/** How a counted trip reaches D1: anywhere (replica-eligible session), or the primary. */
type TripKind = { replicaEligible: boolean };

function countedStatement(statement: D1PreparedStatement, counter: RoundTripCounter, kind: TripKind, write: boolean): D1PreparedStatement {
  const trip = () => {
    counter.count++;
    if (write || !kind.replicaEligible) counter.primary++;
  };
  const wrapped = {
    bind: (...values: unknown[]) => countedStatement(statement.bind(...values), counter, kind, write),
    first: (column?: string) => {
      trip();
      return column === undefined ? statement.first() : statement.first(column);
    },
    all: () => {
      trip();
      return statement.all();
    },
    run: () => {
      trip();
      return statement.run();
    },
    raw: (options?: { columnNames?: boolean }) => {
      trip();
      return statement.raw(options as { columnNames: true });
    },
  } as unknown as D1PreparedStatement;
  native.set(wrapped, statement);
  if (write) writes.add(wrapped);
  return wrapped;
}

function counted(source: () => D1Database | D1DatabaseSession, counter: RoundTripCounter, kind: () => TripKind): D1Database {
  return {
    prepare: (query: string) => countedStatement(source().prepare(query), counter, kind(), !readStatement.test(query)),
    batch: (statements: D1PreparedStatement[]) => {
      const k = kind();
      counter.count++;
      if (!k.replicaEligible || statements.some((s) => writes.has(s))) counter.primary++;
      return source().batch(statements.map((s) => native.get(s) ?? s));
    },
    exec: (query: string) => {
      counter.count++;
      counter.primary++;
      return (source() as D1Database).exec(query);
    },
  } as unknown as D1Database;
}

export function countedD1(db: D1Database, counter: RoundTripCounter): D1Database {
  const plain: TripKind = { replicaEligible: false };
  return counted(
    () => db,
    counter,
    () => plain,
  );
}

/** A syntactically valid D1 bookmark (hex groups separated by dashes); anything else is ignored. */
export function isBookmark(value: string | null | undefined): value is string {
  return typeof value === "string" && value.length <= 200 && /^[0-9a-f]+(-[0-9a-f]+)*$/i.test(value);
}

/** The fresher of two bookmarks: D1 bookmarks of one database sort lexicographically. */
export function newerBookmark(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a >= b ? a : b;
}

/**
 * One request's way to D1: a Sessions API session opened at the first query, so the
 * decision where to read (`primary`, or anywhere at least as fresh as `bookmark`) can be
 * taken after authentication. Writes always reach the primary, whatever the session.
 */
export class RequestSession {
  /** Read from the primary (write operations, and the retry of a replica's not-found). */
  primary = false;
  /** Serve reads at least this fresh. */
  bookmark: string | null = null;
  private session: D1DatabaseSession | undefined;

  constructor(private readonly binding: D1Database) {}

  /** Whether trips so far could be served by a replica. */
  get replicaEligible(): boolean {
    return !this.primary;
  }

  current(): D1DatabaseSession {
    if (!this.session && this.primary) notePrimarySession();
    this.session ??= this.binding.withSession(this.primary ? "first-primary" : (this.bookmark ?? "first-unconstrained"));
    return this.session;
  }

  /** How the session was opened (a bookmark is reported as "bookmark"); null before the first query. */
  get constraint(): "first-primary" | "first-unconstrained" | "bookmark" | null {
    if (!this.session) return null;
    return this.primary ? "first-primary" : this.bookmark ? "bookmark" : "first-unconstrained";
  }

  /** The newest bookmark this request's queries saw; null when it made none. */
  latestBookmark(): string | null {
    return this.session?.getBookmark() ?? null;
  }
}

export function createSessionDatabase(session: RequestSession, counter: RoundTripCounter): Database {
  return build(
    counted(
      () => session.current(),
      counter,
      () => ({ replicaEligible: session.replicaEligible }),
    ),
  );
}

export function createDatabase(d1: D1Database, counter?: RoundTripCounter): Database {
  return build(counter ? countedD1(d1, counter) : d1);
}

function build(client: D1Database): Database {
  const db = drizzle(client);
  // drizzle's own D1 batch cannot bind parameters of raw `sql` queries (db.all/db.run);
  // this one prepares every item the same way and keeps drizzle's result mapping. D1 answers
  // a batch with rows keyed by column name: a builder select whose columns share a name
  // (`id` of two joined tables) must rename one with `.as()`, or the two collapse.
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
