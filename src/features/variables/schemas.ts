import { z } from "@hono/zod-openapi";
import { byteLength } from "../../lib/crypto";
import { cursorCodec, rawKey } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";

const VARIABLE_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_VARIABLE_BYTES = 16 * 1024;

/** What a secret variable's value reads as in every answer. */
export const SECRET_MASK = "••••••••";

const VariableValue = z
  .string()
  .refine((value) => byteLength(value) <= MAX_VARIABLE_BYTES, `A value takes at most ${MAX_VARIABLE_BYTES} bytes (UTF-8).`);

export const VariableInput = z
  .object({
    key: z.string().regex(VARIABLE_KEY, "Keys start with a letter or '_', then letters, digits and '_' (at most 64)."),
    value: VariableValue,
    secret: z.boolean().default(false),
  })
  .strict()
  .openapi("VariableInput");
export type VariableInput = z.infer<typeof VariableInput>;

export const VariableUpdate = VariableInput.omit({ key: true })
  .extend({ secret: z.boolean().optional() })
  .partial()
  .strict()
  .refine((input) => input.value !== undefined || input.secret !== undefined, "Give `value`, `secret` or both.")
  .openapi("VariableUpdate", {
    description: "Fields left out keep their value. Turning a secret into a plain variable needs a new `value`.",
  });
export type VariableUpdate = z.infer<typeof VariableUpdate>;

export const Variable = z
  .object({
    id: z.string(),
    key: z.string(),
    value: z.string().openapi({ description: `The value; "${SECRET_MASK}" for a secret variable.` }),
    secret: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("Variable");
export type Variable = z.infer<typeof Variable>;

export const VariableKeyParam = z.object({
  key: z.string().openapi({ param: { name: "key", in: "path" }, example: "SUPPORT_EMAIL" }),
});

export const VariableList = pageOf(Variable).openapi("VariableList");
export type VariableList = z.infer<typeof VariableList>;

const VariableKey = z.string().regex(VARIABLE_KEY);
/** Variables by key; before 0.13 the cursor was the key itself. */
export const variableCursor = cursorCodec(z.tuple([VariableKey]), { legacy: rawKey(VariableKey) });

export const VariablePageQuery = pageQuery(100, variableCursor);
