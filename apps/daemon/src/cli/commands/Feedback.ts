/**
 * `warden feedback text|image --request FILE`: reports a wrong classification. FILE holds the original
 * analyze body (e.g. written by `warden analyze ... --save-request FILE`); it is sent byte-for-byte as
 * `analyzeRequest`. The source of the original body is one flag today (`--request`); a daemon-backed
 * `--reference R` can join it as a second source without changing the rest.
 */
import { readFile } from "node:fs/promises"
import type { Confidence, ImageClassificationName, TextClassificationName } from "@warden/core/client"
import { FeedbackV1 } from "@warden/v1"
import { Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { type Connection, connectionFlags, runWith, transportFor, UsageError } from "./Analyze.ts"
import { byReference, referenceFlags } from "./FeedbackByReference.ts"

const list = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)

const flags = {
  ...connectionFlags,
  request: Flag.String("request").pipe(
    Flag.withDescription("File holding the original analyze body, sent unchanged as analyzeRequest"),
    Flag.optional
  ),
  add: list("add", "Comma-separated classifications that apply but were not returned"),
  remove: list("remove", "Comma-separated classifications returned that do not apply"),
  notes: Flag.String("notes").pipe(Flag.withDescription("A free comment (enough on its own)"), Flag.optional),
  confidence: Flag.Literals("confidence", ["LOW", "MEDIUM", "HIGH", "VERY_HIGH"]).pipe(
    Flag.withDescription("LOW/MEDIUM: an end-user report; HIGH/VERY_HIGH: a trust and safety decision"),
    Flag.optional
  ),
  withRequest: Flag.Boolean("with-request").pipe(
    Flag.withDescription("Print { request, response }: the exact body sent and the answer"),
    Flag.withDefault(false)
  )
} as const

const split = (value: Option.Option<string>) =>
  Option.map(value, (s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter((x) => x !== "")
  )

/**
 * The feedback fields the flags set, each left out when its flag is. Classification names are typed as
 * the client's open names (`name`: the cast core documents for a name it may not know): the client
 * validates them, and refuses a malformed one with its field path.
 */
const feedbackFields = <C extends string>(
  f: {
    readonly add: Option.Option<string>
    readonly remove: Option.Option<string>
    readonly notes: Option.Option<string>
    readonly confidence: Option.Option<Confidence>
  },
  name: (written: string) => C
) => {
  const add = Option.map(split(f.add), (names) => names.map(name))
  const remove = Option.map(split(f.remove), (names) => names.map(name))
  return {
    ...(Option.isSome(add) ? { classificationsToAdd: add.value } : {}),
    ...(Option.isSome(remove) ? { classificationsToRemove: remove.value } : {}),
    ...(Option.isSome(f.notes) ? { notes: f.notes.value } : {}),
    ...(Option.isSome(f.confidence) ? { confidence: f.confidence.value } : {})
  }
}

/** Where the original analyze body comes from: only `--request FILE` for now. */
const originalBody = (request: Option.Option<string>) =>
  Option.match(request, {
    onNone: () => Effect.fail(new UsageError("--request FILE is required: the file holding the original analyze body")),
    onSome: (file) =>
      Effect.tryPromise({
        try: () => readFile(file),
        catch: (e) => new UsageError(`cannot read --request ${file}: ${e instanceof Error ? e.message : String(e)}`)
      }).pipe(Effect.map((buffer) => new Uint8Array(buffer)))
  })

const make = (kind: "text" | "image") =>
  Command.make(
    kind,
    kind === "image"
      ? {
          ...flags,
          ocrIssue: Flag.Boolean("ocr-issue").pipe(
            Flag.withDescription("The feedback concerns OCR"),
            Flag.withDefault(false)
          )
        }
      : { ...flags, ocrIssue: Flag.Boolean("no-such-flag").pipe(Flag.withHidden, Flag.withDefault(false)) },
    (f) =>
      runWith(
        FeedbackV1.FeedbackV1.layer.pipe(Layer.provide(transportFor(f as Connection, "v1"))),
        Effect.gen(function* () {
          const analyzeRequest = yield* originalBody(f.request)
          const client = yield* FeedbackV1.FeedbackV1
          const sent =
            kind === "text"
              ? yield* client.textWithRequest({
                  analyzeRequest,
                  ...feedbackFields(f, (s) => s as TextClassificationName)
                })
              : yield* client.imageWithRequest({
                  analyzeRequest,
                  ...feedbackFields(f, (s) => s as ImageClassificationName),
                  ...(f.ocrIssue ? { ocrIssue: true } : {})
                })
          yield* Console.log(
            JSON.stringify(f.withRequest ? { request: sent.request, response: sent.response } : sent.response)
          )
        })
      )
  ).pipe(
    Command.withDescription(`Report a wrong ${kind} classification; prints { "id": ... }`),
    Command.withExamples([
      {
        command: `warden feedback ${kind} --request request.json --remove INSULT --notes "banter between friends"`,
        description: `request.json: the analyze body, e.g. from \`warden analyze ${kind} --with-request\``
      }
    ])
  )

/** `warden feedback text|image`. */
export const feedback = Command.make("feedback", referenceFlags, byReference).pipe(
  Command.withDescription(
    "Send feedback on a wrong classification (needs --add, --remove or --notes): `text|image --request FILE`, or `--reference REF` through the running daemon"
  ),
  Command.withSubcommands([make("text"), make("image")])
)
