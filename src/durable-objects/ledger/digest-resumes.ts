import type { RecipientsJob } from "../../delivery/job";
import type { Bindings } from "../../env";
import type { DigestObject } from "../digest-object";

/** Digest objects asked at once by a watchdog pass. */
const CONCURRENCY = 200;

export interface DigestResumes {
  /** A digest still collects for the trigger until then: its run is waiting, not stalled. */
  until: number | null;
  /** Jobs of the trigger's recipients that closed digests sent on (each for one recipient). */
  jobs: RecipientsJob[];
}

/**
 * What the digests a trigger joined say of its run. A recipient that waits in a digest is
 * neither parked here nor done: only its digest knows whether the window is still open, or
 * which job its run continued with when it closed (the job the watchdog sends again).
 */
export async function digestResumes(env: Bindings, transactionId: string, names: readonly string[]): Promise<DigestResumes> {
  const resumes: DigestResumes = { until: null, jobs: [] };
  for (let i = 0; i < names.length; i += CONCURRENCY) {
    const answers = await Promise.all(
      // RPC types cannot express a job's free-form note: the answer is the method's own type.
      names
        .slice(i, i + CONCURRENCY)
        .map(
          (name) =>
            env.DIGESTS.get(env.DIGESTS.idFromName(name)).resume(transactionId) as Promise<Awaited<ReturnType<DigestObject["resume"]>>>,
        ),
    );
    for (const answer of answers) {
      if (answer && "until" in answer) resumes.until = Math.max(resumes.until ?? 0, answer.until);
      else if (answer) resumes.jobs.push(answer.job);
    }
  }
  return resumes;
}
