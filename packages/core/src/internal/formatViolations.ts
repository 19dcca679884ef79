/**
 * `field: message` lines of field violations: apart from `FieldViolation.ts` (which builds them with
 * `effect/Schema`) so that the errors entry (`@warden/core/errors`) loads no schema module.
 */

/** `field: message` lines, as the CLI and logs print them. */
export const formatViolations = (
  violations: ReadonlyArray<{ readonly field: string; readonly message: string }>
): string => violations.map((v) => `${v.field === "" ? "(body)" : v.field}: ${v.message}`).join("; ")
