import { createClient } from "@clickhouse/client-web";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createConnection } from "mysql2/promise";
import pg from "pg";
import { readDashboard } from "../dashboards/customer-dashboard";
import { isRefusal, resolveViewer } from "../dashboards/viewer";
import { DataRoundTrips, routePanels, runSourceQueries, type DataSource } from "../data/query-runner";
import { openConnection } from "../data/sources/clickhouse-connection";
import { workersSocket } from "../data/sources/postgres";
import type { PanelQuery } from "../data/sources/types";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";

/**
 * Development route (DEV_ROUTES only: dev/dev-only.ts) for `npm run bench:sources` (not part of
 * the API): a dashboard's panels for one viewer, per data source, run once through the data
 * plane (src/data/query-runner.ts: the source's runner, its READ ONLY transaction, limits and
 * namespace, no query cache) and once with the bare driver (mysql2 or pg: connect, the same
 * bound statements one after another, close; @clickhouse/client-web: the same queries with
 * their parameters, in parallel as ours run) — in the same isolate, on the same network path,
 * in the order asked (`?bare_first=1`), so that the bench can take turns. The times are the
 * Worker's clock around each (it advances with I/O, which is what both do).
 */
export function registerSourceFloorRoutes(app: OpenAPIHono<AppEnv>): void {
  app.get("/_dev/floor/source-panels/:embedId", async (c) => {
    const embedId = c.req.param("embedId");
    const query = c.req.query();
    const viewer = await resolveViewer(c.env, embedId, query);
    if (isRefusal(viewer)) throw new ApiError("invalid_embed_token", "A viewer token for this dashboard is needed.");
    const loaded = await readDashboard(c.get("db"), { embedId, ...viewer });
    const { groups } = routePanels(c.env, loaded.definition, loaded.mapping, loaded.sources, loaded.context);
    const sources = [];
    for (const [source, queries] of groups) {
      const kind = source.kind ?? "d1";
      if (kind === "d1") continue;
      const binding = (c.env as unknown as Record<string, Hyperdrive>)[source.binding];
      // The bare client is handed the password in the clear (as its README has it): opening the sealed one is ours, timed in ours.
      const clickhouse = kind === "clickhouse" ? await bareClickhouseServer(c.env, source) : null;
      const trips = new DataRoundTrips();
      const ours = async () => {
        const started = Date.now();
        const results = await runSourceQueries(c.env, source, queries, { roundTrips: trips });
        const failed = [...results.values()].filter((r) => r.status !== "ok").length;
        return { ms: Date.now() - started, failed };
      };
      const bare = async () => {
        const started = Date.now();
        if (clickhouse) await bareClickhouse(clickhouse, queries);
        else await (kind === "mysql" ? bareMysql(binding, queries, source.namespace) : barePostgres(binding, queries));
        return { ms: Date.now() - started };
      };
      const [first, second] = query.bare_first ? [await bare(), await ours()] : [await ours(), await bare()];
      const [o, b] = query.bare_first
        ? [second as { ms: number; failed: number }, first]
        : [first as { ms: number; failed: number }, second];
      sources.push({
        id: source.id,
        kind,
        panels: queries.length,
        ours_ms: o.ms,
        bare_ms: b.ms,
        failed: o.failed,
        round_trips: trips.count,
        connections: trips.connections,
      });
    }
    return c.json({ success: 1, sources });
  });
}

/** mysql2 as its README shows it: one connection (to the namespace's database), the statements, close. */
async function bareMysql(hyperdrive: Hyperdrive, queries: PanelQuery[], namespace?: string | null) {
  const connection = await createConnection({
    host: hyperdrive.host,
    port: hyperdrive.port,
    user: hyperdrive.user,
    password: hyperdrive.password,
    database: namespace ?? hyperdrive.database,
    disableEval: true,
  });
  try {
    for (const q of queries) await (q.params.length > 0 ? connection.execute(q.sql, q.params) : connection.query(q.sql));
  } finally {
    connection.destroy();
  }
}

/** pg likewise: connect, the statements, end. */
async function barePostgres(hyperdrive: Hyperdrive, queries: PanelQuery[]) {
  const client = new pg.Client({ connectionString: hyperdrive.connectionString, stream: workersSocket } as pg.ClientConfig);
  await client.connect();
  try {
    for (const q of queries) await client.query(q.sql, q.params);
  } finally {
    void client.end().catch(() => {});
  }
}

type ClickhouseServer = { url: string; database: string | null; user: string; password: string };

async function bareClickhouseServer(env: object, source: DataSource): Promise<ClickhouseServer> {
  const server = await openConnection(env, source.connection);
  if ("problem" in server)
    throw new ApiError("validation_error", `The ClickHouse data source ${source.id} cannot be reached: ${server.problem}.`);
  return { ...server, database: source.namespace ?? server.database };
}

/** @clickhouse/client-web as its README shows it: a client, each query with its parameters (all at once, as the data plane sends them), the JSON read. */
async function bareClickhouse(server: ClickhouseServer, queries: PanelQuery[]) {
  const client = createClient({
    url: server.url,
    username: server.user,
    password: server.password,
    ...(server.database ? { database: server.database } : {}),
  });
  try {
    await Promise.all(
      queries.map(async (q) => {
        const query_params = Object.fromEntries(q.params.map((value, i) => [`p${i + 1}`, value]));
        const result = await client.query({ query: q.sql, format: "JSON", query_params });
        await result.json();
      }),
    );
  } finally {
    await client.close();
  }
}
