import { describe, expect, it } from "vitest";
import { readOnlyProblem } from "../../src/lib/sql-read-only";
import { lexSql } from "../../src/lib/sql-lexer";
import { bindPlaceholders } from "../../src/data/placeholders";
import { forTable, READ_ONLY_CORPUS, VALID_READS } from "../helpers/sql-corpus";

const context = { customer: { provided_id: "acme", name: "Acme", properties: {} }, variables: { since: "2026-01-01" } };

describe("readOnlyProblem: the lexer-based read-only rule", () => {
  it.each(READ_ONLY_CORPUS.map((c) => [c.name, forTable(c.sql, "t")] as const))("refuses %s", (_name, sql) => {
    expect(readOnlyProblem(sql)).not.toBeNull();
  });

  it.each(VALID_READS.map((sql) => [forTable(sql, "t")] as const))("accepts the read %s", (sql) => {
    expect(readOnlyProblem(sql)).toBeNull();
  });

  it("refuses a statement that writes once a quote inside a comment no longer hides it (the reported bypass)", () => {
    const problem = readOnlyProblem("WITH x AS (SELECT 1 -- '\n) DELETE FROM t RETURNING * -- '");
    expect(problem).toContain("DELETE");
  });

  it("allows one trailing ';' but not a second statement", () => {
    expect(readOnlyProblem("SELECT 1;")).toBeNull();
    expect(readOnlyProblem("SELECT 1; -- done\n")).toBeNull();
    expect(readOnlyProblem("SELECT 1;;")).toBe("only one statement is allowed");
    expect(readOnlyProblem("SELECT 1; SELECT 2")).toBe("only one statement is allowed");
  });

  it("reads the construct that opens first: quotes in comments and comment marks in strings are text", () => {
    expect(readOnlyProblem("SELECT '-- not a comment; DELETE' AS a")).toBeNull();
    expect(readOnlyProblem('SELECT "a;b" FROM t -- it\'s fine')).toBeNull();
    expect(readOnlyProblem("SELECT 1 /* don't */ AS a")).toBeNull();
    // SQLite reads `$$` as a parameter and what follows as code: refused for SQLite's sake.
    expect(readOnlyProblem("SELECT $$ a; DELETE $$ AS a")).toBe("only one statement is allowed");
    expect(readOnlyProblem("SELECT $q$ text $q$ AS a", ["postgres"])).toBeNull();
    expect(readOnlyProblem("SELECT $q$ ; DELETE FROM t; $q$ AS a", ["postgres"])).toBeNull();
  });

  it("follows PostgreSQL's E'…' escapes, also in a string continued on the next line", () => {
    expect(readOnlyProblem("SELECT E'\\'' ; DELETE FROM t")).not.toBeNull();
    expect(readOnlyProblem("SELECT E'a'\n'\\'' ; DELETE FROM t; --'")).not.toBeNull();
    expect(readOnlyProblem("SELECT E'it\\'s' AS a", ["postgres"])).toBeNull();
  });

  it("refuses stateful functions by name only when called (a column may share the prefix)", () => {
    expect(readOnlyProblem("SELECT nextval('s')")).toContain("nextval");
    expect(readOnlyProblem("SELECT \"nextval\"('s')")).toContain("nextval");
    expect(readOnlyProblem("SELECT pg_catalog.set_config('a', 'b', false)")).toContain("set_config");
    expect(readOnlyProblem("SELECT lo_price FROM t")).toBeNull();
    expect(readOnlyProblem("SELECT replace(name, 'a', 'b') FROM t")).toBeNull();
  });

  it("refuses unbalanced parentheses (they could close the wrapper a run puts around the query)", () => {
    expect(readOnlyProblem("SELECT 1) AS a, (SELECT 2")).toContain("unbalanced");
    expect(readOnlyProblem("SELECT (1")).toContain("unbalanced");
  });

  it("refuses control characters (NUL, vertical tab): the databases disagree on them", () => {
    expect(readOnlyProblem("SELECT 1\u0000; DELETE FROM t")).toContain("control character");
    expect(readOnlyProblem("SELECT 1 --\u000b; DELETE FROM t")).toContain("control character");
  });
});

describe("lexSql", () => {
  it("nests block comments in PostgreSQL only", () => {
    const sql = "/* a /* b */ c */ SELECT 1";
    expect(lexSql(sql, "postgres").tokens[0].text).toBe("/* a /* b */ c */");
    expect(lexSql(sql, "sqlite").tokens[0].text).toBe("/* a /* b */");
  });

  it("ends a -- comment at a carriage return in PostgreSQL but not in SQLite", () => {
    expect(lexSql("--x\rSELECT", "postgres").tokens[0].text).toBe("--x");
    expect(lexSql("--x\rSELECT", "sqlite").tokens[0].text).toBe("--x\rSELECT");
  });

  it("reads SQLite's Tcl-style parameter $a(…) as one token, as SQLite does", () => {
    const { tokens } = lexSql("SELECT $a(')", "sqlite");
    expect(tokens.at(-1)).toMatchObject({ kind: "param", text: "$a(')" });
  });
});

describe("bindPlaceholders", () => {
  it("binds placeholders in code only; in strings and comments they stay text", () => {
    const bound = bindPlaceholders("SELECT '{{customer.name}}' AS a, {{customer.name}} AS b -- {{customer.provided_id}}", context);
    expect(bound.params).toEqual(["Acme"]);
    expect(bound.sql).toBe("SELECT '{{customer.name}}' AS a,  ?  AS b -- {{customer.provided_id}}");
  });

  it("numbers PostgreSQL parameters and drops a trailing ';'", () => {
    const bound = bindPlaceholders("SELECT {{customer.provided_id}}::text, {{variables.since}};", context, "postgres");
    expect(bound).toEqual({ sql: "SELECT  $1 ::text,  $2", params: ["acme", "2026-01-01"] });
  });
});

describe("lexSql remembers what it read", () => {
  it("hands out the same frozen tokens for the same text and database, and lexes anew for another database", () => {
    const sql = "SELECT \"a\" FROM t WHERE x = '{{ customer.provided_id }}' -- note";
    const first = lexSql(sql, "sqlite");
    expect(lexSql(sql, "sqlite")).toBe(first);
    expect(Object.isFrozen(first.tokens) && first.tokens.every((t) => Object.isFrozen(t))).toBe(true);
    expect(() => ((first.tokens as unknown as { kind: string }[])[0].kind = "space")).toThrow(TypeError);
    expect(() => (first.tokens as unknown[]).push({})).toThrow(TypeError);
    // Control: the other database reads the same text itself, and an edited text is lexed afresh.
    expect(lexSql(sql, "postgres")).not.toBe(first);
    expect(lexSql(`${sql} `, "sqlite")).not.toBe(first);
    expect(
      lexSql(`${sql} `, "sqlite")
        .tokens.map((t) => t.text)
        .join(""),
    ).toBe(`${sql} `);
    // What it remembers decides nothing differently: a refused text is refused every time.
    expect(readOnlyProblem("DELETE FROM t")).toContain("DELETE");
    expect(readOnlyProblem("DELETE FROM t")).toContain("DELETE");
  });

  it("does not keep long texts: each is lexed on its own", () => {
    const long = `SELECT ${"1 + ".repeat(6_000)}1`;
    expect(lexSql(long, "sqlite")).not.toBe(lexSql(long, "sqlite"));
    expect(readOnlyProblem(long)).toBeNull();
  });
});
