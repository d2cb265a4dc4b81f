import type { IntegrationCheck } from "./queries";

/** A check's verdict: whether the provider itself was asked (`remote`) or only the credentials' form was. */
export function CheckResult({ result }: { result: IntegrationCheck }) {
  return (
    <div className="check-result" role="status" data-ok={result.ok}>
      <span className={`badge ${result.ok ? "ok" : "bad"}`}>{result.ok ? "OK" : "Failed"}</span>{" "}
      <span className="muted small">{result.mode === "remote" ? "asked the provider" : "form only"}</span>
      <p className="small">{result.detail}</p>
    </div>
  );
}
