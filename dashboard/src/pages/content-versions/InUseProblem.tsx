import { Link } from "react-router";
import { ApiError } from "../../api/problem";
import { ProblemView } from "../../ui/ProblemView";

/** `workflows.<key>…`, `layouts.<key>…`, `partials.<key>…`: the page that holds the reference. */
function pageOf(path: string): { to: string; label: string } | null {
  const [area, key] = path.split(".");
  if (!key || (area !== "workflows" && area !== "layouts" && area !== "partials")) return null;
  return { to: `/${area}/${key}`, label: `${area.slice(0, -1)} ${key}` };
}

/**
 * A delete refused because something still uses the layout or partial (409 `layout_in_use`,
 * `partial_in_use`): what uses it, each a link to where to change it. Any other failure as usual.
 */
export function InUseProblem({ error, what }: { error: unknown; what: string }) {
  if (!(error instanceof ApiError) || (error.problem.code !== "layout_in_use" && error.problem.code !== "partial_in_use"))
    return <ProblemView error={error} />;
  const users = error.problem.errors ?? [];
  return (
    <div className="problem" role="alert" data-code={error.problem.code}>
      <strong>{what} is still in use</strong>
      <p>Nothing was deleted. Change these first, then delete it:</p>
      <ul>
        {users.map((u) => {
          const page = pageOf(u.path);
          return (
            <li key={u.path} data-in-use={u.path}>
              {page ? <Link to={page.to}>{page.label}</Link> : <code>{u.path}</code>} <span className="muted">{u.message}</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
