import { describe, expect, it } from "vitest";
import { bindParameterProblem } from "../../src/lib/sql-bind-parameters";

const ADVICE = "use placeholders such as {{customer.provided_id}}";

describe("bindParameterProblem: vendor SQL binds nothing of its own", () => {
  it.each([
    ["?", "SELECT * FROM orders WHERE customer_id = ?", "?"],
    ["?NNN", "SELECT * FROM orders WHERE customer_id = ?2", "?2"],
    ["$n", "SELECT * FROM orders WHERE customer_id = $1", "$1"],
    [":name", "SELECT * FROM orders WHERE customer_id = :customer", ":customer"],
    ["@name", "SELECT * FROM orders WHERE customer_id = @customer", "@customer"],
    ["$name (SQLite binds it)", "SELECT * FROM orders WHERE customer_id = $customer", "$customer"],
    ["a parameter next to a placeholder", "SELECT * FROM t WHERE a = ? AND b = {{customer.provided_id}}", "?"],
    // PostgreSQL-only text (SQLite cannot read `::`): PostgreSQL's tokens decide.
    [":name after a cast", "SELECT day::date AS d FROM orders WHERE customer_id = :customer", ":customer"],
    ["$n after a cast", "SELECT day::date AS d FROM orders WHERE customer_id = $2", "$2"],
    ["? after a cast (also jsonb's ? operator)", "SELECT day::date AS d FROM orders WHERE data ? 'k'", "?"],
    ["@name after a cast", "SELECT day::date AS d FROM orders WHERE customer_id = @customer", "@customer"],
    // As for the read-only rule, text must hold for both databases: SQLite reads `$$` as a
    // parameter and what follows as code, so it would bind this `?`.
    ["? in a dollar-quoted string SQLite reads as code", "SELECT $$ ? $$ AS s", "?"],
  ])("refuses %s", (_name, sql, token) => {
    const problem = bindParameterProblem(sql);
    expect(problem).toContain(`'${token}' is a bind parameter`);
    expect(problem).toContain(ADVICE);
  });

  it.each([
    ["placeholders", "SELECT * FROM orders WHERE customer_id = {{customer.provided_id}} AND day >= {{ variables.since }}"],
    ["'?' in a string", "SELECT '? :a @b $1' AS s"],
    ["a parameter in a comment", "SELECT 1 AS x -- WHERE a = ?\n/* :name @name $1 */"],
    ["a quoted name", 'SELECT "what?" , "$1", ":a" FROM t'],
    ["PostgreSQL's casts", "SELECT amount::numeric(10, 2) AS a, day :: date AS d, {{customer.provided_id}}::text AS c FROM orders"],
    ["a PostgreSQL dollar-quoted string", "SELECT $$ it's $$ AS s, $tag$ text $tag$ AS t"],
    ["an array slice", "SELECT (ARRAY[1,2,3])[1:n] AS s FROM t"],
    ["PostgreSQL's containment operators", "SELECT tags @> ARRAY['a'] AS a, tags <@ARRAY['b'] AS b FROM t"],
    ["a named argument", "SELECT make_interval(days := 2) AS i"],
    ["E'…' escapes hiding a quote", "SELECT E'it\\'s ?' AS s"],
    ["a string continued on the next line", "SELECT 'a'\n  '?' AS s"],
  ])("accepts %s", (_name, sql) => {
    expect(bindParameterProblem(sql)).toBeNull();
  });
});
