import type { Step } from "../../engine/steps";
import type { ContentReads } from "../content/reads";
import { checkWorkflowContent } from "../layouts/checks";
import { checkTranslationKeys } from "../translations/workflow-keys";

/**
 * What a workflow's templates must satisfy to become current, whichever way they do (a create, a
 * replace, a file import through either, a revert): the layouts and partials they name exist
 * (422 `validation_failed`) and every literal `t` key is in the default locale (422
 * `translation_key_missing`). A promotion checks the same against its target (promotions/content-apply.ts).
 */
export async function checkWorkflowTemplates(data: ContentReads, steps: readonly Step[]): Promise<void> {
  await checkWorkflowContent(data, steps);
  await checkTranslationKeys(data, steps);
}
