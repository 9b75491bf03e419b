// Calls to a running `npm start` as a vendor's backend makes them (the DEV_API_TOKEN of its
// .dev.vars), shared by the e2e tests.

/** POST `path` with `body` as JSON; resolves with the status and the parsed answer. */
export function devApi(base: string, token: string) {
  return async (path: string, body: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Service-Authorization": `Token ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
}

/**
 * Requests a screenshot (`POST /api/dashboard/screenshot` with `request`) and downloads the
 * file through its link, waiting on the link (`?wait=20`) up to two minutes.
 */
export async function capturedFile(base: string, token: string, request: Record<string, unknown>): Promise<Uint8Array> {
  const job = await devApi(base, token)("/api/dashboard/screenshot", request);
  if (job.status !== 200) throw new Error(`screenshot refused: ${job.status} ${JSON.stringify(job.body)}`);
  // The link names the host the server was asked by; the server listens on 127.0.0.1.
  const link = `${job.body.url}?wait=20`.replace("http://localhost", "http://127.0.0.1");
  for (let i = 0; i < 6; i++) {
    const file = await fetch(link);
    if (file.status === 200) return new Uint8Array(await file.arrayBuffer());
    if (file.status !== 202) throw new Error(`download answered ${file.status}: ${await file.text()}`);
  }
  throw new Error("the screenshot was not ready within two minutes");
}
