import { MCP_SCOPES, type McpScope } from "../../../../src/contract/api-keys";
import { Checkbox } from "../../ui/Input";

const SCOPE_LABELS: Record<McpScope, string> = {
  read: "read: workflows, subscribers, messages, triggers, docs",
  trigger: "trigger: send and cancel",
  propose: "propose: changes a person applies",
  manage: "manage: apply proposals, promote (dry run)",
};

/**
 * The new key's kind: an API key, or an MCP key for an AI assistant, which works only at /mcp
 * and only for the tools of the scopes ticked here (`scopes` null: an API key).
 */
export function McpKeyOptions({
  scopes,
  onChange,
  error,
}: {
  scopes: McpScope[] | null;
  onChange: (scopes: McpScope[] | null) => void;
  error?: string;
}) {
  const chosen = new Set(scopes ?? []);
  const toggle = (scope: McpScope, on: boolean) => onChange(MCP_SCOPES.filter((s) => (s === scope ? on : chosen.has(s))));
  return (
    <fieldset className="mcp-key-options" aria-invalid={error ? true : undefined}>
      <legend className="small">Kind</legend>
      <label>
        <Checkbox checked={scopes !== null} onChange={(e) => onChange(e.target.checked ? ["read"] : null)} /> MCP key for an AI assistant
        (only <code>/mcp</code>)
      </label>
      {scopes !== null ? (
        <fieldset className="mcp-scopes" aria-label="MCP scopes">
          {MCP_SCOPES.map((scope) => (
            <label key={scope}>
              <Checkbox checked={chosen.has(scope)} onChange={(e) => toggle(scope, e.target.checked)} /> {SCOPE_LABELS[scope]}
            </label>
          ))}
        </fieldset>
      ) : null}
      {error ? <p className="field-error small">{error}</p> : null}
    </fieldset>
  );
}
