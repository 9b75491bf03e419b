import { lexSql, type SqlDialect, type Token } from "./sql-lexer";

/**
 * The read-only rule for SQL that vendors write (dashboard panels, blueprint tables): one
 * statement that reads — `SELECT`, `WITH … SELECT` or `VALUES` — and nothing that writes or
 * changes state. Checked on the tokens each database would see (sql-lexer.ts), never on the
 * raw text, so quotes in comments or comment marks in strings cannot hide anything.
 *
 * A version is saved before anyone knows which database will run it, so by default the text
 * must pass as SQLite, as PostgreSQL, as MySQL AND as ClickHouse; before a run the runner also
 * checks the exact text it sends in that data source's dialect. The databases prove it too
 * where they can (D1: the statement's bytecode; PostgreSQL and MySQL: a READ ONLY transaction,
 * one statement per message; ClickHouse: `readonly=1` on every request).
 */

/** The first word of an acceptable statement. */
const READ_STATEMENTS = new Set(["SELECT", "WITH", "VALUES"]);

/**
 * Words that only ever appear in statements that write or change the database or session.
 * Some may be column names elsewhere: quoted (`"update"`) they are names, not keywords.
 * (`REPLACE` is also a string function: `REPLACE INTO` is refused through `INTO`.)
 */
const WRITING_WORDS = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "MERGE",
  "UPSERT",
  "INTO",
  "CREATE",
  "DROP",
  "ALTER",
  "ATTACH",
  "DETACH",
  "PRAGMA",
  "VACUUM",
  "REINDEX",
  "TRUNCATE",
  "GRANT",
  "REVOKE",
  "COMMIT",
  "ROLLBACK",
  "SAVEPOINT",
]);

/** `FOR SHARE`, `FOR KEY SHARE`, `FOR NO KEY UPDATE`, `FOR UPDATE`: row locks. */
const LOCKING_AFTER_FOR = new Set(["UPDATE", "SHARE", "KEY", "NO"]);

/**
 * Functions that change state beyond the statement (sequences, settings, locks, large
 * objects, files, other databases, other sessions) or run SQL given as text.
 */
const STATEFUL_FUNCTIONS: RegExp[] = [
  /^load_extension$/,
  /^set_config$/,
  /^setval$/,
  /^nextval$/,
  /^pg_advisory_/,
  /^pg_try_advisory_/,
  /^dblink/,
  /^lo_/,
  /^pg_read_/,
  /^pg_terminate_backend$/,
  /^pg_cancel_backend$/,
  /^pg_notify$/,
  /^pg_reload_conf$/,
  /^pg_rotate_logfile$/,
  /^pg_switch_wal$/,
  /^pg_promote$/,
  /^pg_create_/,
  /^pg_drop_replication_slot$/,
  /^pg_replication_/,
  /^pg_logical_/,
  /^pg_ls_/,
  /^pg_stat_file$/,
  /^pg_file_/,
  /^(query|cursor|table|schema|database)_to_xml/,
  /^readfile$/,
  /^writefile$/,
  /^fts3_tokenizer$/,
  // MySQL / MariaDB: named locks, files of the server, waits on replication.
  /^get_lock$/,
  /^release_lock$/,
  /^release_all_locks$/,
  /^load_file$/,
  /^master_pos_wait$/,
  /^source_pos_wait$/,
  /^master_gtid_wait$/,
  /^wait_for_executed_gtid_set$/,
  /^wait_until_sql_thread_after_gtids$/,
  /^sys_exec$/,
  /^sys_eval$/,
];

/**
 * ClickHouse's table functions (and `file()`, also a function) that reach outside the
 * database: other servers, files, object stores, programs, the request's own input.
 */
const OUTSIDE_FUNCTIONS = new Set(
  [
    "url",
    "remote",
    "remoteSecure",
    "s3",
    "s3Cluster",
    "gcs",
    "azureBlobStorage",
    "hdfs",
    "file",
    "mysql",
    "postgresql",
    "jdbc",
    "odbc",
    "sqlite",
    "mongodb",
    "redis",
    "executable",
    "cluster",
    "clusterAllReplicas",
    "input",
  ].map((name) => name.toLowerCase()),
);

/**
 * MySQL runs the text of `/*!…*\/` (and MariaDB of `/*M!…*\/`) as code, and reads `/*+…*\/` as
 * optimizer hints, which may lift the statement time limit (`MAX_EXECUTION_TIME`, `SET_VAR`).
 */
const EXECUTABLE_COMMENT = /^\/\*(?:!|M!|\+)/i;

/** Why `sql` is not one read-only statement, or null when it is (in every dialect given). */
export function readOnlyProblem(
  sql: string,
  dialects: readonly SqlDialect[] = ["sqlite", "postgres", "mysql", "clickhouse"],
): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a control character in SQL text is refused, so the pattern must name them
  const control = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(sql);
  if (control) return `the query contains a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")})`;
  const unreadable: string[] = [];
  for (const dialect of dialects) {
    const lexed = lexSql(sql, dialect);
    // What a database cannot read it does not run; the part before is still checked, in
    // case the database runs statements one by one up to that point.
    const problem =
      tokensProblem(lexed.tokens, lexed.error === undefined) ?? (dialect === "clickhouse" ? clickhouseProblem(lexed.tokens) : null);
    if (problem) return problem;
    if (lexed.error) unreadable.push(lexed.error);
  }
  // Readable by no database at all: say why now rather than at every view.
  if (unreadable.length === dialects.length) return unreadable[0];
  return null;
}

/** The rule on one database's tokens; `complete` is false when they stop at an unreadable spot. */
function tokensProblem(all: readonly Token[], complete: boolean): string | null {
  const executable = all.find((t) => t.kind === "comment" && EXECUTABLE_COMMENT.test(t.text));
  if (executable) return `comments that MySQL runs as code or hints ('${executable.text.slice(0, 4)}…') are not allowed`;
  const code = all.filter((t) => t.kind !== "space" && t.kind !== "comment");
  if (code.length === 0) return complete ? "the query is empty" : null;
  const first = code[0];
  if (first.kind !== "word" || !READ_STATEMENTS.has(first.text.toUpperCase())) {
    return `only SELECT, WITH … SELECT or VALUES queries are allowed (this one starts with '${first.text.slice(0, 40)}')`;
  }
  let depth = 0;
  for (let i = 0; i < code.length; i++) {
    const token = code[i];
    const next = code[i + 1];
    if (token.kind === "symbol") {
      if (token.text === ";" && next !== undefined) return "only one statement is allowed";
      if (token.text === "(") depth++;
      if (token.text === ")" && --depth < 0) return "unbalanced parentheses: ')' without '('";
      continue;
    }
    if (token.kind === "word") {
      const word = token.text.toUpperCase();
      if (WRITING_WORDS.has(word)) return `'${word}' is not allowed in a read-only query`;
      if (word === "FOR" && next?.kind === "word" && LOCKING_AFTER_FOR.has(next.text.toUpperCase())) {
        return `'FOR ${next.text.toUpperCase()}' locks rows and is not allowed in a read-only query`;
      }
      if (word === "LOCK" && next?.kind === "word" && next.text.toUpperCase() === "IN") {
        return "'LOCK IN SHARE MODE' locks rows and is not allowed in a read-only query";
      }
      // MariaDB's sequences: `NEXT VALUE FOR s` advances one, like nextval().
      if (word === "NEXT" && next?.kind === "word" && next.text.toUpperCase() === "VALUE") {
        return "'NEXT VALUE FOR' changes state and is not allowed in a read-only query";
      }
    }
    if (token.disguised) return 'names written with Unicode escapes (U&"…") are not allowed';
    if (token.kind === "word" || token.kind === "quoted") {
      const name = (token.value ?? token.text).toLowerCase();
      // Only calls: a column may well be called `lo_limit`. (PostgreSQL's `row.f` notation
      // calls only functions of one composite argument, which none of these is.)
      const called = next?.kind === "symbol" && next.text === "(";
      if (called && STATEFUL_FUNCTIONS.some((pattern) => pattern.test(name))) {
        return `'${name}()' changes state and is not allowed in a read-only query`;
      }
    }
  }
  if (complete && depth !== 0) return "unbalanced parentheses: '(' without ')'";
  return null;
}

/**
 * ClickHouse's own ways out: a `SETTINGS name = value` clause (it would change the request's
 * limits; `readonly=1` refuses it too) and the table functions that read other servers, files
 * or programs. A column called `settings`, or `file` that is not called, stays allowed.
 */
function clickhouseProblem(all: readonly Token[]): string | null {
  const code = all.filter((t) => t.kind !== "space" && t.kind !== "comment");
  for (let i = 0; i < code.length; i++) {
    const token = code[i];
    const next = code[i + 1];
    if (token.kind === "word" && token.text.toUpperCase() === "SETTINGS") {
      const value = code[i + 2];
      if ((next?.kind === "word" || next?.kind === "quoted") && value?.kind === "symbol" && value.text === "=")
        return "a SETTINGS clause is not allowed in a read-only query (the service sets the limits)";
    }
    if ((token.kind === "word" || token.kind === "quoted") && next?.kind === "symbol" && next.text === "(") {
      const name = (token.value ?? token.text).toLowerCase();
      if (OUTSIDE_FUNCTIONS.has(name)) return `'${name}()' reaches outside the database and is not allowed in a read-only query`;
    }
  }
  return null;
}
