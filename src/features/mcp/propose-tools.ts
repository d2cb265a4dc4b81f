import { destinationOptions } from "../../lib/destinations";
import { Proposal, ProposalInput } from "../proposals/schemas";
import { createProposal } from "../proposals/service";
import { defineTool } from "./tool";

const proposeChange = defineTool({
  name: "propose_change",
  scope: "propose",
  title: "Propose a change",
  description:
    "Proposes a new version of a workflow, layout, partial or one locale's translations, as full content or an RFC 6902 JSON Patch of the current content. Nothing live changes: the answer is a pending proposal with its diff, validation (errors by field path) and a rendered preview, for a person to apply or reject.",
  input: ProposalInput,
  output: Proposal,
  unrecorded: ["content", "patch"],
  run: (input, { env, caller }) => createProposal(caller.data, input, { actor: caller.audit.actor, destinations: destinationOptions(env) }),
});

export const proposeTools = [proposeChange];
