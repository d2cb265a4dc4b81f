import { ApiError } from "../api/problem";

/** The value at a problem's dotted field path (`steps.0.template.subject`) in a request body. */
function valueAt(body: unknown, path: string): unknown {
  if (path === "(root)" || path === "(body)" || path === "") return undefined;
  let value: unknown = body;
  for (const part of path.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A save's error as it still stands: field errors whose field has changed since the request that
 * failed are dropped (the person fixed it, or is fixing it), and a 422 whose every field error is
 * gone is no error at all. Any other error stands until the next attempt.
 */
export function standingError(error: unknown, submitted: unknown, current: unknown): unknown {
  if (!(error instanceof ApiError) || !error.problem.errors?.length || submitted === undefined) return error;
  const errors = error.problem.errors.filter((e) => same(valueAt(submitted, e.path), valueAt(current, e.path)));
  if (errors.length === error.problem.errors.length) return error;
  return errors.length ? new ApiError({ ...error.problem, errors }) : null;
}
