// `wrangler dev` does not fire Cron Triggers by itself (it only offers an endpoint that
// fires the `scheduled` handler once). Deployed, Cloudflare fires `[triggers] crons` every
// minute; locally `npm start` does the same through that endpoint, at the start of every
// minute, so report schedules run with no manual step. The slot claims in D1 make an extra
// or a repeated tick harmless.

/** Fires `scheduled` at `base` every minute; returns a function that stops it. */
export function startLocalCron(base, { cron = "* * * * *", onError = (error) => console.error(`local cron: ${error.message}`) } = {}) {
  let timer;
  const fire = async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    try {
      const response = await fetch(`${base}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(cron)}&time=${minute}`);
      await response.text();
      if (!response.ok) throw new Error(`scheduled answered ${response.status}`);
    } catch (error) {
      onError(error);
    }
  };
  const schedule = () => {
    timer = setTimeout(
      async () => {
        await fire();
        schedule();
      },
      60_000 - (Date.now() % 60_000) + 250,
    );
  };
  fire();
  schedule();
  return () => clearTimeout(timer);
}
