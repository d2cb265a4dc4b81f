import type { IntegrationCheck } from "./queries";
import { Badge } from "../../ui/Badge";

/** A check's verdict: whether the provider itself was asked (`remote`) or only the credentials' form was. */
export function CheckResult({ result }: { result: IntegrationCheck }) {
  return (
    <div className="check-result" role="status" data-ok={result.ok}>
      <Badge tone={result.ok ? "ok" : "bad"}>{result.ok ? "OK" : "Failed"}</Badge>{" "}
      <span className="muted small">{result.mode === "remote" ? "asked the provider" : "form only"}</span>
      <p className="small">{result.detail}</p>
    </div>
  );
}
