import { dashboardNotFound } from "../dashboards/not-found";
import { verifyEmbedToken } from "../tokens/embed";
import { fingerprintMatches } from "../tokens/signed";
import type { Database } from "../db/client";
import type { Env } from "../env";
import { ApiError } from "../http/errors";
import { randomAlphanumeric } from "../lib/crypto";
import { nextRunAt, view } from "../schedules/service";
import type { Schedule } from "../schedules/schemas";
import * as dashboardsRepo from "../dashboards/repository";
import * as schedulesRepo from "../schedules/repository";
import * as repo from "./repository";
import { themeByName } from "../themes/repository";
import type { SubscriptionInput } from "./schemas";

/**
 * Self-service subscriptions: a viewer whose signed embed token carries `user_email`
 * schedules this dashboard's report e-mail for themselves — for the token's customer, to
 * that one address, with the token's locked variables. They are ordinary schedules
 * (`source: "embed"`) run by the one scheduler, with an unsubscribe link like any other.
 */
export interface Subscriber {
  customerId: number;
  accessGroupId: number;
  embedId: string;
  email: string;
  variables: Record<string, unknown> | null;
  /** The version tag the token was pinned to: the subscription's e-mails show that version. */
  environment: string | null;
  /** The customer token's hash the embed token was checked against: a subscription made under it dies with it. */
  customerTokenHash: string;
  /** The token's theme (by name) and locale: the subscription's e-mails are drawn in them (null: the customer's). */
  theme: string | null;
  locale: string | null;
}

const invalid = (message: string) => new ApiError("invalid_embed_token", message);

/**
 * Who may manage subscriptions here: a valid signed token for this dashboard whose customer
 * still holds the token it was minted under (401 otherwise, as for the page), minted with
 * `user_email` (403 subscriptions_not_allowed otherwise). One D1 round trip.
 */
export async function subscriber(db: Database, env: Env, embedId: string, authorization: string | undefined): Promise<Subscriber> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (!token) throw invalid("Send the signed embed token as `Authorization: Bearer <token>`.");
  const claims = await verifyEmbedToken(env, token);
  if (!claims) throw invalid("This embed token is not valid or has expired.");
  if (claims.dsh !== embedId) throw invalid("This embed token was issued for another dashboard.");
  const [customer] = await repo.customerOfToken(db, claims.cid);
  if (!customer || customer.accessGroupId === null || !(await fingerprintMatches(claims, customer.tokenHash)))
    throw invalid("This link is no longer valid.");
  if (!claims.eml) {
    throw new ApiError("subscriptions_not_allowed", "This embed token was minted without user_email: its viewer cannot subscribe.");
  }
  return {
    customerId: customer.id,
    accessGroupId: customer.accessGroupId,
    embedId,
    email: claims.eml,
    variables: claims.vars ?? null,
    environment: claims.env ?? null,
    customerTokenHash: customer.tokenHash,
    theme: claims.thm ?? null,
    locale: claims.loc ?? null,
  };
}

/**
 * Subscriptions one viewer may hold for one customer's dashboard: enough for every frequency
 * at several hours, few enough that a leaked token cannot turn the service into a mail cannon.
 */
export const MAX_SUBSCRIPTIONS_PER_VIEWER = 20;

/** Weekly on Mondays, monthly on the 1st, at `hour` o'clock. */
export function cronFor(frequency: SubscriptionInput["frequency"], hour: number): string {
  return frequency === "daily" ? `0 ${hour} * * *` : frequency === "weekly" ? `0 ${hour} * * 1` : `0 ${hour} 1 * *`;
}

export async function subscribe(
  db: Database,
  who: Subscriber,
  input: SubscriptionInput,
  linkBase: string,
  now = new Date(),
): Promise<Schedule> {
  const cron = cronFor(input.frequency, input.hour);
  const next = nextRunAt(cron, input.timezone, now);
  const [[dashboard], [theme]] = await db.batch([
    dashboardsRepo.dashboardByEmbedId(db, who.embedId),
    themeByName(db, who.accessGroupId, who.theme ?? ""),
  ]);
  if (!dashboard) throw dashboardNotFound(who.embedId, "dashboard_embed_id");
  const id = `sch_${randomAlphanumeric(20)}`;
  const [, revoked, dropped, [row]] = await db.batch([
    schedulesRepo.insertSchedule(db, id, who.accessGroupId, {
      target: { kind: "dashboard", embedId: who.embedId },
      customerId: who.customerId,
      groupTagId: null,
      cron,
      timezone: input.timezone,
      recipients: [who.email],
      format: "report",
      subject: null,
      variables: who.variables ?? null,
      paused: false,
      nextRunAt: next,
      linkBase,
      source: "embed",
      subscriberEmail: who.email,
      environment: who.environment,
      // The token's theme (gone since it was minted: the customer's) and locale.
      themeId: who.theme !== null ? (theme?.id ?? null) : null,
      locale: who.locale,
    }),
    // Tied to the customer token the embed token was checked against: refreshed in the meantime
    // (refresh_customer_token deletes the customer's subscriptions), this one goes too.
    repo.dropIfCustomerTokenChanged(db, id, who.customerId, who.customerTokenHash),
    // The limit is checked after the insert, in the same transaction: racing calls cannot both pass it.
    repo.dropIfOverLimit(db, id, who.customerId, who.embedId, who.email, MAX_SUBSCRIPTIONS_PER_VIEWER),
    schedulesRepo.scheduleById(db, id),
  ]);
  if (revoked.length > 0) throw invalid("This link is no longer valid.");
  if (dropped.length > 0 || !row) {
    throw new ApiError(
      "subscription_limit_reached",
      `This address already has ${MAX_SUBSCRIPTIONS_PER_VIEWER} subscriptions to this dashboard; cancel one before adding another.`,
    );
  }
  return view(row);
}

export async function subscriptions(db: Database, who: Subscriber): Promise<Schedule[]> {
  return (await schedulesRepo.schedulesWhere(db, repo.ownedBy(who.customerId, who.embedId, who.email))).map(view);
}

/** Cancels one of the viewer's own subscriptions; any other id (someone else's, an API schedule) is 404. */
export async function unsubscribeOwn(db: Database, who: Subscriber, id: string): Promise<void> {
  const deleted = await repo.deleteSubscription(db, id, who.customerId, who.embedId, who.email);
  if (deleted.length === 0) throw new ApiError("schedule_not_found", `Subscription '${id}' does not exist.`, "id");
}
