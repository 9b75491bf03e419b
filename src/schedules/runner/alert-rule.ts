import { visibleByProvidedId } from "../../customers/repository";
import { dataOfPanel, type LoadedDashboard, type RenderRequest } from "../../dashboards/customer-dashboard";
import type { Env } from "../../env";
import { ApiError } from "../../http/errors";
import { errorDetail, log } from "../../lib/log";

/**
 * An alert's rule for one customer: its panel is run on that customer's own data (the
 * version an e-mailed report shows), the first row's value is compared with the condition,
 * and the outcome decides whether this customer is notified at this slot.
 */
export type ConditionOp = "gt" | "gte" | "lt" | "lte" | "eq" | "neq";
export type Notify = "on_change" | "always";

export interface AlertRule {
  id: string;
  accessGroupId: number;
  dashboardEmbedId: string;
  panelId: string;
  column: string | null;
  op: ConditionOp;
  threshold: number;
  notify: Notify;
  variables: Record<string, unknown> | null;
}

export interface Verdict {
  /** The first row's value; null when there is none (no rows, not a number, no data). */
  value: number | null;
  /** Whether the condition holds; null (unknown) without a value. */
  holds: boolean | null;
  /** The condition holds and, for on_change, did not hold at the previous evaluation. */
  notify: boolean;
  /** Why it notifies: "Revenue is 312, below 500". */
  headline: string;
}

/** The versions an alert evaluates: those its e-mail shows (the report's). */
const ALERT_VERSIONS = { tags: ["email", "production"], fallBackToNewest: true };

const words: Record<ConditionOp, string> = {
  gt: "above",
  gte: "at or above",
  lt: "below",
  lte: "at or below",
  eq: "equal to",
  neq: "not equal to",
};

export function conditionHolds(op: ConditionOp, value: number, threshold: number): boolean {
  switch (op) {
    case "gt":
      return value > threshold;
    case "gte":
      return value >= threshold;
    case "lt":
      return value < threshold;
    case "lte":
      return value <= threshold;
    case "eq":
      return value === threshold;
    case "neq":
      return value !== threshold;
  }
}

const formatNumber = (n: number) => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12))));

export function headline(title: string, value: number, op: ConditionOp, threshold: number): string {
  return `${title} is ${formatNumber(value)}, ${words[op]} ${formatNumber(threshold)}`;
}

/** A number as a data source answers it: a JS number, or numeric text (PostgreSQL's numeric, bigint). */
function asNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return finiteOrNull(Number(value));
  if (typeof value === "string" && isDecimalText(value.trim())) return finiteOrNull(Number(value));
  return null;
}

/** A value too large for a double (a 400-digit numeric) is no value, like NaN. */
const finiteOrNull = (n: number) => (Number.isFinite(n) ? n : null);

const isDigitAt = (text: string, i: number) => text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57;

/**
 * Decimal text: `[-+]digits[.digits][e[-+]digits]`, digits on at least one side of the point
 * (`1.`, `.5`). One pass, no regular expression: the pattern it replaces backtracked
 * quadratically on a long run of digits that did not end as a number.
 */
export function isDecimalText(text: string): boolean {
  let i = 0;
  if (text[i] === "-" || text[i] === "+") i++;
  const intStart = i;
  while (isDigitAt(text, i)) i++;
  let digits = i - intStart;
  if (text[i] === ".") {
    i++;
    const fractionStart = i;
    while (isDigitAt(text, i)) i++;
    digits += i - fractionStart;
  }
  if (digits === 0) return false;
  if (text[i] === "e" || text[i] === "E") {
    i++;
    if (text[i] === "-" || text[i] === "+") i++;
    const exponentStart = i;
    while (isDigitAt(text, i)) i++;
    if (i === exponentStart) return false;
  }
  return i === text.length;
}

/** The value an alert compares: `column` of the first row, or its first numeric column. */
export function firstValue(rows: Record<string, unknown>[], column: string | null): number | null {
  const [row] = rows;
  if (!row) return null;
  if (column !== null) return asNumber(row[column]);
  for (const value of Object.values(row)) {
    const n = asNumber(value);
    if (n !== null) return n;
  }
  return null;
}

/**
 * What the rule renders for one customer: that customer (looked up inside the rule's access
 * group only) and the versions its e-mail shows. The fan-out reads it for all the slot's
 * evaluations in one D1 batch (`dashboardReads`) and hands each its loaded dashboard.
 */
export function alertRender(rule: AlertRule, providedId: string): RenderRequest {
  return {
    embedId: rule.dashboardEmbedId,
    customer: visibleByProvidedId(providedId, rule.accessGroupId),
    versions: ALERT_VERSIONS,
    variables: rule.variables ?? {},
  };
}

/**
 * Evaluates the rule for one customer on the dashboard `load` answers for it (see
 * `alertRender`). `previous` is that customer's last outcome (true, false, null = unknown,
 * undefined = never evaluated). A panel that cannot be run for this customer (no mapping, a
 * failing query, gone) is an unknown value, not an error.
 */
export async function evaluate(
  env: Env,
  rule: AlertRule,
  providedId: string,
  load: () => Promise<LoadedDashboard>,
  previous: boolean | null | undefined,
): Promise<Verdict> {
  let value: number | null = null;
  let title = rule.panelId;
  try {
    const data = await dataOfPanel(env, await load(), rule.dashboardEmbedId, rule.panelId);
    title = data.title || rule.panelId;
    value = firstValue(data.rows, rule.column);
  } catch (error) {
    const reason = error instanceof ApiError ? error.code : errorDetail(error);
    log("warn", "alert not evaluated", { alert_id: rule.id, provided_id: providedId, reason });
  }
  const holds = value === null ? null : conditionHolds(rule.op, value, rule.threshold);
  const notify = holds === true && (rule.notify === "always" || previous !== true);
  return { value, holds, notify, headline: value === null ? "" : headline(title, value, rule.op, rule.threshold) };
}
