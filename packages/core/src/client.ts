/**
 * `@warden/core/client`: what a client of the API needs — schemas, taxonomies, errors, endpoint paths —
 * without the `HttpApi` contract and the OpenAPI document. The `@warden/core` barrel adds those, and
 * with them `effect/http-api` (about a hundred more modules at import); the Promise clients import
 * this entry so that `import("@warden/v1")` does not load them.
 */
export * from "./Analysis.ts"
export * from "./ApiErrors.ts"
export * from "./CallInfo.ts"
export * as Characters from "./Characters.ts"
export * from "./ClientErrors.ts"
export * from "./Endpoints.ts"
export * from "./ErrorDecoder.ts"
export * from "./Feedback.ts"
export * as FieldViolations from "./FieldViolation.ts"
export { FieldViolation } from "./FieldViolation.ts"
export * from "./ImageAnalyzeRequest.ts"
export * from "./Legacy.ts"
export * as Limits from "./Limits.ts"
export * from "./Primitives.ts"
export * from "./ResellerFields.ts"
export * from "./Taxonomy.ts"
export * from "./TextAnalyzeRequest.ts"
export * from "./UsernameAnalyzeRequest.ts"
export * as WardenErrors from "./WardenError.ts"
