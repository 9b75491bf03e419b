import type { Database } from "../db/client";
import { ApiError } from "../http/errors";
import * as repo from "./repository";

/** A job as its access group sees it (`job_status`); another group's job is not found. */
export async function jobStatus(db: Database, accessGroupId: number, jobId: string) {
  const [job] = await repo.visibleJob(db, jobId, accessGroupId);
  if (!job) throw new ApiError("job_not_found", `Job '${jobId}' does not exist.`, "job_id");
  return {
    id: job.id,
    kind: job.kind,
    status: job.status,
    attempts: job.attempts,
    error: job.error,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}
