/**
 * A URL as a log may keep it: query values and any password replaced by `***`, so that a token a
 * receiver put in its URL (`?token=…`) is not kept for the audit log's year. The names stay, so a
 * reader still sees what changed. A bare query word (`?s3cr3t`) may itself be the token: a pair without a value is masked whole.
 */
export function maskedUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.password) url.password = "***";
  if (url.search) {
    url.search = [...url.searchParams].map(([name, v]) => (v === "" ? "***" : `${encodeURIComponent(name)}=***`)).join("&");
  }
  return url.href;
}
