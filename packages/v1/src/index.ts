/**
 * `@warden/v1`: typed clients of the v1 endpoints — `AnalyzeV1` (text, image, username) and
 * `FeedbackV1` (text, image) — on `@warden/transport`.
 */
export * as AnalyzeV1 from "./AnalyzeV1.ts"
export * as FeedbackV1 from "./FeedbackV1.ts"
export * as Sent from "./Sent.ts"
export * as V1Client from "./V1Client.ts"
