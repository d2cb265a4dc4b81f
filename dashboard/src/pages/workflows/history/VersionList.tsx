import { useInfiniteQuery } from "@tanstack/react-query";
import { useApi } from "../../../api/context";
import { DataList } from "../../../ui/DataList";
import { versionsQuery } from "./queries";
import { Author, When } from "./VersionMeta";
import { Button } from "../../../ui/Button";
import { Checkbox } from "../../../ui/Input";
import { Badge } from "../../../ui/Badge";
import { Card } from "../../../ui/Card";

/**
 * A workflow's versions, newest first, a page at a time. Ticking two compares them; each row can
 * be viewed, compared with the one before it, or restored.
 */
export function VersionList({
  workflowKey,
  current,
  picked,
  onPick,
  onView,
  onCompare,
  onRevert,
  reverting,
}: {
  workflowKey: string;
  current: number;
  picked: number[];
  onPick: (picked: number[]) => void;
  onView: (n: number) => void;
  onCompare: (from: number, to: number) => void;
  onRevert: (n: number) => void;
  reverting: boolean;
}) {
  const api = useApi();
  const list = useInfiniteQuery(versionsQuery(api, workflowKey));
  // A third tick lets go of the older of the two before it.
  const toggle = (n: number, on: boolean) => onPick(on ? [...picked.filter((p) => p !== n), n].slice(-2) : picked.filter((p) => p !== n));
  const pair = picked.length === 2 ? ([Math.min(...picked), Math.max(...picked)] as const) : null;
  return (
    <Card className="version-list" aria-labelledby="versions-title">
      <div className="compare-head">
        <h2 id="versions-title">Versions</h2>
        <Button type="button" disabled={!pair} onClick={() => pair && onCompare(pair[0], pair[1])}>
          {pair ? `Compare ${pair[0]} and ${pair[1]}` : "Tick two versions to compare"}
        </Button>
      </div>
      <DataList
        list={list}
        what="versions"
        empty="No versions yet."
        more="Older versions"
        columns={[{ label: "Compare" }, "Version", "Saved", "By", "What changed", { label: "Actions" }]}
        row={(v) => (
          <tr key={v.version} data-version={v.version}>
            <td>
              <Checkbox
                aria-label={`Compare version ${v.version}`}
                checked={picked.includes(v.version)}
                onChange={(e) => toggle(v.version, e.target.checked)}
              />
            </td>
            <td>
              {v.version} {v.version === current ? <Badge tone="ok">current</Badge> : null}
            </td>
            <td>
              <When iso={v.createdAt} />
            </td>
            <td>
              <Author version={v} />
            </td>
            <td className="summary">{v.summary}</td>
            <td className="row-actions">
              <Button type="button" onClick={() => onView(v.version)} aria-label={`View version ${v.version}`}>
                View
              </Button>
              {v.version > 1 ? (
                <Button type="button" onClick={() => onCompare(v.version - 1, v.version)} aria-label={`Changes in version ${v.version}`}>
                  Changes
                </Button>
              ) : null}
              {v.version !== current ? (
                <Button
                  type="button"
                  disabled={reverting}
                  onClick={() => onRevert(v.version)}
                  aria-label={`Revert to version ${v.version}`}
                >
                  Revert…
                </Button>
              ) : null}
            </td>
          </tr>
        )}
      />
    </Card>
  );
}
