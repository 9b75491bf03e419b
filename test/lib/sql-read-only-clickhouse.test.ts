import { describe, expect, it } from "vitest";
import { readOnlyProblem } from "../../src/lib/sql-read-only";
import { bindParameterProblem } from "../../src/lib/sql-bind-parameters";
import { lexSql } from "../../src/lib/sql-lexer";
import { bindPlaceholders } from "../../src/data/placeholders";
import { admin, dashboard, kpi, unique } from "../helpers/dashboards";

// ClickHouse's dialect in the read-only rule (docs/clickhouse.md): each refused text beside an
// accepted control. A version is saved before anyone knows its database, so the default check
// reads the text as SQLite, PostgreSQL, MySQL and ClickHouse; `["clickhouse"]` is the check
// before a run on ClickHouse. The engine's `readonly=1` stays the guarantee (test/data/sources/clickhouse.test.ts).
const refusedOnlyByClickhouse: [string, string][] = [
  // `//` starts a comment in ClickHouse (elsewhere it is two slashes, then a string that hides DELETE).
  ["a // comment that ends before a second statement", "SELECT 1 // '\n; DELETE FROM t -- '"],
  // A heredoc is text to ClickHouse, so the quote inside it opens nothing (elsewhere it opens a string that hides DELETE).
  ["a heredoc before a second statement", "SELECT $q $ ' $q $ ; DELETE FROM t -- '"],
];

const refused: [string, string][] = [
  ...refusedOnlyByClickhouse,
  // Backslashes escape in ClickHouse's quoted names too: the quote after one does not end it.
  ["a backslash-escaped backtick ending the name early", "SELECT `\\`` ; DELETE FROM t -- `"],
  ["a SETTINGS clause", "SELECT count() FROM t SETTINGS max_execution_time = 100000"],
  ["a SETTINGS clause with a quoted name", "SELECT 1 SETTINGS `readonly` = 0"],
  ["a SETTINGS clause behind a comment", "SELECT 1 SETTINGS /* x */ max_result_rows=0"],
  ["INTO OUTFILE", "SELECT * FROM t INTO OUTFILE 'out.csv'"],
  ["url()", "SELECT * FROM url('https://example.com/x.csv', CSV)"],
  ["remote()", "SELECT * FROM remote('10.0.0.1', db.t)"],
  ["remoteSecure()", "SELECT * FROM remoteSecure('db.example.com', db.t, 'u', 'p')"],
  ["s3()", "SELECT * FROM s3('https://bucket.s3.amazonaws.com/x.parquet')"],
  ["s3Cluster()", "SELECT * FROM s3Cluster('c', 'https://b/x')"],
  ["gcs()", "SELECT * FROM gcs('https://storage.googleapis.com/b/x')"],
  ["azureBlobStorage()", "SELECT * FROM azureBlobStorage('conn', 'c', 'x')"],
  ["hdfs()", "SELECT * FROM hdfs('hdfs://h/x', 'CSV')"],
  ["file() as a table", "SELECT * FROM file('/etc/passwd', 'LineAsString')"],
  ["file() as a function", "SELECT file('/etc/passwd') AS a"],
  ["mysql()", "SELECT * FROM mysql('h:3306', 'db', 't', 'u', 'p')"],
  ["postgresql()", "SELECT * FROM postgresql('h:5432', 'db', 't', 'u', 'p')"],
  ["jdbc()", "SELECT * FROM jdbc('jdbc:x', 't')"],
  ["odbc()", "SELECT * FROM odbc('DSN=x', 't')"],
  ["sqlite()", "SELECT * FROM sqlite('x.db', 't')"],
  ["mongodb()", "SELECT * FROM mongodb('h:27017', 'db', 'c', 'u', 'p', 'x String')"],
  ["redis()", "SELECT * FROM redis('h:6379', 'k', 'k String')"],
  ["executable()", "SELECT * FROM executable('script.sh', TabSeparated, 'x String')"],
  ["cluster()", "SELECT * FROM cluster('default', db.t)"],
  ["clusterAllReplicas()", "SELECT * FROM clusterAllReplicas('default', db.t)"],
  ["input()", "SELECT * FROM input('x String')"],
  ["a table function in upper case", "SELECT * FROM URL('https://example.com/x', CSV)"],
  ["a table function behind a comment", "SELECT * FROM file /* x */ ('/etc/passwd')"],
  ["INSERT", "INSERT INTO t VALUES (1)"],
  ["ALTER", "ALTER TABLE t DELETE WHERE 1"],
  ["SYSTEM", "SYSTEM DROP DNS CACHE"],
  ["SET", "SET readonly = 0"],
];

const accepted: [string, string][] = [
  ["a column called settings", "SELECT settings FROM t WHERE settings = 1"],
  ["SETTINGS as text", "SELECT 'SETTINGS max_threads = 1' AS a"],
  ["a column called file (not called)", "SELECT file, url FROM t"],
  ["a column called input_rows", "SELECT input_rows FROM t"],
  ["INTO OUTFILE as text", "SELECT 'INTO OUTFILE' AS a"],
  ["numbers() (inside the engine)", "SELECT number FROM numbers(10)"],
  ["a # comment", "SELECT 1 AS a # a comment\n"],
  ["a nested block comment", "SELECT 1 /* a /* b */ c */ AS a"],
  ["ClickHouse's functions", "SELECT toStartOfMonth(toTimeZone(created_at, 'Europe/Berlin')) AS m, count() AS n FROM t GROUP BY m"],
  ["sleep (the time limit stops it)", "SELECT sleep(1) AS value"],
];

// PostgreSQL reads a backtick as code, so a saved version (checked for every database) keeps
// such texts out; the check before a run on ClickHouse reads them as ClickHouse does.
const acceptedOnClickhouse: [string, string][] = [
  ["a backtick name with a ; in it", "SELECT `a;b` FROM t"],
  ["a heredoc holding a ;", "SELECT $doc$ a; DELETE $doc$ AS a"],
  ["a backslash-escaped quote in a string", "SELECT 'it\\'s' AS a"],
];

describe("readOnlyProblem: ClickHouse's dialect", () => {
  it.each(refused)("refuses %s", (_name, sql) => {
    expect(readOnlyProblem(sql)).not.toBeNull();
    expect(readOnlyProblem(sql, ["clickhouse"])).not.toBeNull();
  });

  it.each(refusedOnlyByClickhouse)("refuses %s because ClickHouse reads it so (the other three alone would not)", (_name, sql) => {
    expect(readOnlyProblem(sql, ["sqlite", "postgres", "mysql"])).toBeNull();
  });

  it.each(accepted)("accepts %s", (_name, sql) => {
    expect(readOnlyProblem(sql)).toBeNull();
    expect(readOnlyProblem(sql, ["clickhouse"])).toBeNull();
  });

  it.each(acceptedOnClickhouse)("accepts %s on ClickHouse", (_name, sql) => {
    expect(readOnlyProblem(sql, ["clickhouse"])).toBeNull();
  });

  it("refuses a {name:Type} parameter written by hand, not one in a string or one of our placeholders", () => {
    expect(bindParameterProblem("SELECT * FROM t WHERE id = {id: Int64}")).toContain("bind parameter");
    expect(bindParameterProblem("SELECT * FROM t WHERE id = {{customer.provided_id}}")).toBeNull();
    expect(bindParameterProblem("SELECT '{id: Int64}' AS a")).toBeNull();
  });

  it("checks the longest query full of distinct heredoc-like delimiters within the fuzz test's budget (linear time)", () => {
    // sql-lexer-fuzz.test.ts: 100,000 characters, 5 s for a busy machine (a quadratic scan takes far longer).
    const sql = `SELECT ${Array.from({ length: 20_000 }, (_, i) => `$d${i}$`).join(" ")}`.slice(0, 100_000);
    const started = performance.now();
    readOnlyProblem(sql);
    bindParameterProblem(sql);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("lexSql: ClickHouse", () => {
  const kinds = (sql: string) => lexSql(sql, "clickhouse").tokens.map((t) => `${t.kind}:${t.text}`);

  it("reads --, // and '# ' as line comments; #x is a character it cannot read", () => {
    expect(kinds("1--1")).toEqual(["number:1", "comment:--1"]);
    expect(kinds("1 // c\n2")).toEqual(["number:1", "space: ", "comment:// c", "space:\n", "number:2"]);
    expect(kinds("1 # c")).toEqual(["number:1", "space: ", "comment:# c"]);
    expect(lexSql("SELECT 1 #x", "clickhouse").error).toBe("ClickHouse cannot read '#' here");
  });

  it("nests block comments and reads heredocs as text", () => {
    expect(kinds("/* a /* b */ c */")).toEqual(["comment:/* a /* b */ c */"]);
    expect(kinds("$x$ a ' b $x$")).toEqual(["string:$x$ a ' b $x$"]);
    expect(kinds("$x$ open")[0]).toBe("symbol:$");
  });

  it("reads backticks and double quotes as names with backslash escapes, and ? as a symbol", () => {
    expect(lexSql("`a\\`b`", "clickhouse").tokens[0]).toMatchObject({ kind: "quoted", text: "`a\\`b`" });
    expect(kinds("a ? b : c")).toContain("symbol:?");
  });

  it("binds placeholders in code only", () => {
    const context = { customer: { provided_id: "acme", name: "Acme", properties: {} }, variables: {} };
    const bound = bindPlaceholders(
      "SELECT {{customer.provided_id}} AS a, '{{customer.name}}' AS b # {{customer.name}}\n",
      context,
      "clickhouse",
    );
    expect(bound.params).toEqual(["acme"]);
    expect(bound.sql).toContain("'{{customer.name}}' AS b # {{customer.name}}");
  });
});

describe("ClickHouse's refused texts at save", () => {
  it("refuses each as panel SQL (422 query_not_read_only on its field, no version saved); the accepted texts are saved (the control)", async () => {
    const schema = (await admin("POST", "/admin/schemas/", { name: unique("ch-save") })).body.schema.id as number;
    const control = kpi("control", schema, "SELECT count() AS value FROM t");
    const embedId = await dashboard({ panels: [control] });
    for (const [name, sql] of refused) {
      const saved = await admin("POST", "/admin/dashboard_versions/", {
        embed_id: embedId,
        definition: { panels: [control, kpi("bad", schema, sql, 3)] },
      });
      expect({ name, status: saved.status, code: saved.body.error?.code, field: saved.body.error?.field }).toEqual({
        name,
        status: 422,
        code: "query_not_read_only",
        field: "definition.panels.1.sql",
      });
    }
    // A {name:Type} parameter written by hand is refused too (values come only from placeholders).
    const parameter = await admin("POST", "/admin/dashboard_versions/", {
      embed_id: embedId,
      definition: { panels: [control, kpi("bad", schema, "SELECT * FROM t WHERE id = {id: Int64}", 3)] },
    });
    expect({ status: parameter.status, field: parameter.body.error?.field }).toEqual({ status: 400, field: "definition.panels.1.sql" });
    const saved = await admin("POST", "/admin/dashboard_versions/", {
      embed_id: embedId,
      definition: {
        panels: [control, ...accepted.map(([, sql], i) => kpi(`ok${i}`, schema, sql, (i % 4) * 3, 2 + Math.floor(i / 4) * 2))],
      },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // Nothing refused was stored: the control is the dashboard's second version.
    expect(saved.body.version.version_number).toBe(2);
  });
});
