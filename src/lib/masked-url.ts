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

/**
 * A URL without its userinfo's secret: `https://user:***@host/…`. Endpoints saved before URLs with
 * credentials were refused may still hold one; the API shows them without it.
 */
export function withoutPassword(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!url.password && !url.username) return value;
  // A lone username (`https://t0ken@host`) is as likely to be the secret as a password is.
  if (url.password) url.password = "***";
  else url.username = "***";
  return url.href;
}
