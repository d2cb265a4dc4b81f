import { useSession } from "../session/session";
import { Button } from "../ui/Button";

/**
 * A link to an environment this session cannot open: said in words, rather than opening another
 * environment whose pages would then answer "not found" for what the link names.
 */
export function EnvironmentRefused({ slug }: { slug: string }) {
  const { who, environment, setEnvironment, signOut } = useSession();
  const current = who?.environments.find((e) => e.slug === environment);
  return (
    <main className="page" id="main">
      <div className="empty" data-testid="environment-refused">
        {who?.kind === "environment" ? (
          <>
            <h1>This link is for the {slug} environment</h1>
            <p className="muted">
              You are signed in with an API key of <strong>{current?.name ?? environment}</strong>, which reaches that environment only.
              Sign in with a key of <code>{slug}</code>, or the admin credential, to open it.
            </p>
          </>
        ) : (
          <>
            <h1>No environment "{slug}"</h1>
            <p className="muted">
              The link names an environment that does not exist here (it may have been deleted or renamed). Environments are listed on the
              Environments page.
            </p>
          </>
        )}
        <div className="form-actions">
          {environment ? (
            <Button type="button" variant="primary" onClick={() => setEnvironment(environment)}>
              Open {current?.name ?? environment} instead
            </Button>
          ) : null}
          <Button type="button" onClick={() => void signOut()}>
            Sign out
          </Button>
        </div>
      </div>
    </main>
  );
}
