/**
 * `warden analyze text|image|username`: one analyze call, the answer as JSON on stdout. The content is
 * the last argument or, when absent, stdin. Also home of what the client commands share (`feedback`,
 * `legacy`): the connection flags (`--base-url`, `--api-key`, `--key-kind`, `--region`) over the
 * `WARDEN_*` environment, and the error line + exit code (1 runtime/API failure, 2 usage/validation).
 */
import { writeFile } from "node:fs/promises"
import { ImageAnalyzeRequest, resellerFieldsIn, TextAnalyzeRequest, UsernameAnalyzeRequest } from "@warden/core/client"
import { type ApiConfig, ApiEnv, type RateLimiter, REGION_BASE_URL, Transport } from "@warden/transport"
import { AnalyzeV1 } from "@warden/v1"
import { type Config, Console, Effect, Layer, Option, type Redacted, type Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Verdict from "../../engine/Verdict.ts"
import * as ImageInput from "../ImageInput.ts"
import * as RequestInput from "../RequestInput.ts"
import { CliFailure } from "../Outcome.ts"
import { printed } from "../Refusal.ts"
import * as Writable from "../Writable.ts"

/** Exit code 2: the request or the command line is wrong (fix it, do not retry). */
const USAGE_TAGS = new Set(["RequestValidationError", "ApiConfigError", "ConfigError", "UsageError"])

const codeOf = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return "ERROR"
  const e = error as { _tag?: string; error?: { code?: string }; reason?: string }
  if (e.error?.code !== undefined) return e.error.code
  if (e._tag === "TransportError") return `TRANSPORT_ERROR(${e.reason})`
  return (e._tag ?? "ERROR").replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase()
}

/**
 * A `Config` failure reads `SchemaError(Expected string at ["WARDEN_TIMEOUT"])`: say which variable
 * and what is wrong with it instead.
 */
const environmentMessage = (raw: string): string => {
  const match = /^SchemaError\((.*) at \["([^"]+)"\]\)$/s.exec(raw.trim())
  return match === null ? raw : `environment variable ${match[2]}: ${match[1]!.trim()}`
}

/** Prints one line on stderr (the code, then the message with its field paths) and fails with the exit code. */
export const report = (error: unknown): Effect.Effect<never, CliFailure> => {
  if (error instanceof CliFailure) return Effect.fail(error) // printed already
  const tag = typeof error === "object" && error !== null ? (error as { _tag?: string })._tag : undefined
  const exit = tag !== undefined && USAGE_TAGS.has(tag) ? 2 : 1
  const raw =
    error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
      ? String((error as { message: unknown }).message)
      : String(error)
  const message = tag === "ConfigError" ? environmentMessage(raw) : raw
  const code = tag === "ConfigError" ? "ENVIRONMENT" : codeOf(error)
  const text = message.replace(/\s*\n\s*/g, " ")
  const line = `warden: ${text.startsWith(`${code}: `) ? text : `${code}: ${text}`}`
  return printed([line], exit)
}

/** A usage problem found by a command itself (exit 2). */
export class UsageError extends Error {
  readonly _tag = "UsageError"
}

/** The connection flags every client command takes; each falls back to its `WARDEN_*` variable. */
export const connectionFlags = {
  baseUrl: Flag.String("base-url").pipe(
    Flag.withDescription(
      `Base URL of the API, of --region. Env: ${ApiEnv.baseUrl} (${ApiEnv.baseUrlUsEast}, ${ApiEnv.baseUrlUsWest})`
    ),
    Flag.optional
  ),
  apiKey: Flag.Redacted("api-key").pipe(Flag.withDescription(`API key. Env: ${ApiEnv.apiKey}`), Flag.optional),
  keyKind: Flag.Literals("key-kind", ["standard", "reseller"]).pipe(
    Flag.withDescription(`Kind of the key. Env: ${ApiEnv.keyKind}`),
    Flag.optional
  ),
  region: Flag.Literals("region", ["global", "us-east", "us-west"]).pipe(
    Flag.withDescription(`Region. Env: ${ApiEnv.region}`),
    Flag.optional
  )
} as const

/** What the connection flags parse to. */
export interface Connection {
  readonly baseUrl: Option.Option<string>
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly keyKind: Option.Option<"standard" | "reseller">
  readonly region: Option.Option<"global" | "us-east" | "us-west">
}

const isSet = (name: string) => (process.env[name] ?? "") !== ""

/**
 * What a client command cannot run without, checked before anything else so the user reads which
 * flag or variable to set (exit 2), not a decoding error of the environment.
 */
export const missingConnection = (flags: Connection, api: "v1" | "legacy"): UsageError | undefined => {
  if (Option.isNone(flags.apiKey) && !isSet(ApiEnv.apiKey) && !(api === "legacy" && isSet(ApiEnv.legacyApiKey)))
    return new UsageError(`no API key: give --api-key or set ${ApiEnv.apiKey}`)
  if (Option.isNone(flags.baseUrl)) {
    if (api === "legacy" && !isSet(ApiEnv.legacyBaseUrl))
      return new UsageError(`no legacy base URL: give --base-url or set ${ApiEnv.legacyBaseUrl}`)
    const region = Option.getOrUndefined(flags.region) ?? (process.env[ApiEnv.region] || "global")
    const variable = REGION_BASE_URL[region as keyof typeof REGION_BASE_URL]
    if (api === "v1" && variable !== undefined && !isSet(variable))
      return new UsageError(`no base URL for region ${region}: give --base-url or set ${variable}`)
  }
  return undefined
}

/** The transport for a command: the environment, overridden by the flags. */
export const transportFor = (
  flags: Connection,
  api: "v1" | "legacy"
): Layer.Layer<
  Transport.Transport | ApiConfig.ApiConfig | RateLimiter.RateLimiter,
  ApiConfig.ApiConfigError | Config.ConfigError | UsageError
> =>
  Layer.unwrap(
    Effect.suspend(() => {
      const missing = missingConnection(flags, api)
      return missing === undefined ? Effect.succeed(configuredTransport(flags, api)) : Effect.fail(missing)
    })
  )

const configuredTransport = (flags: Connection, api: "v1" | "legacy") => {
  const region = Option.getOrUndefined(flags.region)
  const baseUrl = Option.getOrUndefined(flags.baseUrl)
  const overrides: Parameters<typeof Transport.Transport.layerConfig>[0] = {
    apiKey: Option.getOrUndefined(flags.apiKey),
    keyKind: Option.getOrUndefined(flags.keyKind),
    region,
    ...(api === "legacy"
      ? { legacyBaseUrl: baseUrl, legacyApiKey: Option.getOrUndefined(flags.apiKey) }
      : { baseUrls: { [region ?? "global"]: baseUrl } })
  }
  return Transport.Transport.layerConfig(overrides)
}

/** Runs a command body on a client layer; any failure becomes one stderr line and an exit code. */
export const runWith = <A, E, R, E2>(
  layer: Layer.Layer<R, E2>,
  body: Effect.Effect<A, E, R>
): Effect.Effect<A, CliFailure> =>
  body.pipe(Effect.provide(layer), Effect.catch(report)) as Effect.Effect<A, CliFailure>

/** Reads all of stdin as bytes. */
export const readStdin: Effect.Effect<Uint8Array> = Effect.promise(async () => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return new Uint8Array(Buffer.concat(chunks))
})

/** The content argument, or stdin (trailing newline removed) when it is absent. */
const contentOf = (argument: Option.Option<string>): Effect.Effect<string> =>
  Option.isSome(argument)
    ? Effect.succeed(argument.value)
    : Effect.map(readStdin, (bytes) => new TextDecoder().decode(bytes).replace(/\r?\n$/, ""))

const channel = Flag.String("channel").pipe(
  Flag.withDescription("Channel UUID the content belongs to. Env: WARDEN_CHANNEL"),
  Flag.optional
)
const content = Argument.String("content").pipe(
  Argument.withDescription("The content; read from stdin when absent"),
  Argument.optional
)
const opt = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)

const common = {
  ...connectionFlags,
  channel,
  content,
  publishedAt: opt("published-at", "Publication date-time, ISO 8601"),
  industry: opt("industry", "Reseller: INDUSTRY_MEDIA, INDUSTRY_SPORT, INDUSTRY_GAMING, ..."),
  defaultLanguage: opt("default-language", "Reseller: ISO 639-1 code used when detection is weak"),
  saveRequest: opt("save-request", "Write the exact JSON body sent to this file (for `warden feedback --request`)"),
  withRequest: Flag.Boolean("with-request").pipe(
    Flag.withDescription("Print { request, response }: the exact body sent and the answer"),
    Flag.withDefault(false)
  )
} as const

/** Sets `key` when the option is present. */
const put = (body: Record<string, unknown>, key: string, value: Option.Option<unknown>) => {
  if (Option.isSome(value)) body[key] = value.value
}

const channelOf = (flag: Option.Option<string>) =>
  Option.isSome(flag)
    ? Effect.succeed(flag.value)
    : process.env.WARDEN_CHANNEL !== undefined && process.env.WARDEN_CHANNEL !== ""
      ? Effect.succeed(process.env.WARDEN_CHANNEL)
      : Effect.fail(new UsageError("--channel is required (or set WARDEN_CHANNEL)"))

/** `--save-request FILE` must be writable before the call is made, or its answer would be lost. */
const checkSaveRequest = (saveRequest: Option.Option<string>) => {
  if (Option.isNone(saveRequest)) return Effect.void
  const problem = Writable.problemOf(saveRequest.value, { createDirectories: false })
  return problem === undefined
    ? Effect.void
    : Effect.fail(new UsageError(`--save-request ${saveRequest.value}: cannot create: ${problem}`))
}

const output = (
  sent: { readonly request: string; readonly response: unknown },
  flags: { readonly saveRequest: Option.Option<string>; readonly withRequest: boolean },
  endpoint: "text" | "image" | "username"
) =>
  Effect.gen(function* () {
    // The answer is printed first: a file that fails to be written after all must not swallow it.
    yield* Console.log(JSON.stringify(flags.withRequest ? sent : sent.response))
    if (Option.isSome(flags.saveRequest)) {
      const file = flags.saveRequest.value
      yield* Effect.tryPromise({
        try: () => writeFile(file, sent.request),
        catch: (e) =>
          new Error(
            `--save-request ${file}: ${Writable.describeErrno((e as { code?: string }).code, String(e))} (the answer is above)`
          )
      })
    }
    // An answer without a verdict is not "clean": printed above, and the exit code says so (1).
    if (!Verdict.isRecognised(endpoint, sent.response)) {
      return yield* Effect.fail({
        _tag: "UnrecognisedAnswer",
        message: `the API answered ${Verdict.shapeOf(sent.response)} with none of the fields a verdict is made of (type, severity, recommendedAction, classifications): not a verdict`
      })
    }
  })

const v1Layer = (flags: Connection) => AnalyzeV1.AnalyzeV1.layer.pipe(Layer.provideMerge(transportFor(flags, "v1")))

/**
 * The request `body` of `kind` decoded as `schema`: refused with every violation, those of the reseller
 * fields a standard key may not send among them, as the client refuses them (RequestInput.ts).
 */
const requestOf = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  kind: "text" | "image" | "username",
  body: Record<string, unknown>
) =>
  Effect.gen(function* () {
    const transport = yield* Transport.Transport
    const refused =
      transport.config.keyKind === "standard"
        ? resellerFieldsIn(kind, body).map((field) => ({ field, message: AnalyzeV1.RESELLER_ONLY_MESSAGE }))
        : []
    return yield* RequestInput.decode(schema, ENDPOINTS[kind], refused)(body)
  })

const ENDPOINTS = { text: "analyzeText", image: "analyzeImage", username: "analyzeUsername" } as const

const analyzeText = Command.make(
  "text",
  {
    ...common,
    reference: opt("reference", "Your stable identifier of the content (<= 256 characters)"),
    language: opt("language", "Language hint, ISO 639-1"),
    permalink: opt("permalink", "Public URL of the content")
  },
  (flags) =>
    runWith(
      v1Layer(flags),
      Effect.gen(function* () {
        yield* checkSaveRequest(flags.saveRequest)
        const body: Record<string, unknown> = {
          channelId: yield* channelOf(flags.channel),
          text: yield* contentOf(flags.content)
        }
        put(body, "publishedAt", flags.publishedAt)
        put(body, "reference", flags.reference)
        put(body, "permalink", flags.permalink)
        put(body, "language", flags.language)
        put(body, "industry", flags.industry)
        put(body, "defaultLanguage", flags.defaultLanguage)
        const client = yield* AnalyzeV1.AnalyzeV1
        const request = yield* requestOf(TextAnalyzeRequest, "text", body)
        yield* output(yield* client.textWithRequest(request), flags, "text")
      })
    )
).pipe(
  Command.withDescription("Analyse a text (the last argument, or stdin)"),
  Command.withExamples([
    {
      command: "warden analyze text 'you are awful'",
      description: "with WARDEN_API_KEY, WARDEN_BASE_URL and WARDEN_CHANNEL set"
    },
    {
      command: "cat comment.txt | warden analyze text --with-request",
      description: "from stdin; print the exact body sent beside the answer"
    }
  ])
)

const analyzeImage = Command.make(
  "image",
  {
    ...common,
    customerContext: opt("customer-context", "Reseller: free English text describing the channel"),
    classificationsEnabled: opt("classifications-enabled", "Reseller: comma-separated image classifications"),
    ocr: Flag.Boolean("ocr").pipe(
      Flag.withDescription("Reseller: also extract and analyse text"),
      Flag.withDefault(false)
    )
  },
  (flags) =>
    runWith(
      v1Layer(flags),
      Effect.gen(function* () {
        yield* checkSaveRequest(flags.saveRequest)
        const channelId = yield* channelOf(flags.channel)
        const argument = Option.getOrUndefined(flags.content)
        const image = yield* argument !== undefined
          ? Effect.try({ try: () => ImageInput.fromArgument(argument), catch: (e) => e })
          : Effect.flatMap(readStdin, (bytes) =>
              Effect.try({ try: () => ImageInput.fromStdin(bytes), catch: (e) => e })
            )
        const body: Record<string, unknown> = { channelId, ...image }
        put(body, "publishedAt", flags.publishedAt)
        put(body, "industry", flags.industry)
        put(body, "defaultLanguage", flags.defaultLanguage)
        put(body, "customerContext", flags.customerContext)
        put(
          body,
          "classificationsEnabled",
          Option.map(flags.classificationsEnabled, (list) =>
            list
              .split(",")
              .map((s) => s.trim())
              .filter((s) => s !== "")
          )
        )
        if (flags.ocr) body.ocrEnabled = true
        const client = yield* AnalyzeV1.AnalyzeV1
        const request = yield* requestOf(ImageAnalyzeRequest, "image", body)
        yield* output(yield* client.imageWithRequest(request), flags, "image")
      })
    )
).pipe(
  Command.withDescription("Analyse an image: a URL, a file path, or base64 bytes (argument or stdin)"),
  Command.withExamples([
    { command: "warden analyze image https://example.com/photo.jpg", description: "an image by URL" },
    { command: "warden analyze image ./photo.jpg", description: "a local file, sent as base64" }
  ])
)

const analyzeUsername = Command.make(
  "username",
  {
    ...common,
    customerContext: opt("customer-context", "Reseller: free English text describing the channel")
  },
  (flags) =>
    runWith(
      v1Layer(flags),
      Effect.gen(function* () {
        yield* checkSaveRequest(flags.saveRequest)
        const body: Record<string, unknown> = {
          channelId: yield* channelOf(flags.channel),
          username: yield* contentOf(flags.content)
        }
        put(body, "publishedAt", flags.publishedAt)
        put(body, "industry", flags.industry)
        put(body, "defaultLanguage", flags.defaultLanguage)
        put(body, "customerContext", flags.customerContext)
        const client = yield* AnalyzeV1.AnalyzeV1
        const request = yield* requestOf(UsernameAnalyzeRequest, "username", body)
        yield* output(yield* client.usernameWithRequest(request), flags, "username")
      })
    )
).pipe(
  Command.withDescription("Analyse a username (the last argument, or stdin)"),
  Command.withExamples([
    { command: "warden analyze username 'xX_troll_Xx'", description: "a new member's display name" }
  ])
)

/** `warden analyze text|image|username`. */
export const analyze = Command.make("analyze").pipe(
  Command.withDescription("Analyse a text, an image or a username with the v1 API; prints the answer as JSON"),
  Command.withSubcommands([analyzeText, analyzeImage, analyzeUsername])
)
