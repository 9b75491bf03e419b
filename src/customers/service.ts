import { batchLists } from "../db/batch";
import type { Database } from "../db/client";
import { usableSources } from "../data/sources/access";
import { isForeignKeyViolation, isUniqueViolation } from "../db/errors";
import { ApiError } from "../http/errors";
import { checkChildren, checkKeptParent, checkNewParent } from "./hierarchy";
import { customerNotFound, customerTokenNotFound, parentNotFound } from "./not-found";
import * as repo from "./repository";
import type { CustomerViewRow } from "./repository";
import type { CreateCustomerInput, Customer, CustomerMapping, UpdateCustomerInput } from "./schemas";
import { customerToken, hashCustomerToken, newCustomerToken } from "./tokens";
import { chainOf, normaliseEmails, toCustomer } from "./view";
import { themeByName } from "../themes/repository";
import { knownTheme } from "../themes/service";

/** What every customer operation needs: the caller's access group and the workspace settings. */
export interface CustomerScope {
  db: Database;
  accessGroupId: number;
  tokenKey: CryptoKey;
  /** 0 = unlimited. */
  paidCustomerLimit: number;
}

async function view(scope: CustomerScope, chain: CustomerViewRow[]): Promise<Customer> {
  return toCustomer(chain, await customerToken(scope.tokenKey, chain[0].tokenNonce));
}

// ---- reads (one D1 round trip each) ----------------------------------------------------

export async function getCustomer(scope: CustomerScope, providedId: string): Promise<Customer> {
  const chain = await repo.customerChain(scope.db, repo.visibleByProvidedId(providedId, scope.accessGroupId));
  if (chain.length === 0) throw customerNotFound(providedId);
  return view(scope, chain);
}

export interface CustomerListQuery {
  parentProvidedId?: string;
  hierarchyLevelName?: string;
}

export async function listCustomers(scope: CustomerScope, query: CustomerListQuery): Promise<Customer[]> {
  const rows = await repo.customerPage(scope.db, { accessGroupId: scope.accessGroupId, ...query });
  return pageToCustomers(scope, rows);
}

export interface CustomerPage {
  total_count: number;
  page: number;
  page_size: number;
  next_page: number | null;
  customers: Customer[];
}

export async function listCustomerPage(
  scope: CustomerScope,
  query: CustomerListQuery & { page: number; pageSize: number },
): Promise<CustomerPage> {
  const filter = { accessGroupId: scope.accessGroupId, ...query };
  const [rows, count] = await scope.db.batch([
    repo.customerPage(scope.db, filter, { limit: query.pageSize, offset: (query.page - 1) * query.pageSize }),
    repo.customerCount(scope.db, filter),
  ]);
  const total = count[0].total;
  return {
    total_count: total,
    page: query.page,
    page_size: query.pageSize,
    next_page: query.page * query.pageSize < total ? query.page + 1 : null,
    customers: await pageToCustomers(scope, rows),
  };
}

function pageToCustomers(scope: CustomerScope, rows: CustomerViewRow[]): Promise<Customer[]> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return Promise.all(rows.filter((row) => row.inPage === 1).map((row) => view(scope, chainOf(row, byId))));
}

// ---- references shared by create and update ---------------------------------------------

interface ReferenceLookups {
  tags: { id: number; nameKey: string }[];
  themes: { id: number; name: string }[];
  schemas: { id: number }[];
  dataSources: { id: number; providedId: string | null; accessGroupIds: number[] | null }[];
}

function referenceQueries(
  db: Database,
  accessGroupId: number,
  input: { group_tags?: string[]; mapping?: CustomerMapping | null; theme?: string | null },
) {
  const mapping = input.mapping ?? {};
  return [
    themeByName(db, accessGroupId, input.theme ?? ""),
    repo.groupTagsByKey(
      db,
      (input.group_tags ?? []).map((name) => name.toLowerCase()),
    ),
    repo.schemasById(db, Object.keys(mapping)),
    repo.dataSourcesByReference(db, Object.values(mapping).map(String)),
  ] as const;
}

/** Tag ids in the order given (duplicates dropped), or 422 unknown_group_tag. */
function resolveTags(names: string[], found: ReferenceLookups["tags"]): number[] {
  const byKey = new Map(found.map((tag) => [tag.nameKey, tag.id]));
  const ids: number[] = [];
  names.forEach((name, index) => {
    const id = byKey.get(name.toLowerCase());
    if (id === undefined) throw new ApiError("unknown_group_tag", `Group tag '${name}' does not exist.`, `group_tags.${index}`);
    if (!ids.includes(id)) ids.push(id);
  });
  return ids;
}

/**
 * The mapping as stored: `{ "<schema id>": "<data source id>" }`, or 422. A data source the
 * customer's access group may not use counts as absent (`unknown_data_source`).
 */
function resolveMapping(mapping: CustomerMapping, lookups: ReferenceLookups, accessGroupId: number): Record<string, string> {
  const schemaIds = new Set(lookups.schemas.map((s) => String(s.id)));
  const stored: Record<string, string> = {};
  for (const [schemaId, reference] of Object.entries(mapping)) {
    if (!schemaIds.has(String(Number(schemaId)))) {
      throw new ApiError("unknown_schema", `Schema ${schemaId} does not exist.`, `mapping.${schemaId}`);
    }
    const text = String(reference);
    // A number or digit string names a data source id when one exists; otherwise a provided_id.
    const usable = usableSources(lookups.dataSources, accessGroupId);
    const dataSource =
      (/^[0-9]+$/.test(text) ? usable.find((d) => String(d.id) === String(Number(text))) : undefined) ??
      (typeof reference === "string" ? usable.find((d) => d.providedId === reference) : undefined);
    if (!dataSource) throw new ApiError("unknown_data_source", `Data source '${text}' does not exist.`, `mapping.${schemaId}`);
    stored[String(Number(schemaId))] = String(dataSource.id);
  }
  return stored;
}

function unknownLevel(name: string): ApiError {
  return new ApiError("unknown_hierarchy_level", `Hierarchy level '${name}' does not exist.`, "hierarchy_level_name");
}

function paidLimitReached(limit: number): ApiError {
  return new ApiError("paid_customer_limit_reached", `The workspace already has its ${limit} paid (non-demo) customers.`);
}

// ---- create (at most two D1 round trips) -------------------------------------------------

/** `id` is the internal numeric id (the deprecated `team_id`); it is not part of the customer view. */
export async function createCustomer(
  scope: CustomerScope,
  input: CreateCustomerInput,
): Promise<{ new_customer: boolean; customer: Customer; id: number }> {
  const { db } = scope;
  const parentProvidedId = input.parent_provided_id;
  const [existing, owner, level, parent, ...references] = await db.batch([
    repo.customerChain(db, repo.visibleByProvidedId(input.provided_id, scope.accessGroupId)),
    repo.customerOwner(db, input.provided_id),
    repo.hierarchyLevel(db, input.hierarchy_level_name),
    repo.parentCandidate(db, parentProvidedId ?? ""),
    ...referenceQueries(db, scope.accessGroupId, input),
  ]);

  // An existing customer is returned unchanged; the other fields are not checked.
  if (existing.length > 0) return { new_customer: false, customer: await view(scope, existing), id: existing[0].id };
  if (owner.length > 0) throw providedIdTaken(input.provided_id);

  const lookups: ReferenceLookups = { themes: references[0], tags: references[1], schemas: references[2], dataSources: references[3] };
  if (parentProvidedId !== undefined && parent.length === 0) {
    throw parentNotFound(parentProvidedId);
  }
  const tagIds = resolveTags(input.group_tags ?? [], lookups.tags);
  if (level.length === 0) throw unknownLevel(input.hierarchy_level_name ?? "");
  if (parentProvidedId !== undefined) {
    checkNewParent(parent[0], scope.accessGroupId, level[0], input.hierarchy_level_name === undefined);
  }
  const mapping = input.mapping ? resolveMapping(input.mapping, lookups, scope.accessGroupId) : null;
  const themeId = input.theme ? knownTheme(lookups.themes, input.theme).id : null;

  const token = await newCustomerToken(scope.tokenKey);
  const isDemo = input.is_demo_group ?? false;
  const [, , created, ownerAfter] = await parentMayVanish(
    parentProvidedId,
    db.batch([
      repo.insertCustomer(
        db,
        {
          providedId: input.provided_id,
          name: input.name ?? input.provided_id,
          accessGroupId: scope.accessGroupId,
          hierarchyLevelId: level[0].id,
          parentId: parent[0]?.id ?? null,
          isDemo,
          emails: normaliseEmails(input.emails ?? []),
          properties: input.properties ?? null,
          mapping,
          tokenNonce: token.nonce,
          tokenHash: token.hash,
          themeId,
          locale: input.locale ?? null,
          timezone: input.timezone ?? null,
        },
        scope.paidCustomerLimit,
      ),
      repo.insertCustomerTags(db, token.hash, tagIds),
      repo.customerChain(db, repo.visibleByProvidedId(input.provided_id, scope.accessGroupId)),
      repo.customerOwner(db, input.provided_id),
    ]),
  );

  if (created.length > 0) {
    // A concurrent call may have created it first: then this call reports the winner.
    return { new_customer: created[0].tokenHash === token.hash, customer: await view(scope, created), id: created[0].id };
  }
  if (ownerAfter.length > 0) throw providedIdTaken(input.provided_id);
  throw paidLimitReached(scope.paidCustomerLimit);
}

/**
 * The parent was looked up, then deleted by a concurrent call before this write: the
 * foreign key refuses the write (nothing is stored) and the caller gets 404, not 500.
 */
async function parentMayVanish<T>(parentProvidedId: string | undefined, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (parentProvidedId !== undefined && isForeignKeyViolation(error)) {
      throw parentNotFound(parentProvidedId);
    }
    throw error;
  }
}

function providedIdTaken(providedId: string, field = "provided_id"): ApiError {
  return new ApiError("provided_id_taken", `Another customer already has provided_id '${providedId}'.`, field);
}

// ---- update (two D1 round trips) ------------------------------------------------------

export async function updateCustomer(scope: CustomerScope, input: UpdateCustomerInput): Promise<{ customer: Customer; id: number }> {
  const loaded = await loadForUpdate(scope, input);
  const plan = checkUpdate(scope, input, loaded);
  return writeUpdate(scope, input, plan);
}

/** Everything the update's rules need, in one round trip. */
async function loadForUpdate(scope: CustomerScope, input: UpdateCustomerInput) {
  const { db } = scope;
  const target = repo.visibleByProvidedId(input.provided_id, scope.accessGroupId);
  const [chain, children, owner, level, parent, paid, ...references] = await db.batch([
    repo.customerChain(db, target),
    repo.childrenSummary(db, target),
    repo.customerOwner(db, input.new_provided_id ?? ""),
    repo.hierarchyLevel(db, input.hierarchy_level_name ?? ""),
    repo.parentCandidate(db, input.parent_provided_id ?? ""),
    repo.paidCustomerCount(db),
    ...referenceQueries(db, scope.accessGroupId, input),
  ]);
  const lookups: ReferenceLookups = { themes: references[0], tags: references[1], schemas: references[2], dataSources: references[3] };
  return {
    chain,
    topChildPosition: children[0]?.topChildPosition,
    newIdOwner: owner[0],
    level: level[0],
    parent: parent[0],
    paidCount: paid[0].total,
    lookups,
  };
}

interface UpdatePlan {
  id: number;
  changes: repo.CustomerChanges;
  tagIds: number[] | undefined;
}

/** Every rule, checked against the customer as it will be (children included); no writes. */
function checkUpdate(scope: CustomerScope, input: UpdateCustomerInput, loaded: Awaited<ReturnType<typeof loadForUpdate>>): UpdatePlan {
  const { chain, parent, level, lookups } = loaded;
  const newParent = input.parent_provided_id ?? undefined;
  if (chain.length === 0) throw customerNotFound(input.provided_id);
  const current = chain[0];
  if (newParent !== undefined && !parent) throw parentNotFound(newParent);
  if (input.new_provided_id !== undefined && loaded.newIdOwner && loaded.newIdOwner.id !== current.id) {
    throw providedIdTaken(input.new_provided_id, "new_provided_id");
  }
  const tagIds = input.group_tags === undefined ? undefined : resolveTags(input.group_tags, lookups.tags);
  if (input.hierarchy_level_name !== undefined && !level) throw unknownLevel(input.hierarchy_level_name);

  const resultLevel =
    input.hierarchy_level_name !== undefined
      ? level
      : { id: current.hierarchyLevelId, name: current.hierarchyLevel, position: current.levelPosition };
  if (newParent !== undefined) {
    checkNewParent(parent, scope.accessGroupId, resultLevel, false);
  } else if (input.parent_provided_id === undefined && current.parentId !== null && chain[1]) {
    checkKeptParent(chain[1], resultLevel);
  }
  checkChildren(loaded.topChildPosition, resultLevel);
  const mapping = input.mapping ? resolveMapping(input.mapping, lookups, scope.accessGroupId) : input.mapping;
  // undefined keeps the theme, null clears it (the customer inherits again).
  const themeId = typeof input.theme === "string" ? knownTheme(lookups.themes, input.theme).id : input.theme;

  const becomesPaid = input.is_demo_group === false && current.isDemo === 1;
  if (becomesPaid && scope.paidCustomerLimit > 0 && loaded.paidCount >= scope.paidCustomerLimit) {
    throw paidLimitReached(scope.paidCustomerLimit);
  }

  return {
    id: current.id,
    tagIds,
    changes: {
      providedId: input.new_provided_id,
      name: input.name,
      hierarchyLevelId: input.hierarchy_level_name !== undefined ? resultLevel.id : undefined,
      parentId: input.parent_provided_id === null ? null : newParent !== undefined ? parent.id : undefined,
      isDemo: input.is_demo_group,
      emails: input.emails === undefined ? undefined : normaliseEmails(input.emails),
      properties: input.properties,
      mapping,
      themeId,
      locale: input.locale,
      timezone: input.timezone,
    },
  };
}

/** The writes and the read-back of the result, in one round trip. */
async function writeUpdate(
  scope: CustomerScope,
  input: UpdateCustomerInput,
  plan: UpdatePlan,
): Promise<{ customer: Customer; id: number }> {
  const { db } = scope;
  const update = repo.updateCustomer(db, plan.id, plan.changes);
  const tagWrites = plan.tagIds ? repo.replaceCustomerTags(db, plan.id, plan.tagIds) : [];
  const readBack = repo.customerChain(db, repo.byId(plan.id));
  try {
    // The read-back runs last, so it sees every write of the batch.
    const [, , [updated]] = await parentMayVanish(input.parent_provided_id ?? undefined, batchLists(db, [[update], tagWrites, [readBack]]));
    return { customer: await view(scope, updated), id: plan.id };
  } catch (error) {
    if (isUniqueViolation(error, "customers.provided_id")) {
      throw providedIdTaken(input.new_provided_id ?? input.provided_id, "new_provided_id");
    }
    throw error;
  }
}

// ---- token-addressed operations (one D1 round trip each) ----------------------------------

export async function deleteCustomer(scope: CustomerScope, currentToken: string): Promise<void> {
  const hash = await hashCustomerToken(currentToken);
  const [deleted, remaining] = await scope.db.batch([
    repo.deleteChildlessCustomer(scope.db, hash, scope.accessGroupId),
    repo.customerWithChildCount(scope.db, hash, scope.accessGroupId),
  ]);
  if (deleted.length > 0) return;
  if (remaining.length > 0) {
    throw new ApiError(
      "customer_has_children",
      `The customer has ${remaining[0].children} child customer(s); delete them or remove their parent first.`,
      "current_token",
    );
  }
  throw customerTokenNotFound();
}

export async function refreshCustomerToken(scope: CustomerScope, currentToken: string): Promise<Customer> {
  const oldHash = await hashCustomerToken(currentToken);
  const next = await newCustomerToken(scope.tokenKey);
  // One batch: the viewers' subscriptions made under the old token go with it, or nothing changes.
  const [, , chain] = await scope.db.batch([
    repo.deleteEmbedSubscriptions(scope.db, oldHash, scope.accessGroupId),
    repo.replaceToken(scope.db, oldHash, scope.accessGroupId, next.nonce, next.hash),
    repo.customerChain(scope.db, repo.visibleByTokenHash(next.hash, scope.accessGroupId)),
  ]);
  if (chain.length === 0) throw customerTokenNotFound();
  return toCustomer(chain, next.token);
}
