/**
 * The sandbox's configuration: where it listens, extra keys and organisations, quotas, the fault
 * profile, the size of the request log, the largest body. Given in code (`SandboxOptions`) or as a JSON/YAML file decoded with a Schema;
 * a bad file fails with `SandboxConfigError` naming every wrong field.
 */
import { FieldViolations } from "@warden/core"
import { Effect, Result, Schema } from "effect"
import { parse as parseYaml } from "yaml"
import { FaultProfile } from "./Faults.ts"
import { KeyConfig } from "./Keys.ts"
import { QuotaConfig } from "./Quotas.ts"

const NonNegativeInt = Schema.Int.check(
  Schema.makeFilter<number>((n) => n >= 0, { message: "must be an integer of at least 0" })
)

const Port = Schema.Int.check(
  Schema.makeFilter<number>((n) => n >= 0 && n <= 65_535, { message: "must be a TCP port, 0..65535 (0: a free one)" })
)

const PositiveInt = Schema.Int.check(Schema.makeFilter<number>((n) => n >= 1, { message: "must be at least 1" }))

/** The configuration file: every field optional; the same fields as `SandboxOptions`. */
export const SandboxConfigFile = Schema.Struct({
  /** TCP port; 0 (default) picks a free one. `warden sandbox --port` wins over it. */
  port: Schema.optionalKey(Port),
  /** Interface to listen on; default and recommended `127.0.0.1`. */
  host: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty({ message: "must not be empty" }))),
  /** Largest request body accepted, in bytes (default 16 MiB). */
  maxBodyBytes: Schema.optionalKey(PositiveInt),
  /** Keys besides the built-in ones; each names its organisation. */
  keys: Schema.optionalKey(Schema.Array(KeyConfig)),
  /** Limits by organisation (`"*"`: every organisation) and endpoint. */
  quotas: Schema.optionalKey(QuotaConfig),
  /** The fault profile in force at start. */
  faults: Schema.optionalKey(FaultProfile),
  /** How many requests `GET /_sandbox/requests` keeps (default 1000; 0 keeps none). */
  requestLogSize: Schema.optionalKey(NonNegativeInt),
  /** Prefix of the references generated for legacy messages sent without one (default `sandbox`). */
  legacyReferencePrefix: Schema.optionalKey(Schema.String.check(Schema.isNonEmpty({ message: "must not be empty" })))
}).annotate({ identifier: "SandboxConfigFile" })
export type SandboxConfigFile = typeof SandboxConfigFile.Type

/** Everything `Sandbox.start` accepts: exactly the file's fields. */
export interface SandboxOptions extends SandboxConfigFile {}

/** A configuration file that cannot be read or does not decode; `violations` name the fields. */
export class SandboxConfigError extends Schema.TaggedError<SandboxConfigError>()("SandboxConfigError", {
  path: Schema.String,
  violations: Schema.Array(Schema.Struct({ field: Schema.String, message: Schema.String }))
}) {
  override get message(): string {
    return `invalid sandbox configuration ${this.path}: ${FieldViolations.formatViolations(this.violations)}`
  }
}

const decode = Schema.decodeUnknownResult(SandboxConfigFile)

/** Decodes a configuration from its text (YAML, of which JSON is a subset). */
export const parse = (path: string, text: string): Result.Result<SandboxConfigFile, SandboxConfigError> => {
  let raw: unknown
  try {
    raw = parseYaml(text)
  } catch (e) {
    return Result.fail(
      new SandboxConfigError({ path, violations: [{ field: "", message: `is not valid JSON/YAML: ${String(e)}` }] })
    )
  }
  const decoded = decode(raw ?? {}, { errors: "all", onExcessProperty: "error" })
  return Result.isFailure(decoded)
    ? Result.fail(new SandboxConfigError({ path, violations: FieldViolations.fromSchemaError(decoded.failure) }))
    : Result.succeed(decoded.success)
}

/** Reads and decodes a JSON or YAML configuration file. */
export const load = (path: string): Effect.Effect<SandboxConfigFile, SandboxConfigError> =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({
      try: async () => (await import("node:fs/promises")).readFile(path, "utf8"),
      catch: (e) =>
        new SandboxConfigError({ path, violations: [{ field: "", message: `cannot be read: ${String(e)}` }] })
    })
    return yield* Effect.fromResult(parse(path, text))
  })
