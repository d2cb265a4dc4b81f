import { Suspense, useState } from "react";
import { NavLink, Outlet } from "react-router";
import { useSession } from "../session/session";
import { Loading } from "../ui/Loading";
import { FEATURES } from "./features";
import { Button } from "../ui/Button";
import { Select } from "../ui/Select";

/** Which environment every page works in: a choice for the admin credential, a fixed name for an environment's key. */
function EnvironmentSwitcher() {
  const { who, environment, setEnvironment } = useSession();
  if (!who) return null;
  if (who.kind === "environment") {
    const only = who.environments[0];
    return (
      <span className="environment fixed" data-testid="environment" title="An environment's API key reaches that environment only">
        <span className="muted">Environment</span> <strong>{only?.name ?? environment}</strong>
      </span>
    );
  }
  if (who.environments.length === 0) {
    return (
      <span className="environment" data-testid="environment">
        <span className="muted">No environment yet</span>
      </span>
    );
  }
  return (
    <label className="environment" data-testid="environment">
      <span className="muted">Environment</span>
      <Select id="environment" value={environment} onChange={(e) => setEnvironment(e.target.value)}>
        {who.environments.map((e) => (
          <option key={e.slug} value={e.slug}>
            {e.name === e.slug ? e.slug : `${e.name} (${e.slug})`}
          </option>
        ))}
      </Select>
    </label>
  );
}

/** Header and navigation around every page; on a phone the navigation folds behind a Menu button. */
export function Shell() {
  const { who, signOut } = useSession();
  const [open, setOpen] = useState(false);
  const features = FEATURES.filter((feature) => !feature.adminOnly || who?.kind === "admin").flatMap(({ nav }) => (nav ? [{ nav }] : []));
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="top">
        <NavLink to="/" className="brand">
          Clarion
        </NavLink>
        <Button type="button" className="menu" aria-expanded={open} aria-controls="main-nav" onClick={() => setOpen(!open)}>
          Menu
        </Button>
        <nav id="main-nav" className={open ? "open" : undefined} aria-label="Main">
          {features.map(({ nav }) => (
            <NavLink key={nav.to} to={nav.to} onClick={() => setOpen(false)}>
              {nav.label}
              {nav.extra}
            </NavLink>
          ))}
        </nav>
        <div className="session">
          <EnvironmentSwitcher />
          <Button type="button" onClick={() => void signOut()}>
            Sign out
          </Button>
        </div>
      </header>
      <main className="page" id="main" tabIndex={-1}>
        <Suspense fallback={<Loading what="the page" />}>
          <Outlet />
        </Suspense>
      </main>
    </>
  );
}
