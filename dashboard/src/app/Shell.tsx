import { useState } from "react";
import { NavLink, Outlet } from "react-router";
import { useSession } from "../session/session";
import { FEATURES } from "./features";

/** Header and navigation around every page; on a phone the navigation folds behind a Menu button. */
export function Shell() {
  const { signOut } = useSession();
  const [open, setOpen] = useState(false);
  return (
    <>
      <header className="top">
        <NavLink to="/" className="brand">
          Clarion
        </NavLink>
        <button type="button" className="menu" aria-expanded={open} aria-controls="main-nav" onClick={() => setOpen(!open)}>
          Menu
        </button>
        <nav id="main-nav" className={open ? "open" : undefined} aria-label="Main">
          {FEATURES.map(({ nav }) => (
            <NavLink key={nav.to} to={nav.to} onClick={() => setOpen(false)}>
              {nav.label}
            </NavLink>
          ))}
        </nav>
        <div className="session">
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main className="page">
        <Outlet />
      </main>
    </>
  );
}
