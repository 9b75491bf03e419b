// What the e2e tests of the pages a customer's viewer or an e-mail's recipient opens share: the
// real `npm start` on a free port and the local Chromium (puppeteer-core), started before the
// file's tests and stopped after them; screenshots go to test-results/; the server's API called
// as the vendor's backend, and the e-mails it sent read from its local outbox.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, expect } from "vitest";
import { launchBrowser } from "../../scripts/lib/chromium.mjs";
import { freePort, startLocalServer } from "../../scripts/lib/local-server.mjs";

/** Where the tests' screenshots go. */
export const shots = join(import.meta.dirname, "..", "..", "test-results");

/** The server and the browser of this test file (their hooks registered by the call), with its API and outbox. */
export function serverAndBrowser() {
  let server: Awaited<ReturnType<typeof startLocalServer>>;
  let browser: Browser;
  beforeAll(async () => {
    server = await startLocalServer({ port: await freePort() });
    browser = await launchBrowser();
    mkdirSync(shots, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  return {
    get server() {
      return server;
    },
    get browser() {
      return browser;
    },
    /** GET `path`, or POST `body` as JSON, with the development API token; the parsed answer. */
    async api(path: string, body?: unknown): Promise<any> {
      const res = await fetch(`${server.base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "Service-Authorization": `Token ${server.vars.DEV_API_TOKEN}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.json();
    },
    /** The raw e-mail sent to `to`, from the local outbox (newest first). */
    async mailTo(to: string): Promise<string> {
      const list = await (await fetch(`${server.base}/_dev/outbox`)).text();
      const row = list.split("<tr>").find((r) => r.includes(to));
      const href = row?.match(/href="(\/_dev\/outbox\/[^"]+)"/)?.[1];
      expect(href, `no e-mail to ${to} in the outbox`).toBeDefined();
      return (await fetch(`${server.base}${href}`)).text();
    },
  };
}
