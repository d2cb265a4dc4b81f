// The last save's problem document, shared with every control so each shows the errors at its own path
// (`steps.0.template.html` next to that step's HTML box).
import { createContext, type ReactNode, useContext } from "react";
import { ApiError } from "../../api/problem";

const SaveErrors = createContext<ApiError | null>(null);

export function SaveErrorsProvider({ error, children }: { error: unknown; children: ReactNode }) {
  return <SaveErrors.Provider value={error instanceof ApiError ? error : null}>{children}</SaveErrors.Provider>;
}

/** The message for this path or any path under it (a control for `template` shows `template.subject`'s). */
export function useFieldError(path: string): string | undefined {
  return useContext(SaveErrors)?.fieldError(path);
}

/** Only the errors at exactly this path: for a container whose children show their own. */
export function useOwnError(path: string): string | undefined {
  return useContext(SaveErrors)?.problem.errors?.find((e) => e.path === path)?.message;
}
