import type { StoredTable } from "../blueprints/schemas";
import { customerNotFound } from "../customers/not-found";
import * as customersRepo from "../customers/repository";
import type { LockedFilter } from "../data/filters";
import { NO_CUSTOMER } from "../data/placeholders";
import type { Database } from "../db/client";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import type { Principal } from "../rate-limits/principal";
import { compileReportQuery, datasetOf } from "../report-builder/compiler";
import { bindLocks } from "../report-builder/locks";
import * as reportBuilderRepo from "../report-builder/repository";
import { signBuilderToken } from "../tokens/builder";
import { customerTokenFingerprint } from "../tokens/signed";
import { requireMintingPermission } from "./minting-permission";
import { themeByName } from "../themes/repository";
import { presentationClaims } from "./presentation-claims";

export interface BuilderTokenRequest {
  provided_id: string;
  blueprint_id: number;
  filters?: LockedFilter[];
  user_id?: string;
  can_save?: boolean;
  expires_in?: number;
  allowed_origins?: string[];
  theme?: string;
  locale?: string;
  timezone?: string;
}

const DEFAULT_TOKEN_SECONDS = 900;

/** What a builder token could write: unless `can_save` is false, its user saves, changes and deletes reports. */
function builderTokenWrites(input: BuilderTokenRequest): string | undefined {
  return input.can_save !== false ? "may save reports (can_save is not false)" : undefined;
}

/**
 * A signed builder token for one customer and one of its blueprints (one D1 round trip).
 * Locked filters are checked against the blueprint now, so a link never carries a filter
 * that cannot apply.
 */
export async function mintBuilderToken(
  db: Database,
  env: Env,
  scope: { accessGroupId: number; baseUrl: string; permission: Principal["permission"] },
  input: BuilderTokenRequest,
): Promise<{ token: string; expires_at: string; embed_url: string }> {
  requireMintingPermission(scope.permission, builderTokenWrites(input));
  const [customer, blueprint, theme] = await db.batch([
    customersRepo.visibleCustomerTokenHash(db, input.provided_id, scope.accessGroupId),
    reportBuilderRepo.blueprintOfProvidedId(db, input.blueprint_id, input.provided_id, scope.accessGroupId),
    themeByName(db, scope.accessGroupId, input.theme ?? ""),
  ]);
  if (customer.length === 0) throw customerNotFound(input.provided_id);
  if (blueprint.length === 0)
    throw new ApiError("blueprint_not_found", `Customer '${input.provided_id}' has no blueprint ${input.blueprint_id}.`, "blueprint_id");
  checkLockedFilters(blueprint[0].tables, input.filters ?? []);
  // Each lock bound to the table and column it names now (report-builder/locks.ts).
  const locks = await bindLocks(blueprint[0].tables, input.filters ?? []);
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + (input.expires_in ?? DEFAULT_TOKEN_SECONDS);
  const token = await signBuilderToken(env, {
    typ: "builder",
    ...presentationClaims(input, theme),
    cid: customer[0].id,
    ctv: await customerTokenFingerprint(customer[0].tokenHash),
    bid: blueprint[0].id,
    bpe: blueprint[0].embedId,
    ...(locks.length ? { flt: locks } : {}),
    ...(input.user_id !== undefined ? { uid: input.user_id } : {}),
    save: builderTokenWrites(input) !== undefined,
    ...(input.allowed_origins !== undefined ? { origins: input.allowed_origins } : {}),
    iat,
    exp,
  });
  return {
    token,
    expires_at: new Date(exp * 1000).toISOString(),
    embed_url: `${scope.baseUrl}/report-builder/${encodeURIComponent(blueprint[0].embedId)}?token=${token}`,
  };
}

/**
 * Each locked filter must name a dataset and column of the blueprint with values of the
 * column's type (400 before 422, as everywhere; fields `filters.<i>.…`).
 */
function checkLockedFilters(tables: StoredTable[], filters: LockedFilter[]): void {
  const attempts = filters.map(({ dataset, ...filter }, i) => {
    const table = tables.find((t) => t.dataset_name === dataset);
    const compile = () =>
      table &&
      compileReportQuery({
        table,
        query: { dataset, columns: [table.columns[0].name], filters: [filter] },
        locked: [],
        dialect: "sqlite",
        context: NO_CUSTOMER,
        rowLimit: Number.MAX_SAFE_INTEGER,
      });
    return { i, dataset, compile };
  });
  const renamed = (i: number, error: unknown) =>
    error instanceof ApiError && error.field?.startsWith("filters.0")
      ? new ApiError(error.code, error.message.replace("filters.0", `filters.${i}`), error.field.replace("filters.0", `filters.${i}`))
      : error;
  for (const attempt of attempts) {
    try {
      attempt.compile();
    } catch (error) {
      if (error instanceof ApiError && error.code === "validation_error") throw renamed(attempt.i, error);
    }
  }
  for (const attempt of attempts) {
    datasetOf(tables, attempt.dataset, `filters.${attempt.i}.dataset`);
    try {
      attempt.compile();
    } catch (error) {
      throw renamed(attempt.i, error);
    }
  }
}
