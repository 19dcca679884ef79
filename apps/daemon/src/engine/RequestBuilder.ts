/**
 * From a source event to the request bodies the API takes. Connectors report what the platform gives;
 * the API has strict rules (2-letter language, URIs, length limits, zoned date-times), so optional
 * metadata that would break a rule is dropped or trimmed here rather than failing the whole item: the
 * content is what must be analysed. Content over the limit follows the source's `oversize` setting.
 */
import {
  Characters,
  type ImageAnalyzeRequest,
  type LegacyContext,
  type LegacyMessageOnWire,
  Limits,
  RESELLER_FIELDS_BY_ENDPOINT,
  type ResellerFields,
  type TextAnalyzeRequest,
  type UsernameAnalyzeRequest
} from "@warden/core"
import type { SourceEvent } from "@warden/connector"
import * as Segmenter from "./Segmenter.ts"
import type { SourceSettings } from "../domain/SourceSettings.ts"

/** The content could not be made into a valid request (oversize: reject, or empty). */
export interface Rejected {
  readonly _tag: "Rejected"
  readonly field: string
  readonly message: string
}

/** The bodies to send for one item, as core's request types: one per segment (one unless a long text was split). */
export type Prepared =
  | { readonly _tag: "Prepared"; readonly endpoint: "text"; readonly bodies: ReadonlyArray<TextAnalyzeRequest> }
  | { readonly _tag: "Prepared"; readonly endpoint: "image"; readonly bodies: ReadonlyArray<ImageAnalyzeRequest> }
  | { readonly _tag: "Prepared"; readonly endpoint: "username"; readonly bodies: ReadonlyArray<UsernameAnalyzeRequest> }

/** An analyze endpoint of v1. */
type Endpoint = keyof typeof RESELLER_FIELDS_BY_ENDPOINT

const isUri = (value: string | undefined): value is string =>
  value !== undefined && /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/u.test(value) && URL.canParse(value)

const isoDateTime = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString()
}

const language = (value: string | undefined): string | undefined => {
  const code = value?.slice(0, 2)
  return code !== undefined && /^[a-zA-Z]{2}$/u.test(code) ? code.toLowerCase() : undefined
}

const country = (value: string | undefined): string | undefined =>
  value !== undefined && /^[A-Z]{2}$/u.test(value) ? value : undefined

const clip = (value: string, max: number) => Characters.take(value, max)

/**
 * The optional fields whose value is defined: the API's optional keys are left out, never sent as
 * `undefined` (JSON would drop them, but the stored request and the types would not).
 */
const defined = <T extends Record<string, unknown>>(
  entries: T
): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> =>
  Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as Partial<{
    [K in keyof T]: Exclude<T[K], undefined>
  }>

const post = (p: SourceEvent.Post | undefined) =>
  p === undefined || p.title.trim() === ""
    ? undefined
    : {
        title: clip(p.title, Limits.POST_TITLE_MAX_LENGTH),
        ...defined({
          reference: p.reference === undefined ? undefined : clip(p.reference, Limits.REFERENCE_MAX_LENGTH),
          publishedAt: isoDateTime(p.publishedAt),
          permalink: isUri(p.permalink) ? p.permalink : undefined,
          countryCode: country(p.countryCode)
        })
      }

const author = (a: SourceEvent.Author | undefined) =>
  a === undefined || a.username === ""
    ? undefined
    : {
        username: clip(a.username, Limits.USERNAME_MAX_LENGTH),
        ...defined({
          reference: a.identifier === undefined ? undefined : clip(a.identifier, Limits.REFERENCE_MAX_LENGTH),
          permalink: isUri(a.permalink) ? a.permalink : undefined,
          profilePictureUrl: isUri(a.profilePictureUrl) ? a.profilePictureUrl : undefined,
          countryCode: country(a.countryCode)
        })
      }

/** The text pieces to analyse, after the source's oversize policy. */
export const textPieces = (
  text: string,
  max: number,
  oversize: SourceSettings["oversize"]
): ReadonlyArray<string> | Rejected => {
  if (text.trim() === "") return { _tag: "Rejected", field: "text", message: "the content is empty" }
  const length = Characters.count(text)
  if (length <= max) return [text]
  switch (oversize) {
    case "split":
      return Segmenter.split(text, max)
    case "truncate":
      return [Segmenter.truncate(text, max)]
    case "reject":
      return {
        _tag: "Rejected",
        field: "text",
        message: `the text is ${length} characters long; the limit is ${max} (oversize: reject)`
      }
  }
}

/**
 * The source's reseller fields (`analysis`) that `endpoint` takes, as request fields: the spec says a
 * field sent where it does not apply is ignored, but sending it would still be refused for a
 * standard key and would make the stored request say something the API did not use.
 */
export const resellerFields = <E extends Endpoint>(
  settings: SourceSettings,
  endpoint: E
): Pick<ResellerFields, (typeof RESELLER_FIELDS_BY_ENDPOINT)[E][number]> => {
  const analysis: ResellerFields = settings.analysis ?? {}
  const names: ReadonlyArray<keyof ResellerFields> = RESELLER_FIELDS_BY_ENDPOINT[endpoint]
  // The fields of `analysis` (decoded as ResellerFields) named by the endpoint's list: that Pick.
  return Object.fromEntries(
    names.flatMap((name) => (analysis[name] === undefined ? [] : [[name, analysis[name]]]))
  ) as Pick<ResellerFields, (typeof RESELLER_FIELDS_BY_ENDPOINT)[E][number]>
}

/** The v1 request bodies for an upsert event. */
export const v1Bodies = (
  settings: SourceSettings,
  event: Omit<SourceEvent.Upsert, "checkpoint">
): Prepared | Rejected => {
  const content = event.content
  const publishedAt = isoDateTime(event.publishedAt)
  switch (content.type) {
    case "text": {
      const pieces = textPieces(content.text, Limits.TEXT_MAX_LENGTH, settings.oversize)
      if (!Array.isArray(pieces)) return pieces as Rejected
      const common = defined({
        publishedAt,
        reference: event.reference,
        permalink: isUri(event.permalink) ? event.permalink : undefined,
        language: language(event.language),
        post: post(event.post),
        author: author(event.author)
      })
      return {
        _tag: "Prepared",
        endpoint: "text",
        bodies: pieces.map((text) => ({
          channelId: settings.channelId,
          text,
          ...common,
          ...resellerFields(settings, "text")
        }))
      }
    }
    case "image":
      return {
        _tag: "Prepared",
        endpoint: "image",
        bodies: [
          {
            channelId: settings.channelId,
            ...defined({ publishedAt }),
            ...("url" in content ? { imageUrl: content.url } : { imageData: content.data }),
            ...resellerFields(settings, "image")
          }
        ]
      }
    case "username":
      return content.username.trim() === ""
        ? { _tag: "Rejected", field: "username", message: "the username is empty" }
        : {
            _tag: "Prepared",
            endpoint: "username",
            bodies: [
              {
                channelId: settings.channelId,
                username: clip(content.username, Limits.USERNAME_MAX_LENGTH),
                ...defined({ publishedAt }),
                ...resellerFields(settings, "username")
              }
            ]
          }
  }
}

/** The legacy messages for an upsert event (text only: the legacy endpoint analyses text). */
export const legacyMessages = (
  settings: SourceSettings,
  event: Omit<SourceEvent.Upsert, "checkpoint">
): ReadonlyArray<LegacyMessageOnWire> | Rejected => {
  const content = event.content
  const text = content.type === "text" ? content.text : content.type === "username" ? content.username : undefined
  if (text === undefined) {
    return { _tag: "Rejected", field: "content", message: "legacy mode analyses text only; images need mode v1" }
  }
  const pieces = textPieces(text, Limits.LEGACY_TEXT_MAX_LENGTH, settings.oversize)
  if (!Array.isArray(pieces)) return pieces as Rejected
  const context: LegacyContext = defined({
    topLevelReference: event.thread?.topLevelReference,
    parentReference: event.thread?.parentReference,
    from:
      event.author === undefined
        ? undefined
        : { type: "AUTHOR", data: defined({ identifier: event.author.identifier, username: event.author.username }) },
    content:
      event.post === undefined
        ? undefined
        : {
            type: settings.connector === "youtube" ? "VIDEO" : "POST",
            data: defined({ identifier: event.post.reference, title: event.post.title })
          }
  })
  return pieces.map((piece, i) => ({
    text: piece,
    ...defined({
      reference: pieces.length === 1 ? event.reference : `${event.reference}#${i + 1}`,
      context: Object.keys(context).length === 0 ? undefined : context
    })
  }))
}
