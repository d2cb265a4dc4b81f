/**
 * What `npm start` shows of wrangler's line per request: API requests, not the dashboard's and
 * the API reference's static files (in 13 minutes of dashboard use they were two lines in three).
 * `CLARION_LOG_ASSETS=true npm start` shows them too.
 */

// Served from the assets directory (dashboard/dist), or the pages a browser loads them with.
const STATIC_PATH = /^\/(dashboard(\/|$)|docs(\/|$)|favicon\.svg$)/;
// wrangler's request line, e.g. "[wrangler:info] GET /v1/workflows 200 OK (12ms)", maybe coloured.
const REQUEST_LINE = /^\[wrangler:info\] [A-Z]+ (\S+) \d{3}\b/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are what is being removed
const ANSI = /\x1b\[[0-9;]*m/g;

/** Whether `line` (one line of wrangler's output) is a request for a static file. */
export function isStaticRequestLine(line) {
  const path = REQUEST_LINE.exec(line.replace(ANSI, ""))?.[1];
  return path !== undefined && STATIC_PATH.test(path);
}

/**
 * A filter for a stream's chunks: whole lines pass through unless they are a static file's
 * request line (`logAssets` keeps those); a partial line waits for its end.
 * @param {{ logAssets: boolean }} options
 * @returns {(chunk: string | Buffer) => string} what to write of this chunk
 */
export function requestLogFilter({ logAssets }) {
  if (logAssets) return (chunk) => String(chunk);
  let partial = "";
  return (chunk) => {
    const text = partial + chunk;
    const end = text.lastIndexOf("\n") + 1;
    partial = text.slice(end);
    return text
      .slice(0, end)
      .split(/(?<=\n)/)
      .filter((line) => !isStaticRequestLine(line))
      .join("");
  };
}
