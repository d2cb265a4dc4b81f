import type { AuditContext } from "../../db/queries/audit";
import type { Actor } from "../../env";
import type { DestinationOptions } from "../../lib/destinations";
import { ApiError, notFound } from "../../lib/errors";
import { ContentKey } from "../content/schemas";
import type { Data } from "../data";
import { Locale } from "../translations/schemas";
import { applyJsonPatch, jsonPatch, type PatchOperation, PatchError } from "../workflows/versions/json-patch";
import { PROPOSAL_KINDS } from "./resources";
import type { Proposal, ProposalInput } from "./schemas";
import { newId } from "../../lib/ids";

const missing = (id: string) => notFound("proposal_not_found", `proposal "${id}"`);

/** The key as the resource stores it: a locale in its canonical case; a key that no resource could have is the caller's error. */
function keyOf(input: ProposalInput): string {
  const parsed = input.resource === "translations" ? Locale.safeParse(input.key) : ContentKey.safeParse(input.key);
  if (!parsed.success) {
    const message =
      input.resource === "translations" ? "A BCP 47 locale such as `en`, `de-CH` or `pt-BR`." : parsed.error.issues[0]!.message;
    throw new ApiError("validation_failed", "The proposal's key cannot name a resource of this kind.", [{ path: "key", message }]);
  }
  return parsed.data;
}

/** The content a patch proposes: applied to the current content (null when there is none), all or nothing. */
function patched(base: unknown, patch: NonNullable<ProposalInput["patch"]>): unknown {
  try {
    return applyJsonPatch(base, patch);
  } catch (error) {
    if (!(error instanceof PatchError)) throw error;
    throw new ApiError(
      "proposal_patch_failed",
      `Operation ${error.index} of the patch cannot apply to the current content: ${error.message}.`,
      [{ path: `patch.${error.index}`, message: error.message }],
    );
  }
}

/**
 * Records a proposed change without touching the resource: its content checked as a save would
 * check it (problems are the proposal's `validation`, never an error of this call), diffed
 * against the current version and rendered. `actor` is who proposes (a key, a dashboard user, an
 * MCP key as `mcp:<name>`).
 */
export async function createProposal(
  data: Data,
  input: ProposalInput,
  options: { actor: Actor; destinations: DestinationOptions; now?: Date },
): Promise<Proposal> {
  const key = keyOf(input);
  const kind = PROPOSAL_KINDS[input.resource];
  const current = await kind.current(data, key);
  const given = input.patch ? patched(current?.content ?? null, input.patch) : input.content;
  const { content, errors } = await kind.normalised(data, key, given, options.destinations);
  const diff: PatchOperation[] = current ? jsonPatch(current.content, content) : [{ op: "add", path: "", value: content }];
  const preview = await kind.preview(data, key, content);
  const { actor } = options;
  return data.proposals.insert({
    id: newId("prp"),
    resource: input.resource,
    key,
    status: "pending",
    baseVersion: current?.version ?? null,
    content: content ?? null,
    patch: input.patch ?? null,
    note: input.note ?? null,
    diff,
    validation: { ok: errors.length === 0, errors },
    preview,
    proposedByType: actor.type,
    proposedById: actor.id,
    proposedByName: actor.name,
    createdAt: options.now ?? new Date(),
  });
}

async function pending(data: Data, id: string): Promise<Proposal> {
  const proposal = await data.proposals.find(id);
  if (!proposal) throw missing(id);
  if (proposal.status !== "pending") {
    throw new ApiError(
      "proposal_not_pending",
      `Proposal "${id}" was already ${proposal.status}: only a pending proposal can be applied or rejected.`,
    );
  }
  return proposal;
}

const stale = (p: Proposal) =>
  new ApiError(
    "proposal_stale",
    p.baseVersion === null
      ? `The ${p.resource} "${p.key}" was created since this proposal was made: propose again from its current version.`
      : `The ${p.resource} "${p.key}" changed since version ${p.baseVersion}, which this proposal was made from: propose again from its current version.`,
  );

/**
 * Saves a pending proposal's content as a save with `If-Match: baseVersion` would: one new
 * version, whose audit entry names the proposal (409 `proposal_stale` when the resource moved
 * on, 422 `proposal_invalid` when the content does not pass the save's checks now). The proposal
 * records who applied it and the version made.
 */
export async function applyProposal(
  data: Data,
  id: string,
  options: { context: AuditContext; destinations: DestinationOptions },
): Promise<Proposal> {
  const proposal = await pending(data, id);
  if (!proposal.validation.ok) {
    throw new ApiError(
      "proposal_invalid",
      "The proposal's content failed validation when it was made; fix it and propose again.",
      proposal.validation.errors,
    );
  }
  const saved = await PROPOSAL_KINDS[proposal.resource].apply(data, proposal.key, proposal.content, {
    destinations: options.destinations,
    context: { ...options.context, proposalId: proposal.id },
    baseVersion: proposal.baseVersion,
  });
  if (saved.status === "invalid") {
    throw new ApiError(
      "proposal_invalid",
      "The proposal's content no longer passes the save's checks (what it names may have changed).",
      saved.errors,
    );
  }
  if (saved.status === "stale") throw stale(proposal);
  const decided = await data.proposals.decide(id, { status: "applied", appliedVersion: saved.version }, options.context.actor);
  // Decided by someone else between our read and the save (a reject): the save stands, and says so.
  return decided ?? (await data.proposals.find(id))!;
}

/** Marks a pending proposal rejected, with an optional reason; nothing else changes. */
export async function rejectProposal(data: Data, id: string, options: { actor: Actor; reason?: string }): Promise<Proposal> {
  await pending(data, id);
  const decided = await data.proposals.decide(id, { status: "rejected", reason: options.reason ?? null }, options.actor);
  if (!decided) return pending(data, id);
  return decided;
}
