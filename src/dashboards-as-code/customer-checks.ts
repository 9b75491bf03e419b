import { customerNotFound } from "../customers/not-found";
import type { RootedViewRow } from "../customers/repository";
import type { Database } from "../db/client";
import { openedDashboardsOf, schemaIdsOf } from "../dashboards/versions";
import { ApiError } from "../http/errors";
import { DashboardFile } from "./file-schema";
import * as repo from "./repository";
import { checkForCustomer, type FileCheck, fileProblems, type FileProblem } from "./service";

// A dashboard file checked for many customers in one call (docs/dashboards-as-code.md, "The API behind them"):
// what "Check all customers" in the console asks a page at a time. Each customer's answer is
// exactly what the one-customer check (`provided_id`) answers for it.

/** Customers one call checks at most: a page the console's progress bar moves by. */
export const MAX_CUSTOMERS_PER_CHECK = 100;

/** Data sources prepared at the same time: each customer's panels are one batch (or one connection) on their source. */
const PREPARED_AT_ONCE = 8;

/** Which customers: these provided_ids (any access group), or a page of one access group's, ordered by provided_id. */
export type CustomerSelection = { provided_ids: string[] } | { access_group: string; offset: number; limit: number };

export interface CustomerCheck extends FileCheck {
  provided_id: string;
  name: string;
}

export interface CustomersCheck {
  /** The file's own problems, whatever the customer (what the call without a customer answers). */
  valid: boolean;
  problems: FileProblem[];
  customers: CustomerCheck[];
  /** With `access_group`: its customers in all, and the offset of the next page (null: this was the last). */
  total?: number;
  next_offset?: number | null;
}

/** The chains of the selected customers, grouped by customer, in the order the query answered them (by provided_id). */
function byCustomer(rows: RootedViewRow[]): RootedViewRow[][] {
  const chains = new Map<number, RootedViewRow[]>();
  for (const row of rows) {
    const chain = chains.get(row.root);
    if (chain) chain.push(row);
    else chains.set(row.root, [row]);
  }
  return [...chains.values()];
}

/** Runs `work` on every item, at most `atOnce` at a time, answers in the items' order. */
async function inTurns<T, R>(items: T[], atOnce: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      answers[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return answers;
}

/**
 * The file checked for every selected customer: one D1 round trip for all of them (their chains,
 * the access group's count, the schemas, data sources and dashboards the file names), then each
 * customer's panels prepared on its data source, a few customers at a time. An unknown
 * provided_id is 404 `customer_not_found`, an unknown access group 404 `access_group_not_found`.
 */
export async function checkFileForCustomers(
  db: Database,
  env: object,
  file: unknown,
  selection: CustomerSelection,
  asked: string[] = [],
  customerLocale = false,
): Promise<CustomersCheck> {
  const parsed = DashboardFile.safeParse(file);
  const definition = parsed.success ? parsed.data.definition : undefined;
  const group = "access_group" in selection ? selection.access_group : "";
  const [rows, groups, schemas, sources, opened] = await db.batch([
    "access_group" in selection
      ? repo.chainsOfGroupPage(db, selection.access_group, selection)
      : repo.chainsByProvidedIds(db, selection.provided_ids),
    repo.groupCustomerCount(db, group),
    repo.existingSchemas(db, definition ? schemaIdsOf(definition) : []),
    repo.dataSources(db),
    repo.existingDashboards(db, definition ? openedDashboardsOf(definition) : []),
  ]);
  const chains = byCustomer(rows);
  let page: { total: number; next_offset: number | null } | undefined;
  if ("access_group" in selection) {
    const [found] = groups;
    if (!found) throw new ApiError("access_group_not_found", `Access group '${group}' does not exist.`, "access_group");
    const end = selection.offset + chains.length;
    page = { total: found.total, next_offset: end < found.total ? end : null };
  } else {
    const known = new Set(chains.map((chain) => chain[0].providedId));
    const missing = selection.provided_ids.findIndex((id) => !known.has(id));
    if (missing >= 0) throw customerNotFound(selection.provided_ids[missing], `provided_ids.${missing}`);
  }
  const own = fileProblems(file, schemas, opened, asked);
  const { ready } = own;
  const customers = await inTurns(chains, PREPARED_AT_ONCE, async (chain): Promise<CustomerCheck> => {
    const who = { provided_id: chain[0].providedId, name: chain[0].name };
    // A file with problems of its own answers them for every customer, as the one-customer check does.
    if (!ready) return { ...who, valid: false, problems: own.problems };
    return { ...who, ...(await checkForCustomer(env, file, ready, chain, sources, asked, customerLocale)) };
  });
  return { valid: own.problems.length === 0, problems: own.problems, customers, ...page };
}
