import { ago } from "../when";
import type { WorkflowVersion } from "./queries";

const BY = { key: "API key", admin: "admin credential", dashboard: "dashboard" } as const;

/** Who wrote a version (an API key's name, the admin, a dashboard session), and its type on hover. */
export function Author({ version }: { version: WorkflowVersion }) {
  return <span title={`${BY[version.author.type]}${version.author.id ? ` ${version.author.id}` : ""}`}>{version.author.name}</span>;
}

export function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {ago(iso)}
    </time>
  );
}

/** "Version 3 · Ada · 2 minutes ago": a column head of the diff. */
export function VersionHead({ n, version }: { n: number; version: WorkflowVersion | undefined }) {
  return (
    <>
      Version {n}
      {version ? (
        <span className="muted small">
          {" "}
          · <Author version={version} /> · <When iso={version.createdAt} />
        </span>
      ) : null}
    </>
  );
}
