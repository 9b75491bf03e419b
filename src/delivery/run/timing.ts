import { stage, stageParts, timeStages } from "../../lib/stages";
import type { DeliveryEffects } from "./effects";

/**
 * Runs one attempt on the stage clock of `npm run bench:delivery` (src/lib/stages.ts, read at
 * /_dev/delivery-stages/<job>). The clock sits here, at the attempt's edge: the attempt gets
 * effects that mark a stage as each is reached, and the job's own code knows nothing of it.
 * The stages: `render` ends when the capture starts (a retry's claim runs alongside the
 * render and counts towards it; a spreadsheet has no capture, so its building counts
 * towards `r2`); `browser_connect`, `page_load` and `capture` are the station's call and
 * what it measured inside; `r2` the stored file; `send` the e-mail; `job_update` whatever
 * follows until the attempt ends (recording it).
 */
export function timedAttempt<T>(jobId: string, effects: DeliveryEffects, attempt: (effects: DeliveryEffects) => Promise<T>): Promise<T> {
  return timeStages(jobId, async () => {
    const result = await attempt(timed(effects));
    stage("job_update");
    return result;
  });
}

function timed(effects: DeliveryEffects): DeliveryEffects {
  return {
    capture: async (html, options, jobId) => {
      stage("render");
      const captured = await effects.capture(html, options, jobId);
      stageParts({ page_load: captured.timing?.loadMs ?? 0, capture: captured.timing?.shotMs ?? 0 }, "browser_connect");
      return captured;
    },
    store: async (key, bytes, options) => {
      await effects.store(key, bytes, options);
      stage("r2");
    },
    send: async (mail, jobId) => {
      await effects.send(mail, jobId);
      stage("send");
    },
    afterSend: (jobId) => effects.afterSend(jobId),
  };
}
