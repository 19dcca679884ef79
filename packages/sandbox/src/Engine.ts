/**
 * What the sandbox does with one API request once its body is read: authenticate, check the
 * content type and JSON, decode with the contract's schema, refuse reseller fields for a standard
 * key, apply quotas and markers, and answer as the spec says. Holds the sandbox's state (keys,
 * quotas, faults, request log, feedback, legacy records). The HTTP server (`Server.ts`) only moves bytes.
 */
import { randomUUID } from "node:crypto"
import {
  FieldViolations,
  type ImageAnalysis,
  type ImageAnalyzeRequest,
  type LegacyAnalysis,
  type LegacyAnalyzeRequest,
  type LegacyError,
  legacyTextError,
  RESELLER_FIELD_NAMES,
  RESELLER_FIELDS_BY_ENDPOINT,
  resellerFieldsIn,
  type TextAnalyzeRequest,
  type UsernameAnalyzeRequest
} from "@warden/core"
import { Result } from "effect"
import * as Classifier from "./Classifier.ts"
import type { Route } from "./Contract.ts"
import * as Envelope from "./Envelope.ts"
import { FaultInjector, type FaultProfile } from "./Faults.ts"
import { FeedbackStore } from "./FeedbackStore.ts"
import * as ImageClassifier from "./ImageClassifier.ts"
import { type ApiKey, KeyRing } from "./Keys.ts"
import { LegacyStore } from "./LegacyStore.ts"
import * as Markers from "./Markers.ts"
import { QUOTA_NAMES, type QuotaConfig, QuotaLimiter } from "./Quotas.ts"
import { RequestLog } from "./RequestLog.ts"
import type { SandboxOptions } from "./SandboxConfig.ts"
import * as UsernameClassifier from "./UsernameClassifier.ts"

/** The answers as the server writes them (strings, not the client's typed names). */
type ImageAnalysisWire = (typeof ImageAnalysis)["Encoded"]
type LegacyAnalysisWire = (typeof LegacyAnalysis)["Encoded"]

/** What to do with a request: answer, or misbehave as a marker asked. */
export interface Outcome {
  readonly answer: Envelope.Answer
  /** Wait this long before answering. */
  readonly stallMs: number
  /** Destroy the connection instead of answering. */
  readonly drop: boolean
  /** Cut the body so it is not valid JSON. */
  readonly malformed: boolean
  /** Which marker acted, for the request log. */
  readonly marker: string | null
}

const plain = (answer: Envelope.Answer): Outcome => ({
  answer,
  stallMs: 0,
  drop: false,
  malformed: false,
  marker: null
})

/** The media type every body must have. */
const JSON_CONTENT_TYPE = /^application\/json\s*(?:;.*)?$/i

/** Where the behaviour markers of a request are read, per endpoint. */
const contentOf = (route: Route, body: any): Array<string | undefined> => {
  switch (route.name) {
    case "analyzeText":
      return [body.text]
    case "analyzeUsername":
      return [body.username]
    case "feedbackText":
    case "feedbackImage":
      return [body.notes]
    case "legacyAnalyze":
      return (body.contents as ReadonlyArray<{ text: string }>).map((m) => m.text)
    default:
      return []
  }
}

/** Removes the reseller fields that do not apply to the text endpoint (they are ignored, never refused). */
const withoutForeignResellerFields = (body: unknown): unknown => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body
  let copy: Record<string, unknown> | undefined
  for (const name of RESELLER_FIELD_NAMES) {
    if (Object.hasOwn(body, name) && !(RESELLER_FIELDS_BY_ENDPOINT.text as ReadonlyArray<string>).includes(name)) {
      copy ??= { ...(body as Record<string, unknown>) }
      delete copy[name]
    }
  }
  return copy ?? body
}

/** The sandbox's state and request semantics. */
export class Engine {
  readonly keys: KeyRing
  readonly faults: FaultInjector
  readonly quotas: QuotaLimiter
  readonly log: RequestLog
  readonly feedback = new FeedbackStore()
  readonly legacy = new LegacyStore()
  private readonly legacyPrefix: string
  private readonly options: SandboxOptions
  constructor(options: SandboxOptions = {}) {
    this.options = options
    this.keys = new KeyRing(options.keys ?? [])
    this.faults = new FaultInjector(options.faults ?? {})
    this.quotas = new QuotaLimiter(options.quotas ?? {})
    this.log = new RequestLog(options.requestLogSize ?? 1000)
    this.legacyPrefix = options.legacyReferencePrefix ?? "sandbox"
  }

  /** Back to the state at start: empty log, stats, feedback and records; the configured faults and quotas. */
  reset(): void {
    this.log.clear()
    this.feedback.clear()
    this.legacy.clear()
    this.faults.set(this.options.faults ?? {})
    this.quotas.set(this.options.quotas ?? {})
  }

  /** Replaces the fault profile. */
  setFaults(profile: FaultProfile): void {
    this.faults.set(profile)
  }

  /** Replaces the quotas. */
  setQuotas(config: QuotaConfig): void {
    this.quotas.set(config)
  }

  /** Authenticates a request by the route's scheme. */
  authenticate(route: Route, headers: Readonly<Record<string, string | Array<string> | undefined>>) {
    const one = (name: string) => {
      const v = headers[name]
      return Array.isArray(v) ? v[0] : v
    }
    return route.auth === "legacyApiKey"
      ? this.keys.checkLegacy(one("x-api-key"))
      : this.keys.checkAuthorization(one("authorization"))
  }

  /** Answers one API request; `rawBody` is the body exactly as received. */
  handle(
    route: Route,
    headers: Readonly<Record<string, string | Array<string> | undefined>>,
    rawBody: string
  ): Outcome {
    const auth = this.authenticate(route, headers)
    if (auth._tag === "Refused") return plain(Envelope.unauthenticated(auth.reason))
    const key = auth.key

    const over = this.quotas.take(key.organisation, route.name)
    if (over !== undefined) return plain(Envelope.quota([over]))

    const contentType = headers["content-type"]
    if (typeof contentType !== "string" || !JSON_CONTENT_TYPE.test(contentType)) {
      return plain(
        Envelope.badBody(
          contentType === undefined
            ? "the Content-Type header is missing; it must be application/json"
            : `the Content-Type header must be application/json, got ${JSON.stringify(contentType)}`
        )
      )
    }
    let json: unknown
    try {
      json = JSON.parse(rawBody)
    } catch (e) {
      return plain(
        Envelope.badBody(
          rawBody.trim() === ""
            ? "the body is empty; it must be a JSON object"
            : `the body is not valid JSON: ${(e as Error).message}`
        )
      )
    }
    if (route.name === "analyzeText") json = withoutForeignResellerFields(json)
    else if (route.name === "feedbackText" && typeof json === "object" && json !== null && "analyzeRequest" in json) {
      json = {
        ...json,
        analyzeRequest: withoutForeignResellerFields((json as { analyzeRequest: unknown }).analyzeRequest)
      }
    }
    const decoded = route.decode(json)
    if (Result.isFailure(decoded)) return plain(Envelope.badRequest(FieldViolations.fromSchemaError(decoded.failure)))
    const body: any = decoded.success

    if (route.group === "analyze" && key.kind !== "reseller") {
      const fields = resellerFieldsIn(route.endpoint as "text" | "image" | "username", body)
      if (fields.length > 0) return plain(Envelope.permissionDenied("reseller_fields", fields.join(",")))
    }

    let image: ImageClassifier.ImageVerdict | undefined
    let markers: Markers.Markers
    if (route.name === "analyzeImage") {
      const req = body as ImageAnalyzeRequest
      image = ImageClassifier.classify(
        "imageUrl" in req && typeof req.imageUrl === "string"
          ? { url: req.imageUrl }
          : { bytes: Buffer.from((req as { imageData: string }).imageData, "base64") }
      )
      markers = image.markers
    } else markers = Markers.scan(...contentOf(route, body))

    if (markers.quota) {
      return {
        ...plain(Envelope.quota([{ quotaName: QUOTA_NAMES[route.name], quotaValue: 0 }])),
        stallMs: markers.stallMs,
        marker: "QUOTA"
      }
    }
    if (markers.transient) {
      return {
        ...plain(Envelope.transient("[[TRANSIENT]] marker: the sandbox answers 503 on purpose")),
        stallMs: markers.stallMs,
        marker: "TRANSIENT"
      }
    }
    const answer = this.answer(route, key, body, rawBody, image)
    const marker = markers.drop ? "DROP" : markers.malformed ? "MALFORMED" : markers.stallMs > 0 ? "STALL" : null
    return { answer, stallMs: markers.stallMs, drop: markers.drop, malformed: markers.malformed, marker }
  }

  private answer(
    route: Route,
    key: ApiKey,
    body: any,
    rawBody: string,
    image: ImageClassifier.ImageVerdict | undefined
  ): Envelope.Answer {
    switch (route.name) {
      case "analyzeText": {
        const req = body as TextAnalyzeRequest
        const verdict = Classifier.classify({
          text: req.text,
          language: req.language,
          defaultLanguage: req.defaultLanguage,
          industry: req.industry
        })
        return Envelope.ok({ textAnalysis: Classifier.toTextAnalysis(verdict) })
      }
      case "analyzeUsername": {
        const req = body as UsernameAnalyzeRequest
        const verdict = UsernameClassifier.classify({
          username: req.username,
          defaultLanguage: req.defaultLanguage,
          industry: req.industry,
          customerContext: req.customerContext
        })
        return Envelope.ok({ usernameAnalysis: Classifier.toTextAnalysis(verdict) })
      }
      case "analyzeImage": {
        const req = body as ImageAnalyzeRequest
        const seen = image!
        const enabled = req.classificationsEnabled
        const imageAnalysis: { -readonly [K in keyof ImageAnalysisWire]: ImageAnalysisWire[K] } = {
          classifications:
            enabled === undefined ? seen.classifications : seen.classifications.filter((c) => enabled.includes(c))
        }
        if (req.ocrEnabled === true) {
          const verdict = Classifier.classify({
            text: seen.ocrText,
            defaultLanguage: req.defaultLanguage,
            industry: req.industry,
            customerContext: req.customerContext
          })
          imageAnalysis.ocrAnalysis = { text: seen.ocrText, textAnalysis: Classifier.toTextAnalysis(verdict) }
        }
        return Envelope.ok({ imageAnalysis })
      }
      case "feedbackText":
      case "feedbackImage": {
        const id = randomUUID()
        this.feedback.add({
          id,
          kind: route.name === "feedbackText" ? "text" : "image",
          receivedAt: new Date().toISOString(),
          organisation: key.organisation,
          body: JSON.parse(rawBody),
          rawBody
        })
        return Envelope.ok({ id })
      }
      case "legacyAnalyze":
        return Envelope.ok(this.legacyBatch(body as LegacyAnalyzeRequest))
    }
  }

  private legacyBatch(req: LegacyAnalyzeRequest): { data: Array<LegacyAnalysisWire>; errors: Array<LegacyError> } {
    const data: Array<LegacyAnalysisWire> = []
    const errors: Array<LegacyError> = []
    const at = new Date().toISOString()
    req.contents.forEach((message, position) => {
      const error = legacyTextError(message.text, position)
      if (error !== undefined) {
        errors.push(error)
        return
      }
      const v = Classifier.classify({ text: message.text })
      const reference = message.reference ?? `${this.legacyPrefix}/${randomUUID()}`
      const analysis: LegacyAnalysisWire = {
        text: message.text,
        reference,
        type: v.type,
        severity: v.severity,
        recommendedAction: v.recommendedAction,
        meta: { directedAt: v.directedAt, classifications: v.classifications },
        language: v.language,
        analyzedAt: at
      }
      this.legacy.upsert(req.channelUuid, reference, message.text, message.context, analysis, at)
      data.push(analysis)
    })
    return { data, errors }
  }
}
