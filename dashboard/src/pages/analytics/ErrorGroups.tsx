import { Link } from "react-router";
import type { components } from "../../api/openapi";
import { Table } from "../../ui/Table";
import { typeLabel } from "../../ui/labels";
import { count } from "./format";

type ErrorGroup = components["schemas"]["AnalyticsErrorGroup"];

const when = (at: string) =>
  new Date(at).toLocaleString("en", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false });

/** Failures grouped by provider, code and message, each with an example message to open. */
export function ErrorGroups({ errors }: { errors: ErrorGroup[] }) {
  if (errors.length === 0) return <p className="empty muted">No failures in this period.</p>;
  return (
    <Table className="stack" aria-label="Failures grouped by provider, code and message">
      <thead>
        <tr>
          <th scope="col">Provider</th>
          <th scope="col">Code</th>
          <th scope="col">Message</th>
          <th scope="col" className="num">
            Count
          </th>
          <th scope="col">First seen</th>
          <th scope="col">Last seen</th>
          <th scope="col">Example</th>
        </tr>
      </thead>
      <tbody>
        {errors.map((e) => (
          <tr key={`${e.channel}:${e.provider}:${e.code}:${e.message}`} data-code={e.code}>
            <td data-label="Provider">
              {e.provider ?? <span className="muted">none</span>} <span className="muted small">({typeLabel(e.channel)})</span>
            </td>
            <td data-label="Code">
              <code>{e.code}</code>
            </td>
            <td data-label="Message" className="wrap">
              {e.message}
            </td>
            <td data-label="Count" className="num">
              {count(e.count)}
            </td>
            <td data-label="First seen" className="nowrap">
              <time dateTime={e.firstSeen}>{when(e.firstSeen)}</time>
            </td>
            <td data-label="Last seen" className="nowrap">
              <time dateTime={e.lastSeen}>{when(e.lastSeen)}</time>
            </td>
            <td data-label="Example">
              <Link to={`/activity/messages/${encodeURIComponent(e.exampleMessageId)}`} aria-label={`Example message of ${e.code}`}>
                {e.exampleMessageId}
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
