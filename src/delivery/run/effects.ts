import type { Env } from "../../env";
import { capture } from "./capture-station";
import type { Capture, CaptureOptions } from "./page-capture";
import type { Mail } from "../mail/mime";
import { sendMail } from "../mail/send";
import { config } from "../../config";

/**
 * What a job does to the world outside the database: capture a page, store the file, send
 * an e-mail.
 * The job logic calls these and nothing else, so tests can inject faults here (with
 * FAULT_INJECTION on) without the job logic knowing.
 */
export interface DeliveryEffects {
  /** `jobId` spreads jobs over the capture stations. */
  capture(html: string, options: CaptureOptions, jobId: string): Promise<Capture>;
  /** Stores the job's file in R2 (FILES). */
  store(key: string, bytes: Uint8Array, options: R2PutOptions): Promise<void>;
  send(mail: Mail, jobId: string): Promise<void>;
  /** Runs right after a send succeeded, before it is recorded (a fault point only). */
  afterSend(jobId: string): Promise<void>;
}

export function deliveryEffects(env: Env): DeliveryEffects {
  const real: DeliveryEffects = {
    capture: (html, options, jobId) => capture(env, html, options, jobId),
    store: async (key, bytes, options) => {
      await env.FILES.put(key, bytes, options);
    },
    send: (mail, jobId) => sendMail(env, mail, jobId),
    afterSend: async () => {},
  };
  return config(env).FAULT_INJECTION ? withInjectedFaults(env, real) : real;
}

/**
 * Test hook (FAULT_INJECTION): KV `fault:<point>` holding a number makes that many calls
 * at that point fail (`browser`: the capture, `send`: the e-mail, `after_send`: the step
 * between a successful send and recording it).
 */
function withInjectedFaults(env: Env, real: DeliveryEffects): DeliveryEffects {
  return {
    capture: async (html, options, jobId) => {
      await fault(env, "browser");
      return real.capture(html, options, jobId);
    },
    store: (key, bytes, options) => real.store(key, bytes, options),
    send: async (mail, jobId) => {
      await fault(env, "send");
      return real.send(mail, jobId);
    },
    afterSend: async (jobId) => {
      await fault(env, "after_send");
      return real.afterSend(jobId);
    },
  };
}

async function fault(env: Env, point: string): Promise<void> {
  const remaining = Number((await env.LINKS.get(`fault:${point}`)) ?? "0");
  if (remaining > 0) {
    await env.LINKS.put(`fault:${point}`, String(remaining - 1));
    throw new Error(`injected ${point} failure`);
  }
}
