import type { Env } from "../env";
import { randomAlphanumeric } from "../lib/crypto";
import { runNow } from "../schedules/runner/run-now";
import { runView } from "../schedules/runs";
import { newRuleColumns, resolveReferences, updatedAudience, updatedTiming, type ScheduleScope } from "../schedules/service";
import { checkCallbackUrl, webhookSecretMissing } from "../webhooks/service";
import { alertNotFound } from "../schedules/alert-not-found";
import * as schedulesRepo from "../schedules/repository";
import * as unsubscribeRepo from "../unsubscribe/repository";
import * as webhooksRepo from "../webhooks/repository";
import type { Alert, CreateAlertInput, Evaluation, UpdateAlertInput } from "./schemas";
import type { Run } from "../schedules/schemas";

/**
 * Alerts: the rules, no machinery. An alert is stored, claimed, fanned out and delivered by
 * the scheduler of src/schedules/ (its evaluation: ./evaluate.ts); this module validates and
 * shows it.
 */

/** Evaluations shown per customer by get_alert, newest first. */
const RECENT_EVALUATIONS = 20;
const RECENT_RUNS = 20;

function view(row: schedulesRepo.ScheduleRow): Alert {
  return {
    id: row.id,
    dashboard_embed_id: row.dashboardEmbedId,
    panel_id: row.panelId ?? "",
    column: row.alertColumn,
    condition: { op: row.conditionOp ?? "gt", value: row.conditionValue ?? 0 },
    provided_id: row.providedId,
    group_tag: row.groupTag,
    cron: row.cron,
    timezone: row.timezone,
    recipients: row.recipients,
    callback_url: row.callbackUrl,
    notify: row.notify ?? "on_change",
    subject: row.subject,
    pdf: row.pdf ?? null,
    variables: row.variables,
    paused: row.paused,
    next_run_at: row.nextRunAt,
    theme: row.themeName,
    locale: row.locale,
    created_at: row.createdAt,
  };
}

const evaluationView = (e: {
  providedId: string;
  slot: string;
  trigger: string;
  value: number | null;
  fired: number | boolean;
}): Evaluation => ({
  provided_id: e.providedId,
  slot: e.slot,
  trigger: e.trigger === "manual" ? "manual" : "schedule",
  value: e.value,
  fired: Boolean(e.fired),
});

/** A callback_url must pass the destination policy (webhooks/service.ts) and have a secret to be signed with. */
async function checkCallback(scope: ScheduleScope, env: Env, callbackUrl: string | null | undefined): Promise<void> {
  if (!callbackUrl) return;
  await checkCallbackUrl(env, callbackUrl);
  const secret = await webhooksRepo.secretExists(scope.db, scope.accessGroupId);
  if (secret.length === 0) throw webhookSecretMissing();
}

export async function createAlert(
  scope: ScheduleScope,
  env: Env,
  input: CreateAlertInput,
  linkBase: string,
  now = new Date(),
): Promise<Alert> {
  const shows = { target: { kind: "dashboard", embedId: input.dashboard_embed_id }, panelId: input.panel_id } as const;
  const columns = await newRuleColumns(scope, input, shows, linkBase, now);
  await checkCallback(scope, env, input.callback_url);
  const id = `alr_${randomAlphanumeric(20)}`;
  const [, [row]] = await scope.db.batch([
    schedulesRepo.insertSchedule(scope.db, id, scope.accessGroupId, {
      kind: "alert",
      ...columns,
      format: "report",
      panelId: input.panel_id,
      alertColumn: input.column ?? null,
      conditionOp: input.condition.op,
      conditionValue: input.condition.value,
      notify: input.notify ?? "on_change",
      callbackUrl: input.callback_url ?? null,
      pdf: input.pdf ?? null,
    }),
    schedulesRepo.scheduleById(scope.db, id),
  ]);
  return view(row);
}

export async function listAlerts(scope: ScheduleScope): Promise<Alert[]> {
  return (await schedulesRepo.schedulesOfAccessGroup(scope.db, scope.accessGroupId, "alert")).map(view);
}

export async function getAlert(
  scope: ScheduleScope,
  id: string,
): Promise<{ alert: Alert; unsubscribed: string[]; evaluations: Evaluation[]; runs: Run[] }> {
  const [[row], unsubscribed, evaluations, runs, counts] = await scope.db.batch([
    schedulesRepo.visibleSchedule(scope.db, id, scope.accessGroupId, "alert"),
    unsubscribeRepo.unsubscribedOf(scope.db, id),
    schedulesRepo.recentEvaluations(scope.db, id, RECENT_EVALUATIONS),
    schedulesRepo.recentRuns(scope.db, id, RECENT_RUNS),
    schedulesRepo.recentRunJobCounts(scope.db, id, RECENT_RUNS),
  ]);
  // Every read is of this id: another access group's alert yields rows only the check below hides.
  if (!row) throw alertNotFound(id);
  return {
    alert: view(row),
    unsubscribed: unsubscribed.map((u) => u.email),
    evaluations: evaluations.map(evaluationView),
    runs: runs.map((run) => runView(run, counts)),
  };
}

/**
 * Each given field replaces the stored one; giving `provided_id` or `group_tag` replaces the
 * target. A new cron, time zone or un-pausing counts from now (as for schedules).
 */
export async function updateAlert(
  scope: ScheduleScope,
  env: Env,
  input: UpdateAlertInput,
  linkBase: string,
  now = new Date(),
): Promise<Alert> {
  const [current] = await schedulesRepo.visibleSchedule(scope.db, input.id, scope.accessGroupId, "alert");
  if (!current) throw alertNotFound(input.id);
  const timing = updatedTiming(current, input, now);
  const target = { kind: "dashboard", embedId: input.dashboard_embed_id ?? current.dashboardEmbedId } as const;
  const refs = { target, panelId: input.panel_id ?? current.panelId ?? "", ...updatedAudience(current, input), theme: input.theme };
  const audience = await resolveReferences(scope, refs);
  const callbackUrl = input.callback_url !== undefined ? input.callback_url : current.callbackUrl;
  await checkCallback(scope, env, input.callback_url);
  const [updated, [row]] = await scope.db.batch([
    schedulesRepo.updateSchedule(
      scope.db,
      input.id,
      scope.accessGroupId,
      {
        target,
        ...audience,
        ...timing,
        recipients: input.recipients !== undefined ? input.recipients : current.recipients,
        format: "report",
        subject: input.subject !== undefined ? input.subject : current.subject,
        pdf: input.pdf !== undefined ? input.pdf : current.pdf,
        variables: input.variables !== undefined ? input.variables : current.variables,
        linkBase,
        panelId: refs.panelId,
        alertColumn: input.column !== undefined ? input.column : current.alertColumn,
        conditionOp: input.condition?.op ?? current.conditionOp,
        conditionValue: input.condition?.value ?? current.conditionValue,
        notify: input.notify ?? current.notify,
        callbackUrl,
        ...(input.locale !== undefined ? { locale: input.locale } : {}),
      },
      "alert",
    ),
    schedulesRepo.scheduleById(scope.db, input.id),
  ]);
  if (updated.length === 0 || !row) throw alertNotFound(input.id);
  return view(row);
}

export async function deleteAlert(scope: ScheduleScope, id: string): Promise<void> {
  const deleted = await schedulesRepo.deleteSchedule(scope.db, id, scope.accessGroupId, "alert");
  if (deleted.length === 0) throw alertNotFound(id);
}

/** `run_alert`: a manual run through the scheduler's own run now; it counts as an evaluation for on_change. */
export async function runAlert(scope: ScheduleScope, env: Env, id: string): Promise<{ run: Run; evaluations: Evaluation[] }> {
  const { run, evaluations } = await runNow(scope.db, env, { accessGroupId: scope.accessGroupId, id, kind: "alert" });
  return {
    run,
    evaluations: evaluations.map((e) =>
      evaluationView({ providedId: e.providedId, slot: run.slot, trigger: "manual", value: e.value ?? null, fired: e.fired ?? false }),
    ),
  };
}
