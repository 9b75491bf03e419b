import { alertNotFound } from "../alert-not-found";
import { batchLists } from "../../db/batch";
import type { Database } from "../../db/client";
import type { Env } from "../../env";
import { minuteOf, slotString } from "../cron";
import * as repo from "../repository";
import { runView } from "../runs";
import type { Run } from "../schemas";
import { scheduleNotFound } from "../service";
import { fanOut, loadedRun, recordRun, runReads, type RunTally } from "./fan-out";

/**
 * `run now`: a separate run with trigger `manual` in the current minute, never a claimed
 * slot. Two D1 trips besides the jobs': the run is inserted (only for a schedule the caller
 * may see) and read with its schedule and targets in one batch; it is recorded and read back
 * in another.
 */
export async function runNow(
  db: Database,
  env: Env,
  scope: { accessGroupId: number | null; id: string; kind?: repo.RuleKind },
  now = new Date(),
): Promise<{ run: Run; evaluations: RunTally["evaluations"]; runId: number }> {
  const kind = scope.kind ?? "schedule";
  const [[inserted], reads] = await batchLists(db, [
    [repo.insertManualRun(db, scope.id, scope.accessGroupId, slotString(minuteOf(now)), kind)],
    runReads(db, scope.id),
  ]);
  const [run] = inserted;
  if (!run) throw kind === "alert" ? alertNotFound(scope.id) : scheduleNotFound(scope.id);
  const [tally] = await fanOut(db, env, [loadedRun(run, reads)]);
  // Read back after the writes, in the same batch.
  const [, [stored, counts]] = await batchLists(db, [recordRun(db, run, tally), [repo.runById(db, run.id), repo.runJobCounts(db, run.id)]]);
  return { run: runView(stored[0], counts), evaluations: tally.evaluations, runId: run.id };
}
