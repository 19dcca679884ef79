/**
 * The one error envelope of the admin API: `{ "error": { "code", "message", ... } }`, whatever the
 * route and the status. Input a user gets wrong is a 4xx naming what is wrong (the parameter, the
 * field); a 500 means a fault of the daemon, never bad input.
 */
import type { ServerResponse } from "node:http"
import { Schema } from "effect"

/** The body every admin error answers with. */
export const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String,
    message: Schema.String,
    /** The query or path parameter that is wrong (`limit`, `reference`). */
    parameter: Schema.optionalKey(Schema.String),
    /** For `AMBIGUOUS_REFERENCE`: the sources that recorded the reference. */
    sources: Schema.optionalKey(Schema.Array(Schema.String))
  })
})
/** @see {@link ErrorEnvelope} */
export type ErrorEnvelope = typeof ErrorEnvelope.Type

/** A request the admin API refuses, with its status and envelope. */
export class AdminRefused extends Schema.TaggedError<AdminRefused>()("AdminRefused", {
  status: Schema.Int,
  code: Schema.String,
  message: Schema.String,
  parameter: Schema.optionalKey(Schema.String),
  sources: Schema.optionalKey(Schema.Array(Schema.String))
}) {
  /** The envelope of this refusal. */
  get envelope(): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.parameter === undefined ? {} : { parameter: this.parameter }),
        ...(this.sources === undefined ? {} : { sources: this.sources })
      }
    }
  }
}

/** 400 for a wrong parameter, naming it. */
export const badParameter = (parameter: string, message: string) =>
  new AdminRefused({ status: 400, code: "BAD_REQUEST", message: `${parameter}: ${message}`, parameter })

/** Writes a JSON answer. */
export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers
  })
  res.end(text)
}

/** Writes a refusal as the envelope. */
export const refuse = (res: ServerResponse, refused: AdminRefused, headers: Record<string, string> = {}) =>
  json(res, refused.status, refused.envelope, headers)
