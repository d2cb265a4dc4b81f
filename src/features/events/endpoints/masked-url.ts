// How an endpoint's URL is shown: receivers put secrets in URLs (`user:pass@`, `?token=…`), and
// the API's answers, outbound events and the audit log (kept a year) must not repeat them.

/** `value` with `change` applied, if it parses as a URL; otherwise as it is. */
function edited(value: string, change: (url: URL) => void): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  change(url);
  return url.href;
}

/** A password, or a lone username (`https://t0ken@host`, as likely the secret), becomes `***`. */
function maskUserinfo(url: URL) {
  if (url.password) url.password = "***";
  else if (url.username) url.username = "***";
}

/**
 * A URL without its userinfo's secret: `https://user:***@host/…`. Endpoints saved before URLs with
 * credentials were refused may still hold one; the API and events show them without it.
 */
export const withoutPassword = (value: string): string => edited(value, maskUserinfo);

/**
 * A URL as a log may keep it: its userinfo's secret and its query values replaced by `***`. The
 * names stay, so a reader still sees what changed. A bare query word (`?s3cr3t`) may itself be the
 * token: a pair without a value is masked whole.
 */
export const maskedUrl = (value: string): string =>
  edited(value, (url) => {
    maskUserinfo(url);
    if (url.search) {
      url.search = [...url.searchParams].map(([name, v]) => (v === "" ? "***" : `${encodeURIComponent(name)}=***`)).join("&");
    }
  });
