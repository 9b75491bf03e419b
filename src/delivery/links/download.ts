import type { Database } from "../../db/client";
import type { Env } from "../../env";
import { ApiError } from "../../http/errors";
import { HEX_TOKEN } from "../../http/fields";
import { sha256Hex } from "../../lib/crypto";
import * as repo from "../repository";
import { CACHE_READS_METADATA, QUERY_CACHE_METADATA } from "../run/job";
import { isAttemptedHere, type JobWatch, WATCHED_ALONE, watchedJobCount, watchJob } from "../run/job-endings";

export type DownloadState =
  | { state: "pending"; status: string }
  | {
      state: "ready";
      body: ReadableStream | Uint8Array<ArrayBuffer>;
      fileName: string;
      contentType: string;
      queryCache?: string;
      cacheReads?: string;
    }
  | { state: "failed"; error: string };

/**
 * While a download request waits on a job whose attempt runs elsewhere, it looks at the job
 * (one indexed read) every 5 ms for the first 250 ms (a warm capture ends within it, and each
 * pause is latency), every 20 ms up to 1 s, every 50 ms up to 5 s, then every 250 ms: forty
 * downloads waiting on a burst of captures look a few hundred times a second, not thousands,
 * and leave the database to the jobs. No pause outlasts the wait, and an attempt starting here
 * or an ending noted on this isolate's board (run/job-endings.ts) cuts a pause short: the
 * wait never sleeps past an end it can see.
 */
export function downloadPollPause(waitedMs: number): number {
  return waitedMs < 250 ? 5 : waitedMs < 1000 ? 20 : waitedMs < 5000 ? 50 : 250;
}

/**
 * How often a waiting download looks at this isolate's board (run/job-endings.ts, no I/O)
 * while the attempt runs here. The attempt notes the ending the moment it has the file
 * (before storing it), so every look after that is latency. A download waiting alone (this
 * isolate watches at most WATCHED_ALONE jobs) looks every millisecond for its first second,
 * within which a warm capture ends; a look costs a timer, no I/O. A crowd — forty downloads
 * waiting on a burst of captures — looks after a tenth of the time it has waited, at least
 * every 5 ms and at most every 50 ms: looking every millisecond, they took the CPU the
 * captures needed (thousands of wake-ups). Past a second everyone paces like the crowd.
 */
export function boardWatchPause(waitedMs: number, watching: number): number {
  if (watching <= WATCHED_ALONE && waitedMs < 1000) return 1;
  return Math.min(50, Math.max(5, Math.round(waitedMs / 10)));
}

/**
 * The job a download token answers for: on its job's row (since migration 0016). A link made
 * before that migration was deployed is in KV (`download:<hash>` → job id, expiring with
 * DOWNLOAD_TTL_SECONDS) and still answers until it expires; the KV look is made only for a
 * token no row knows. (It can go once every such link has expired, 15 minutes after the
 * deploy; nothing writes these keys any more.)
 */
async function jobOfToken(db: Database, env: Env, tokenHash: string) {
  const rows = await repo.jobByDownloadToken(db, tokenHash);
  if (rows.length > 0) return rows;
  const legacyJobId = await env.LINKS.get(`download:${tokenHash}`);
  return legacyJobId ? repo.jobById(db, legacyJobId) : [];
}

/**
 * What a download link gives now, or once its job ends within `waitSeconds`; unknown and
 * expired tokens are 404. A waiting request learns that the job ended from the attempt when
 * it runs in this isolate (the board: the file in hand, no read), and otherwise by
 * looking at the job (see downloadPollPause) — wherever the job runs, the row tells. It
 * awaits only its own reads and timers, never the attempt itself (Workers run no
 * invocation's code on behalf of another).
 */
export async function download(db: Database, env: Env, token: string, waitSeconds = 0): Promise<DownloadState> {
  const tokenHash = HEX_TOKEN.test(token) ? await sha256Hex(token) : undefined;
  const started = Date.now();
  const until = started + waitSeconds * 1000;
  let watch: JobWatch | undefined;
  try {
    for (;;) {
      // By the token each time: a link that expires while its download waits answers 404.
      const [job] = tokenHash ? await jobOfToken(db, env, tokenHash) : [];
      if (!job) throw new ApiError("job_not_found", "This download link is unknown or has expired.");
      if (job.status === "failed") return { state: "failed", error: job.error ?? "rendering failed" };
      if (job.status === "done" && job.fileKey) {
        const file = await env.FILES.get(job.fileKey);
        if (!file) throw new ApiError("job_not_found", "The file of this download is gone.");
        return {
          state: "ready",
          body: file.body,
          fileName: job.request.fileName,
          contentType: job.contentType ?? "application/octet-stream",
          queryCache: file.customMetadata?.[QUERY_CACHE_METADATA],
          cacheReads: file.customMetadata?.[CACHE_READS_METADATA],
        };
      }
      if (Date.now() >= until) return { state: "pending", status: job.status };
      // The attempt runs here and notes its ending (or leaves without one): no look at the
      // database meanwhile. Otherwise the row's next look, unless the board has news first.
      watch ??= watchJob(job.id);
      const waited = Date.now() - started;
      const left = until - Date.now();
      const tick = () => boardWatchPause(Date.now() - started, watchedJobCount());
      await watch.news(isAttemptedHere(job.id) ? left : Math.min(downloadPollPause(waited), left), tick);
      const ending = watch.ending();
      if (ending?.status === "failed") return { state: "failed", error: ending.error };
      if (ending?.status === "done") {
        const { bytes, contentType, queryCache, cacheReads } = ending.file;
        return { state: "ready", body: bytes, fileName: job.request.fileName, contentType, queryCache, cacheReads };
      }
    }
  } finally {
    watch?.stop();
  }
}
