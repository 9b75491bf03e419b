import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { boardWatchPause } from "../../src/delivery/links/download";
import { createDatabase } from "../../src/db/client";
import { attemptJob } from "../../src/delivery/run/attempt";
import { deliveryEffects, type DeliveryEffects } from "../../src/delivery/run/effects";
import {
  attemptingHere,
  notedJobCount,
  takenFromBoard,
  ANSWER_HEAD_START_MS,
  WATCHED_ALONE,
  watchedJobCount,
  watchJob,
} from "../../src/delivery/run/job-endings";
import { roundTrips } from "../helpers/api";
import {
  bindings,
  call,
  sha256,
  deliverByHand,
  deliverySetup,
  fetchDownload,
  giveDownloadLink,
  holdCaptureStations,
  isPdf,
  isPng,
  jobRow,
  pngWidth,
  unqueuedJob,
  waitForJob,
} from "../helpers/delivery";

let ctx: Awaited<ReturnType<typeof deliverySetup>>;
beforeAll(async () => {
  ctx = await deliverySetup();
});

describe("POST /api/dashboard/screenshot with a download link", () => {
  it("answers at once with job_id and url; the link gives 202, then the PNG at the requested width", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, width: 900 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: 1,
      job_id: expect.stringMatching(/^job_/),
      url: expect.stringMatching(/^http:\/\/api\.test\/api\/downloads\/[0-9a-f]{64}$/),
    });
    const pending = await fetchDownload(res.body.url);
    expect(pending.status).toBe(202);
    expect(pending.headers.get("Retry-After")).toBe("2");

    const job = await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
    expect(job).toMatchObject({ id: res.body.job_id, kind: "screenshot", status: "done", attempts: 1, error: null });
    expect(job.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

    const file = await fetchDownload(res.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("image/png");
    expect(file.headers.get("Content-Disposition")).toBe('attachment; filename="dashboard_screenshot_download.png"');
    expect(isPng(file.bytes)).toBe(true);
    expect(pngWidth(file.bytes)).toBe(900);

    // The link is kept on the job's row, its token hashed: nothing of it in KV.
    const token = res.body.url.split("/").pop();
    const row = await bindings.DB.prepare("SELECT download_token_hash, download_expires_at FROM jobs WHERE id = ?")
      .bind(res.body.job_id)
      .first<{ download_token_hash: string; download_expires_at: string }>();
    expect(row?.download_token_hash).toBe(await sha256(token));
    // DOWNLOAD_TTL_SECONDS (900) from the request.
    expect(Date.parse(row!.download_expires_at) - Date.now()).toBeGreaterThan(880_000);
    expect(Date.parse(row!.download_expires_at) - Date.now()).toBeLessThanOrEqual(900_000);
    expect((await bindings.LINKS.list({ prefix: "download:" })).keys).toEqual([]);

    // Expired or unknown: 404 (the job and its file stay).
    await bindings.DB.prepare("UPDATE jobs SET download_expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 seconds') WHERE id = ?")
      .bind(res.body.job_id)
      .run();
    expect((await fetchDownload(res.body.url)).status).toBe(404);
    expect((await fetchDownload(`http://api.test/api/downloads/${"0".repeat(64)}`)).status).toBe(404);
    expect((await fetchDownload("http://api.test/api/downloads/not-a-token")).status).toBe(404);
  });

  it("produces a PDF with the given file name (extension not doubled)", async () => {
    const res = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: {
        provided_id: ctx.customer.provided_id,
        dashboard_embed_id: ctx.embedId,
        export_type: "pdf",
        download_file_name: "Quarterly report.pdf",
      },
    });
    await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
    const file = await fetchDownload(res.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/pdf");
    expect(file.headers.get("Content-Disposition")).toBe('attachment; filename="Quarterly report.pdf"');
    expect(isPdf(file.bytes)).toBe(true);
  });
});

describe("starting a job", () => {
  it("checks and inserts in one D1 round trip (screenshot and report)", async () => {
    const screenshot = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    const report = await call("POST", "/api/dashboard/report", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId, email: "trips@alpha.example" },
    });
    for (const res of [screenshot, report]) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(roundTrips(res)).toBe(1);
    }
    for (const res of [screenshot, report]) await waitForJob(ctx.read, res.body.job_id, (s) => s === "done" || s === "failed");
  });

  it("counts the other bindings per request (X-Binding-Round-Trips): the job queued (its link is on its row), then one R2 read to download", async () => {
    const screenshot = await call("POST", "/api/dashboard/screenshot", {
      token: ctx.write,
      body: { provided_id: ctx.customer.provided_id, dashboard_embed_id: ctx.embedId },
    });
    expect(screenshot.headers.get("X-Binding-Round-Trips")).toBe("kv=0 r2=0 queue=1");
    await waitForJob(ctx.read, screenshot.body.job_id, (s) => s === "done");
    const download = await call("GET", new URL(screenshot.body.url).pathname);
    expect(download.status).toBe(200);
    expect(download.headers.get("X-Binding-Round-Trips")).toBe("kv=0 r2=1 queue=0");
  });
});

describe("GET /api/downloads/{token}?wait=<seconds>", () => {
  /** A download link to a job that runs only when the test delivers it. */
  async function linkToUnqueuedJob() {
    const jobId = await unqueuedJob(ctx.customer.provided_id, ctx.embedId, null);
    return { jobId, url: await giveDownloadLink(jobId) };
  }

  it("holds the answer until the job ends, then sends the file (one request instead of polling)", async () => {
    const { jobId, url } = await linkToUnqueuedJob();
    let answered = false;
    const waiting = fetchDownload(`${url}?wait=20`).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false); // still waiting for a job that has not run
    await deliverByHand(jobId, 1);
    const file = await waiting;
    expect(file.status).toBe(200);
    expect(isPng(file.bytes)).toBe(true);
    // The attempt ran in this isolate: it handed the file over with its ending (no R2 read; the
    // download looked at the job row only until the attempt started here).
    expect(file.headers.get("X-Binding-Round-Trips")).toBe("kv=0 r2=0 queue=0");
    expect(file.headers.get("Content-Type")).toBe("image/png");
    expect(file.headers.get("Content-Disposition")).toBe('attachment; filename="manual.png"');
    expect(file.headers.get("Cache-Control")).toBe("no-store");
    expect(watchedJobCount()).toBe(0);
  });

  it("is woken by the attempt running in this isolate: one look at the row, the file from the attempt, no polling meanwhile", async () => {
    const { jobId, url } = await linkToUnqueuedJob();
    // The attempt waits at the capture station until the download watches: it cannot end first.
    const stations = await holdCaptureStations();
    try {
      // The queue's consumer runs the attempt in a Worker invocation of its own, as in production
      // (deliverByHand would run it in the test's own context).
      await (env as unknown as { DELIVERY_QUEUE: Queue }).DELIVERY_QUEUE.send({ jobId });
      const startedBy = Date.now() + 20_000;
      let status = "queued";
      while (status === "queued" && Date.now() < startedBy) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        status = (await jobRow(jobId))?.status ?? "gone";
      }
      expect(status).toBe("rendering"); // the attempt has the job and waits for the station's tab
      const waiting = fetchDownload(`${url}?wait=20`);
      const watchingBy = Date.now() + 5_000;
      while (watchedJobCount() === 0 && Date.now() < watchingBy) await new Promise((resolve) => setTimeout(resolve, 2));
      expect(watchedJobCount()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 200)); // its look at the row done
      expect((await jobRow(jobId))?.status).toBe("rendering");
      await stations.release();
      const file = await waiting;
      expect(file.status).toBe(200);
      expect(isPng(file.bytes)).toBe(true);
      // One look at the row (the job rendering, its attempt here), then nothing but the wake-up:
      // no D1 poll, no R2 read.
      expect(file.headers.get("X-D1-Round-Trips")).toBe("1");
      expect(file.headers.get("X-Binding-Round-Trips")).toBe("kv=0 r2=0 queue=0");
      // The file came before the job was recorded: the attempt stores it and records the end next.
      const doneBy = Date.now() + 5_000;
      while ((await jobRow(jobId))?.status !== "done" && Date.now() < doneBy) await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await jobRow(jobId))?.status).toBe("done");
      expect(watchedJobCount()).toBe(0);
    } finally {
      await stations.release();
    }
  });

  it("learns of an end recorded in another isolate from the job row, and reads the file from R2", async () => {
    const { jobId, url } = await linkToUnqueuedJob();
    let answered = false;
    const waiting = fetchDownload(`${url}?wait=20`).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(answered).toBe(false);
    // Another isolate's attempt: the file stored and the job done, nothing noted on this isolate's board.
    const bytes = new TextEncoder().encode("elsewhere");
    await bindings.FILES.put(`jobs/${jobId}/manual.png`, bytes, { httpMetadata: { contentType: "image/png" } });
    await bindings.DB.prepare("UPDATE jobs SET status = 'done', file_key = ?, content_type = 'image/png' WHERE id = ?")
      .bind(`jobs/${jobId}/manual.png`, jobId)
      .run();
    const ended = Date.now();
    const file = await waiting;
    // Past 1.5 s of waiting the row is looked at every 50 ms: the answer follows the end closely.
    expect(Date.now() - ended).toBeLessThan(1000);
    expect(file.status).toBe(200);
    expect(new TextDecoder().decode(file.bytes)).toBe("elsewhere");
    expect(file.headers.get("X-Binding-Round-Trips")).toBe("kv=0 r2=1 queue=0");
    expect(watchedJobCount()).toBe(0);
  });

  it("looks at the board every millisecond for a second while it waits alone, every 5 to 50 ms (a tenth of its wait) in a crowd", () => {
    const waits = [0, 10, 30, 100, 400, 999, 1000, 5000, 30_000];
    expect(waits.map((waited) => boardWatchPause(waited, 1))).toEqual([1, 1, 1, 1, 1, 1, 50, 50, 50]);
    expect(waits.map((waited) => boardWatchPause(waited, WATCHED_ALONE))).toEqual([1, 1, 1, 1, 1, 1, 50, 50, 50]);
    expect(waits.map((waited) => boardWatchPause(waited, WATCHED_ALONE + 1))).toEqual([5, 5, 5, 10, 40, 50, 50, 50, 50]);
  });

  it("lets the attempt store once its download took the file and had a head start: at most 5 ms for a download alone that does not take it, at once for a crowd or nobody", async () => {
    // A head start far longer than the 5 ms a download alone has to take the file, so that
    // a head start given where none is due shows on any machine, however loaded.
    const headStart = 250;
    const timed = async (jobId: string, hand = (id: string) => takenFromBoard(id, headStart)) => {
      const started = performance.now();
      const handOver = await attemptingHere(jobId, () => hand(jobId));
      return { handOver, waited: performance.now() - started };
    };
    // Nobody watches: at once.
    const nobody = await timed("job_nobody_watches");
    expect(nobody.handOver).toBe("nobody");
    expect(nobody.waited).toBeLessThan(headStart / 2);
    // A download alone that never looks (its watch held open here): the attempt waits its 5 ms, and no head start.
    const alone = watchJob("job_alone");
    try {
      const waited = await timed("job_alone");
      expect(waited.handOver).toBe("not_taken");
      expect(waited.waited).toBeGreaterThanOrEqual(4);
      expect(waited.waited).toBeLessThan(headStart / 2);
    } finally {
      alone.stop();
    }
    // A download that takes the file while the attempt waits for it: its answer goes ahead for
    // the head start. It takes it right after the attempt's first look (a microtask), not on a
    // timer: on a loaded machine a 3 ms timer fired after the attempt's 5 ms had run out.
    const takesWhileWaited = (jobId: string) => {
      const watch = watchJob(jobId);
      queueMicrotask(() => watch.stop());
    };
    takesWhileWaited("job_taken");
    const taken = await timed("job_taken");
    expect(taken.handOver).toBe("head_start");
    expect(taken.waited).toBeGreaterThanOrEqual(headStart - 1);
    // The default head start is what the attempt gives (the same path, its own length).
    takesWhileWaited("job_taken_default");
    const takenDefault = await timed("job_taken_default", (id) => takenFromBoard(id));
    expect(takenDefault.handOver).toBe("head_start");
    expect(takenDefault.waited).toBeGreaterThanOrEqual(ANSWER_HEAD_START_MS - 1);
    // A crowd (more than WATCHED_ALONE jobs watched here): its downloads pace themselves, so no wait at all.
    const crowd = Array.from({ length: WATCHED_ALONE + 1 }, (_, i) => watchJob(`job_crowd_${i}`));
    try {
      const crowded = await timed("job_crowd_0");
      expect(crowded.handOver).toBe("crowd");
      expect(crowded.waited).toBeLessThan(headStart / 2);
    } finally {
      for (const watch of crowd) watch.stop();
    }
    expect(notedJobCount()).toBe(0);
  });

  it("answers 404 when the link expires while its download waits", async () => {
    const jobId = await unqueuedJob(ctx.customer.provided_id, ctx.embedId, null);
    const url = await giveDownloadLink(jobId, 1);
    const started = Date.now();
    const answer = await fetchDownload(`${url}?wait=10`);
    expect(answer.status).toBe(404);
    // After the expiry (1 s), well before the wait's end (10 s).
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(Date.now() - started).toBeLessThan(5000);
    // Control: a link with time left answers 202 at the end of its wait.
    expect((await fetchDownload(`${await giveDownloadLink(jobId, 900)}?wait=1`)).status).toBe(202);
  });

  it("has the file from the attempt here before it is stored and the job recorded; the row says done only after", async () => {
    const { jobId, url } = await linkToUnqueuedJob();
    const waiting = fetchDownload(`${url}?wait=20`);
    const watchingBy = Date.now() + 5_000;
    while (watchedJobCount() === 0 && Date.now() < watchingBy) await new Promise((resolve) => setTimeout(resolve, 2));
    // The attempt's R2 write is held until the download has answered.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const real = deliveryEffects(env as never);
    const effects: DeliveryEffects = {
      ...real,
      store: async (key, bytes, options) => {
        await held;
        return real.store(key, bytes, options);
      },
    };
    const attempt = attemptJob(createDatabase(bindings.DB), env as never, effects, { jobId }, 1);
    try {
      const file = await waiting;
      expect(file.status).toBe(200);
      expect(isPng(file.bytes)).toBe(true);
      expect(file.headers.get("X-Binding-Round-Trips")).toBe("kv=0 r2=0 queue=0");
      expect((await jobRow(jobId))?.status).toBe("rendering");
      expect(await bindings.FILES.head(`jobs/${jobId}/manual.png`)).toBeNull();
      release();
      expect(await attempt).toBe("finished");
      expect((await jobRow(jobId))?.status).toBe("done");
      // Control: a download after the end has the same file, from R2.
      const again = await fetchDownload(url);
      expect(again.status).toBe(200);
      expect(again.headers.get("X-Binding-Round-Trips")).toBe("kv=0 r2=1 queue=0");
      expect(again.bytes).toEqual(file.bytes);
    } finally {
      release();
      await attempt.catch(() => undefined);
    }
  });

  it("gives a download that comes in while the attempt stores the file at its first look; the note goes with the attempt", async () => {
    const { jobId, url } = await linkToUnqueuedJob();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let storing = false;
    const real = deliveryEffects(env as never);
    const effects: DeliveryEffects = {
      ...real,
      store: async (key, bytes, options) => {
        storing = true;
        await held;
        return real.store(key, bytes, options);
      },
    };
    // Nobody waits when the capture is back: the attempt notes the ending all the same.
    const attempt = attemptJob(createDatabase(bindings.DB), env as never, effects, { jobId }, 1);
    try {
      const storingBy = Date.now() + 20_000;
      while (!storing && Date.now() < storingBy) await new Promise((resolve) => setTimeout(resolve, 2));
      expect(storing).toBe(true);
      expect(notedJobCount()).toBe(1);
      expect(watchedJobCount()).toBe(0);
      const file = await fetchDownload(`${url}?wait=20`);
      expect(file.status).toBe(200);
      expect(isPng(file.bytes)).toBe(true);
      // One look at the row (still rendering), then the board: no R2 read.
      expect(file.headers.get("X-D1-Round-Trips")).toBe("1");
      expect(file.headers.get("X-Binding-Round-Trips")).toBe("kv=0 r2=0 queue=0");
      expect((await jobRow(jobId))?.status).toBe("rendering");
      // Control: without wait, the same download answers from the row alone.
      expect((await fetchDownload(url)).status).toBe(202);
    } finally {
      release();
    }
    expect(await attempt).toBe("finished");
    expect((await jobRow(jobId))?.status).toBe("done");
    expect(notedJobCount()).toBe(0);
  });

  it("retries a job whose file could not be stored, though a download waiting here already has it", async () => {
    const { jobId, url } = await linkToUnqueuedJob();
    const waiting = fetchDownload(`${url}?wait=20`);
    const watchingBy = Date.now() + 5_000;
    while (watchedJobCount() === 0 && Date.now() < watchingBy) await new Promise((resolve) => setTimeout(resolve, 2));
    const real = deliveryEffects(env as never);
    const effects: DeliveryEffects = {
      ...real,
      store: async () => {
        throw new Error("R2 unavailable");
      },
    };
    expect(await attemptJob(createDatabase(bindings.DB), env as never, effects, { jobId }, 1)).toBe("retry");
    const file = await waiting;
    expect(file.status).toBe(200);
    expect(isPng(file.bytes)).toBe(true);
    // Nothing is recorded as done without its file: the next attempt stores it.
    expect((await jobRow(jobId))?.status).toBe("queued");
    expect(await bindings.FILES.head(`jobs/${jobId}/manual.png`)).toBeNull();
    expect((await fetchDownload(url)).status).toBe(202);
  });

  it("still answers a link made before download links moved to the job's row (in KV), until it expires", async () => {
    const jobId = await unqueuedJob(ctx.customer.provided_id, ctx.embedId, null);
    const token = "d".repeat(64);
    await bindings.LINKS.put(`download:${await sha256(token)}`, jobId, { expirationTtl: 900 });
    const url = `http://api.test/api/downloads/${token}`;
    expect((await fetchDownload(url)).status).toBe(202);
    await deliverByHand(jobId, 1);
    const file = await fetchDownload(url);
    expect(file.status).toBe(200);
    expect(isPng(file.bytes)).toBe(true);
    // Expired (KV let go of the key): 404, as for a token nobody made.
    await bindings.LINKS.delete(`download:${await sha256(token)}`);
    expect((await fetchDownload(url)).status).toBe(404);
    expect((await fetchDownload(`http://api.test/api/downloads/${"e".repeat(64)}`)).status).toBe(404);
  });

  it("answers 202 with Retry-After when the wait ends before the job", async () => {
    const { url } = await linkToUnqueuedJob();
    const started = Date.now();
    const pending = await fetchDownload(`${url}?wait=1`);
    const waited = Date.now() - started;
    expect(pending.status).toBe(202);
    expect(pending.headers.get("Retry-After")).toBe("2");
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThan(3000);
  });

  it("answers 500 render_failed as soon as the job fails while it waits", async () => {
    const { jobId, url } = await linkToUnqueuedJob();
    const waiting = fetchDownload(`${url}?wait=20`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await bindings.DB.prepare("UPDATE jobs SET status = 'failed', error = 'The dashboard could not be captured.' WHERE id = ?")
      .bind(jobId)
      .run();
    const started = Date.now();
    const failed = await waiting;
    expect(failed.status).toBe(500);
    expect(JSON.parse(new TextDecoder().decode(failed.bytes)).error.code).toBe("render_failed");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("answers at once without wait (wait=0 is the default; an empty wait= is 0)", async () => {
    const { url } = await linkToUnqueuedJob();
    const started = Date.now();
    expect((await fetchDownload(url)).status).toBe(202);
    expect((await fetchDownload(`${url}?wait=0`)).status).toBe(202);
    expect((await fetchDownload(`${url}?wait=`)).status).toBe(202);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it.each(["31", "-1", "abc", "1.5", "1e3"])("refuses wait=%s (400 validation_error on wait), the job untouched", async (wait) => {
    const { jobId, url } = await linkToUnqueuedJob();
    const res = await fetchDownload(`${url}?wait=${wait}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(new TextDecoder().decode(res.bytes)).error).toMatchObject({ code: "validation_error", field: "wait" });
    expect((await bindings.DB.prepare("SELECT status FROM jobs WHERE id = ?").bind(jobId).first<{ status: string }>())?.status).toBe(
      "queued",
    );
  });
});
