// What `npm start` (scripts/start.mjs) prints of wrangler's output, and the Chromiums it ends.
//
// wrangler dev prints its bindings table twice, notes about types and Cron Triggers, and its
// own line per request (the Worker logs each request itself, as JSON): some ninety lines that
// buried the banner. Until the banner is printed everything is held back; then only what is
// worth reading of it (errors, warnings, the Worker's warn and error log lines) comes out,
// before the banner. After it, every line passes but wrangler's known noise. VERBOSE=1 passes
// everything through as wrangler wrote it.
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are what this strips.
const ANSI = /\x1b\[[0-9;]*m/g;

/** wrangler's lines nobody needs to read locally (matched without colour codes). */
const NOISE = [
  /^\s*⛅️ wrangler /,
  /^─+$/,
  /^\[custom build\]/,
  /^Using secrets defined in /,
  /^Your Worker has access to the following bindings:/,
  /^Binding\s+Resource\s+Mode/,
  /^env\.[A-Z0-9_]+[\s(]/,
  /^❓ Your types might be out of date/,
  /Scheduled Workers are not automatically triggered/,
  /^\s*To manually trigger a scheduled event/,
  /^\s*curl "http:\/\/127\.0\.0\.1:\d+\/cdn-cgi\/local\/scheduled"/,
  /^\s*For more details, see https:\/\/developers\.cloudflare\.com\/workers\/configuration\/cron-triggers/,
  /^⎔ /,
  /^\[wrangler:info\] Ready on /,
  // wrangler's own line per request; the Worker's JSON request log says the same and more.
  /^\[wrangler:info\] (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \S+ \d{3} /,
  /Unable to fetch the `Request\.cf` object/,
  /getaddrinfo ENOTFOUND/,
];

/** Held lines that still come out before the banner. */
const WORTH_READING = /\[ERROR\]|✘|\[WARNING\]|"level":"(warn|error)"|^Error\b|^\s*at /;

export function isNoise(line) {
  const plain = line.replace(ANSI, "");
  return NOISE.some((pattern) => pattern.test(plain));
}

/**
 * The filter between wrangler and this terminal: `follow(from, to)` for each of its streams,
 * `quiet(ms, max)` resolves once nothing came for `ms` (at most `max`), `release()` prints
 * what was held back that is worth reading and lets later lines through.
 */
export function wranglerOutput({ verbose = false } = {}) {
  let released = false;
  let lastLine = Date.now();
  /** @type {{ line: string, to: NodeJS.WritableStream }[]} */
  const held = [];
  let afterNoise = false;
  const write = (line, to) => {
    lastLine = Date.now();
    if (verbose) return void to.write(`${line}\n`);
    // A stack trace under a line left out goes with it.
    if (afterNoise && /^\s+at /.test(line.replace(ANSI, ""))) return;
    afterNoise = isNoise(line);
    if (afterNoise) return;
    if (!released) held.push({ line, to });
    else to.write(`${line}\n`);
  };
  return {
    follow(from, to) {
      let rest = "";
      from.setEncoding("utf8");
      from.on("data", (chunk) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) write(line, to);
      });
      from.on("end", () => {
        if (rest) write(rest, to);
        rest = "";
      });
    },
    async quiet(ms, max) {
      const started = Date.now();
      while (Date.now() - lastLine < ms && Date.now() - started < max) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    release() {
      if (released) return;
      released = true;
      for (const { line, to } of held) if (line.trim() !== "" && WORTH_READING.test(line.replace(ANSI, ""))) to.write(`${line}\n`);
      held.length = 0;
    },
    /** Everything held back (wrangler exited before the banner: the reason is in there). */
    flush() {
      for (const { line, to } of held) to.write(`${line}\n`);
      held.length = 0;
      released = true;
    },
  };
}

/**
 * Ends every Chromium whose pid the wrapper wrote into `dir` (scripts/ensure-chrome.mjs), with
 * its renderers: each leads a process group of its own. Then removes `dir`.
 */
export function stopChromiums(dir) {
  let pids = [];
  try {
    pids = readdirSync(dir)
      .map(Number)
      .filter((pid) => pid > 1);
  } catch {}
  for (const pid of pids) {
    if (!startedWith(pid, dir)) continue; // gone already, and its pid perhaps another process's now
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {}
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Whether process `pid` is one this server started: its environment names `dir` (where /proc tells). */
function startedWith(pid, dir) {
  if (!existsSync("/proc/self/environ")) return true;
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`LOCAL_CHROME_PIDS=${dir}`);
  } catch {
    return false;
  }
}
