/**
 * Statements that must never change data when saved as panel SQL or a blueprint table's
 * query (docs/postgres.md "Safety in three layers", plus the bypasses found while writing the lexer). `t` is the
 * table whose row count the tests watch; `{{t}}` is replaced by its qualified name.
 */
export interface CorpusEntry {
  name: string;
  sql: string;
}

export const READ_ONLY_CORPUS: CorpusEntry[] = [
  // section 15, both databases
  { name: "a DELETE behind a quote in a -- comment", sql: "WITH x AS (SELECT 1 -- '\n) DELETE FROM {{t}} RETURNING * -- '" },
  { name: "an INSERT behind a quote in a /* */ comment", sql: 'WITH x AS (SELECT 1 /* " */) INSERT INTO {{t}}(id) VALUES (1) /* " */' },
  { name: "a DROP after a comment holding a quote", sql: "SELECT 1 -- '\n; DROP TABLE {{t}}; -- '" },
  { name: "a second statement", sql: "SELECT 1; DELETE FROM {{t}}" },
  { name: "PRAGMA", sql: "PRAGMA user_version = 7" },
  { name: "ATTACH", sql: "ATTACH DATABASE 'other.db' AS other" },
  { name: "VACUUM INTO", sql: "VACUUM INTO 'copy.db'" },
  { name: "load_extension", sql: "SELECT load_extension('evil')" },
  { name: "REPLACE INTO", sql: "REPLACE INTO {{t}}(id) VALUES (1)" },
  { name: "UPDATE", sql: "UPDATE {{t}} SET id = id + 1000" },
  { name: "CREATE", sql: "CREATE TABLE created_by_panel (id INTEGER)" },
  // section 15, PostgreSQL
  {
    name: "COMMIT out of the read-only transaction through the wrapper",
    sql: "SELECT 1 AS x -- '\n) AS a; COMMIT; DELETE FROM {{t}}; SELECT * FROM (SELECT 1 AS y -- '",
  },
  { name: "an E'…' string hiding a second statement", sql: "SELECT E'\\'' ; DELETE FROM {{t}}" },
  { name: "set_config", sql: "SELECT set_config('statement_timeout', '0', false)" },
  { name: "COPY", sql: "COPY {{t}} TO STDOUT" },
  { name: "CALL", sql: "CALL do_something()" },
  { name: "DO", sql: "DO $$ BEGIN DELETE FROM {{t}}; END $$" },
  // state-changing functions, by name
  { name: "setval", sql: "SELECT setval('corpus_seq', 100)" },
  { name: "nextval", sql: "SELECT nextval('corpus_seq')" },
  { name: "pg_advisory_lock", sql: "SELECT pg_advisory_lock(42)" },
  { name: "dblink_exec", sql: "SELECT dblink_exec('dbname=x', 'DELETE FROM t')" },
  { name: "lo_import", sql: "SELECT lo_import('/etc/passwd')" },
  { name: "pg_read_file", sql: "SELECT pg_read_file('/etc/passwd')" },
  { name: "pg_terminate_backend", sql: "SELECT pg_terminate_backend(1)" },
  { name: "pg_cancel_backend", sql: "SELECT pg_cancel_backend(1)" },
  // bypasses found while writing the lexer
  { name: "a data-modifying CTE", sql: "WITH d AS (DELETE FROM {{t}} RETURNING *) SELECT count(*) AS value FROM d" },
  { name: "SELECT … INTO a new table", sql: "SELECT * INTO corpus_copy FROM {{t}}" },
  { name: "row locks (FOR UPDATE)", sql: "SELECT * FROM {{t}} FOR UPDATE" },
  { name: "row locks (FOR KEY SHARE)", sql: "SELECT * FROM {{t}} FOR KEY SHARE" },
  { name: "an E'…' string continued on the next line", sql: "SELECT E'a'\n'\\'' ; DELETE FROM {{t}}; --'" },
  { name: "a comment nested in PostgreSQL but not in SQLite", sql: "SELECT 1 /* /* */ ; DELETE FROM {{t}}; -- */" },
  { name: "a -- comment PostgreSQL ends at a carriage return", sql: "SELECT 1 AS value --x\r; DELETE FROM {{t}}" },
  { name: "a quote inside a dollar-quoted string", sql: "SELECT $$ ' $$; DELETE FROM {{t}}; -- '" },
  { name: "a quote inside SQLite's [name]", sql: "SELECT [ ' ] ; DELETE FROM {{t}}; -- '" },
  { name: "a quote inside SQLite's Tcl-style parameter", sql: "SELECT $a(') ; DELETE FROM {{t}}; --'" },
  { name: "a quoted function name", sql: "SELECT \"nextval\"('corpus_seq')" },
  { name: "a Unicode-escaped function name", sql: "SELECT U&\"\\006Eextval\"('corpus_seq')" },
  { name: "SQL run from a string (query_to_xml)", sql: "SELECT query_to_xml('DELETE FROM {{t}} RETURNING *', true, false, '')" },
  { name: "a parenthesis closing the row-limit wrapper", sql: "SELECT 1 AS a) AS x, (SELECT 2 AS b" },
  { name: "a NUL byte ending the statement early", sql: "SELECT 1 AS value\u0000; DELETE FROM {{t}}" },
];

/** Reads that must still be accepted (the controls). */
export const VALID_READS: string[] = [
  "SELECT count(*) AS value FROM {{t}}",
  "SELECT count(*) AS value FROM {{t}};",
  "WITH x AS (SELECT id FROM {{t}}) SELECT count(*) AS value FROM x -- it's fine",
  "VALUES (1, 'a'), (2, 'b')",
  "SELECT replace('a;b', ';', ',') AS value /* don't worry */",
  "SELECT 'DELETE FROM t; --' AS value",
  'SELECT "id" AS value FROM {{t}} WHERE id > {{variables.min}} ORDER BY 1 LIMIT 1',
];

/** The corpus entry's SQL for a table name. */
export const forTable = (sql: string, table: string) => sql.replaceAll("{{t}}", table);
