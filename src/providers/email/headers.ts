/** `{ Name: Value }` as the `[{ Name, Value }]` list Postmark and SES take. */
export const headerList = (headers: Record<string, string> | undefined) =>
  Object.entries(headers ?? {}).map(([Name, Value]) => ({ Name, Value }));

/** Only when there are any: an empty `headers` object is noise some providers reject. */
export const headersField = <K extends string>(name: K, headers: Record<string, string> | undefined) =>
  headers && Object.keys(headers).length > 0 ? ({ [name]: headers } as Record<K, Record<string, string>>) : {};
