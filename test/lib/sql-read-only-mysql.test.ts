import { describe, expect, it } from "vitest";
import { readOnlyProblem } from "../../src/lib/sql-read-only";
import { lexSql } from "../../src/lib/sql-lexer";
import { bindPlaceholders } from "../../src/data/placeholders";

// MySQL's dialect in the read-only rule (docs/mysql.md): each refused text beside an accepted
// control. A version is saved before anyone knows its database, so the default check reads the
// text as SQLite, PostgreSQL and MySQL; `["mysql"]` is the check before a run on MySQL.
const refusedOnlyByMysql: [string, string][] = [
  // `#` starts a comment in MySQL (PostgreSQL reads an operator and a string that hides DELETE).
  ["a # comment that ends before a second statement", "SELECT 1 # '\n; DELETE FROM t -- '"],
  // Backslashes escape in MySQL's strings: the quote after one does not end it (standard SQL doubles quotes instead).
  ["a backslash-escaped quote ending the string early", "SELECT '\\'' ; DELETE FROM t -- '"],
  // "…" is a string in MySQL, with the same escapes (a quoted name elsewhere).
  ['a backslash-escaped "', 'SELECT "\\"" ; DELETE FROM t -- "'],
];

const refused: [string, string][] = [
  ...refusedOnlyByMysql,
  ["an executable comment", "SELECT 1 /*! , (SELECT 1 FROM t FOR UPDATE) */"],
  ["a versioned executable comment", "SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */"],
  ["MariaDB's executable comment", "SELECT 1 /*M!100100 , GET_LOCK('x', 1) */"],
  ["an optimizer hint lifting the time limit", "SELECT /*+ MAX_EXECUTION_TIME(100000000) */ SLEEP(100)"],
  ["INTO OUTFILE", "SELECT * FROM t INTO OUTFILE '/tmp/t.csv'"],
  ["INTO DUMPFILE", "SELECT secret FROM t LIMIT 1 INTO DUMPFILE '/tmp/t'"],
  ["INTO @var", "SELECT count(*) INTO @n FROM t"],
  ["FOR UPDATE", "SELECT * FROM t FOR UPDATE"],
  ["FOR SHARE", "SELECT * FROM t FOR SHARE"],
  ["LOCK IN SHARE MODE", "SELECT * FROM t LOCK IN SHARE MODE"],
  ["GET_LOCK", "SELECT GET_LOCK('tenant', 10) AS value"],
  ["RELEASE_LOCK", "SELECT RELEASE_LOCK('tenant') AS value"],
  ["LOAD_FILE", "SELECT LOAD_FILE('/etc/passwd') AS value"],
  ["NEXT VALUE FOR (MariaDB sequences)", "SELECT NEXT VALUE FOR s AS value"],
  ["a second statement after a backtick name", "SELECT 1 AS `x`; DELETE FROM t"],
  ["SET", "SET SESSION max_statement_time = 0"],
  ["HANDLER", "HANDLER t OPEN"],
  ["DO", "DO SLEEP(1)"],
];

const accepted: [string, string][] = [
  ["a # comment", "SELECT 1 AS a # a comment\n"],
  ["a backslash-escaped quote inside a string", "SELECT 'it\\'s' AS a"],
  ['a "…" string with an escaped quote', 'SELECT "say \\"hi\\"" AS a'],
  ["a plain block comment", "SELECT 1 /* plain */ AS a"],
  ["a comment mark inside a string", "SELECT '/*! not code */' AS a"],
  ["INTO OUTFILE as text", "SELECT 'INTO OUTFILE' AS a"],
  ["a column called lock_count", "SELECT lock_count FROM t"],
  ["LOCK IN SHARE MODE as text", "SELECT 'LOCK IN SHARE MODE' AS a"],
  ["IS_FREE_LOCK (reads only)", "SELECT IS_FREE_LOCK('tenant') AS value"],
  ["SLEEP (the time limit stops it)", "SELECT SLEEP(1) AS value"],
  ["a column called load_file_name", "SELECT load_file_name FROM t"],
  ["MySQL's date functions", "SELECT DATE_FORMAT(NOW(), '%Y-%m') AS month, `t`.`x` FROM t WHERE y <> 'a\\\\'"],
];

// PostgreSQL reads a backtick as code, so a saved version (checked for every database) keeps
// such names out; the check before a run on MySQL reads them as the names they are.
const acceptedOnMysql: [string, string][] = [
  ["a backtick name with a ; in it", "SELECT `a;b` FROM t"],
  ["a column named into, quoted", "SELECT `into` FROM t"],
];

describe("readOnlyProblem: MySQL's dialect", () => {
  it.each(refused)("refuses %s", (_name, sql) => {
    expect(readOnlyProblem(sql)).not.toBeNull();
    expect(readOnlyProblem(sql, ["mysql"])).not.toBeNull();
  });

  it.each(refusedOnlyByMysql)("refuses %s because MySQL reads it so (SQLite and PostgreSQL alone would not)", (_name, sql) => {
    expect(readOnlyProblem(sql, ["sqlite", "postgres"])).toBeNull();
  });

  it.each(accepted)("accepts %s", (_name, sql) => {
    expect(readOnlyProblem(sql)).toBeNull();
    expect(readOnlyProblem(sql, ["mysql"])).toBeNull();
  });

  it.each(acceptedOnMysql)("accepts %s on MySQL", (_name, sql) => {
    expect(readOnlyProblem(sql, ["mysql"])).toBeNull();
    expect(readOnlyProblem(sql, ["postgres"])).not.toBeNull();
  });
});

describe("lexSql: MySQL", () => {
  const kinds = (sql: string) => lexSql(sql, "mysql").tokens.map((t) => `${t.kind}:${t.text}`);

  it("reads -- as a comment only before a blank or control character, as MySQL does", () => {
    expect(kinds("1--1")).toEqual(["number:1", "symbol:-", "symbol:-", "number:1"]);
    expect(kinds("1 -- c")).toEqual(["number:1", "space: ", "comment:-- c"]);
    expect(kinds("1 --")).toEqual(["number:1", "space: ", "comment:--"]);
  });

  it("ends # and -- comments at a line feed only, and does not nest block comments", () => {
    expect(kinds("1 # a\r2\n3").slice(2)).toEqual(["comment:# a\r2", "space:\n", "number:3"]);
    expect(kinds("/* a /* b */ c */")).toEqual(["comment:/* a /* b */", "space: ", "word:c", "space: ", "symbol:*", "symbol:/"]);
    expect(lexSql("SELECT /* open", "mysql").error).toBe("unterminated /* comment");
  });

  it("reads backticks as names (doubled backtick inside) and `?` as a parameter", () => {
    const [name] = lexSql("`a``b`", "mysql").tokens;
    expect(name).toMatchObject({ kind: "quoted", value: "a`b" });
    expect(kinds("a = ?")).toEqual(["word:a", "space: ", "symbol:=", "space: ", "param:?"]);
  });

  it("binds placeholders as ? in code only", () => {
    const bound = bindPlaceholders(
      "SELECT {{customer.provided_id}} AS a, '{{customer.name}}' AS b # {{customer.name}}\n",
      {
        customer: { provided_id: "acme", name: "Acme", properties: {} },
        variables: {},
      },
      "mysql",
    );
    expect(bound).toEqual({ sql: "SELECT  ?  AS a, '{{customer.name}}' AS b # {{customer.name}}", params: ["acme"] });
  });
});
