import { ApiError } from "../api/problem";

/** Any failure in words: a problem document's title, detail and field errors, with a hint for the usual causes. */
export function ProblemView({ error }: { error: unknown }) {
  if (!(error instanceof ApiError)) {
    return (
      <div className="problem" role="alert">
        <strong>Something went wrong</strong>
        <p>{error instanceof Error ? error.message : String(error)}</p>
      </div>
    );
  }
  const p = error.problem;
  const hint =
    p.status === 401
      ? "The credential is not valid here: it may have been revoked or have expired. Sign in again."
      : p.status === 0
        ? "Is the Worker running?"
        : p.status === 429
          ? `Too many of these in a short time. ${p.retryAfterSeconds === undefined ? "Wait a minute" : `Try again in ${p.retryAfterSeconds} s`}.`
          : null;
  return (
    <div className="problem" role="alert" data-code={p.code}>
      <strong>{p.status ? `${p.status} ${p.title}` : p.title}</strong>
      <p>{p.detail}</p>
      {p.errors?.length ? (
        <ul>
          {p.errors.map((e) => (
            <li key={`${e.path}:${e.message}`}>
              <code>{e.path || "(body)"}</code> {e.message}
            </li>
          ))}
        </ul>
      ) : null}
      {hint ? <p className="hint">{hint}</p> : null}
      {p.requestId ? <p className="muted small">Request id: {p.requestId}</p> : null}
    </div>
  );
}
