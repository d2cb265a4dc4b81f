// The CLI's one way to reach Clarion: JSON over fetch, problems turned into readable errors.

/** A problem+json answer (or a network failure) as one error with the server's own words. */
export class ClarionError extends Error {
  /**
   * @param {string} message
   * @param {number} [status]
   * @param {string} [code]
   * @param {{ path: string, message: string }[]} [errors] the problem's field errors
   */
  constructor(message, status, code, errors = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.errors = errors;
  }

  /** The message, then one line per field error: what to fix, without `--json`. */
  lines() {
    return [this.message, ...this.errors.map((e) => `  ${e.path}: ${e.message}`)];
  }
}

/**
 * @typedef {{ url: string, credential: string | undefined, fetch?: typeof fetch }} ClientOptions
 * @typedef {(method: string, path: string, body?: unknown, extraHeaders?: Record<string, string>) => Promise<any>} Request
 */

/**
 * @param {ClientOptions} options
 * @returns {Request}
 */
export function client({ url, credential, fetch: fetchImpl = fetch }) {
  const base = url.replace(/\/+$/, "");
  return async (method, path, body, extraHeaders = {}) => {
    /** @type {Record<string, string>} */
    const headers = { accept: "application/json", ...extraHeaders };
    if (credential) headers.authorization = `ApiKey ${credential}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res;
    try {
      res = await fetchImpl(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new ClarionError(`Cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const text = await res.text();
    const parsed = text ? safeJson(text) : null;
    if (!res.ok) {
      const detail = parsed && typeof parsed === "object" && "detail" in parsed ? String(parsed.detail) : text || res.statusText;
      const code = parsed && typeof parsed === "object" && "code" in parsed ? String(parsed.code) : undefined;
      const errors = parsed && typeof parsed === "object" && Array.isArray(parsed.errors) ? parsed.errors.filter(isFieldError) : [];
      throw new ClarionError(`${method} ${path}: ${res.status}${code ? ` ${code}` : ""}: ${detail}`, res.status, code, errors);
    }
    return parsed;
  };
}

/** @param {unknown} e @returns {e is { path: string, message: string }} */
const isFieldError = (e) => typeof e === "object" && e !== null && typeof e.path === "string" && typeof e.message === "string";

/** @param {string} text */
function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Every item of a paginated list, following `nextCursor`.
 * @param {Request} request
 * @param {string} path
 */
export async function listAll(request, path) {
  const items = [];
  let cursor = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const page = await request("GET", `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    items.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}
