import { Link, useLocation } from "react-router";

export function NotFound() {
  const { pathname } = useLocation();
  return (
    <div className="empty" data-testid="not-found">
      <h1>Page not found</h1>
      <p className="muted">
        Nothing lives at <code>{pathname}</code>.
      </p>
      <Link to="/">Back to the start</Link>
    </div>
  );
}
