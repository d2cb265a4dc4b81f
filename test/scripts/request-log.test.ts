import { describe, expect, it } from "vitest";
import { requestLogFilter } from "../../scripts/request-log.mjs";

// wrangler's output as `npm start` receives it: a line per request, as wrangler 4 prints them.
const lines = [
  "[wrangler:info] GET /dashboard/ 200 OK (28ms)\n",
  "[wrangler:info] GET /dashboard/assets/index-ByixHFlu.js 200 OK (6ms)\n",
  "[wrangler:info] GET /v1/workflows 200 OK (12ms)\n",
  "\x1b[0m[wrangler:info] \x1b[1mGET\x1b[22m /favicon.svg \x1b[32m200 OK\x1b[39m (2ms)\n",
  "[wrangler:info] GET /docs/scalar-api-reference.js 304 Not Modified (3ms)\n",
  "[wrangler:info] POST /novu/v1/inbox/session 201 Created (40ms)\n",
  '{"level":"info","msg":"retention","rows":3}\n',
];

describe("npm start's request lines", () => {
  it("prints API requests and the Worker's logs, not the static files", () => {
    const filter = requestLogFilter({ logAssets: false });
    expect(filter(lines.join(""))).toBe(lines[2]! + lines[5]! + lines[6]!);
  });

  it("waits for the end of a line split across chunks", () => {
    const filter = requestLogFilter({ logAssets: false });
    const text = lines.join("");
    const printed = [text.slice(0, 30), text.slice(30, 140), text.slice(140)].map(filter).join("");
    expect(printed).toBe(lines[2]! + lines[5]! + lines[6]!);
  });

  it("prints every request with CLARION_LOG_ASSETS=true", () => {
    expect(requestLogFilter({ logAssets: true })(lines.join(""))).toBe(lines.join(""));
  });
});
