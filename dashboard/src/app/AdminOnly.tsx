import type { ReactNode } from "react";
import { useSession } from "../session/session";
import { Button } from "../ui/Button";

/** A page of the admin credential: signed in with an environment's key, it says what it needs instead of "not found". */
export function AdminOnly({ children }: { children: ReactNode }) {
  const { who, signOut } = useSession();
  if (who?.kind === "admin") return children;
  return (
    <div className="empty" data-testid="admin-only">
      <h1>This page needs the admin credential</h1>
      <p className="muted">
        Environments, API keys and promotion between environments are managed with the admin credential (<code>clarion_admin_…</code>). You
        are signed in with an API key, which reaches its own environment only.
      </p>
      <Button type="button" onClick={() => void signOut()}>
        Sign out to use the admin credential
      </Button>
    </div>
  );
}
